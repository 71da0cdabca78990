// inspect for the 128-bit kinds: UUID (any version) and ULID.
#include <cstdio>
#include <string>

#include "idforge/error.hpp"
#include "idforge/inspect.hpp"
#include "idforge/time_format.hpp"
#include "idforge/ulid.hpp"
#include "idforge/uuid.hpp"
#include "idforge/uuid_fields.hpp"

namespace idforge {
namespace {

InspectField number(std::string name, std::uint64_t v) {
  return {std::move(name), std::to_string(v), v};
}

// Fixed-width lowercase hex of the low `bits` bits, with a 0x prefix.
InspectField hex(std::string name, std::uint64_t v, int bits) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%0*llx", (bits + 3) / 4, static_cast<unsigned long long>(v));
  return {std::move(name), buf, std::nullopt};
}

InspectField text(std::string name, std::string value) {
  return {std::move(name), std::move(value), std::nullopt};
}

const char* version_name(int v) {
  switch (v) {
    case 1:
      return "1 (Gregorian time, node)";
    case 2:
      return "2 (DCE security)";
    case 3:
      return "3 (name-based, MD5)";
    case 4:
      return "4 (random)";
    case 5:
      return "5 (name-based, SHA-1)";
    case 6:
      return "6 (reordered Gregorian time)";
    case 7:
      return "7 (Unix time, ordered)";
    case 8:
      return "8 (custom)";
    default:
      return nullptr;
  }
}

void add_time(Inspection& out, std::int64_t unix_ms) {
  out.unix_ms = unix_ms;
  out.fields.push_back(text("time", format_iso8601_ms(unix_ms)));
  out.fields.push_back({"unix_ms", std::to_string(unix_ms),
                        unix_ms >= 0
                            ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(unix_ms))
                            : std::nullopt});
}

void add_gregorian(Inspection& out, const UuidGregorianFields& g) {
  add_time(out, g.unix_ms);
  out.fields.push_back(hex("timestamp", g.timestamp, 60));
  out.fields.push_back(number("clock_seq", g.clock_seq));
  out.fields.push_back(hex("node", g.node, 48));
}

const char* dce_domain_name(int d) {
  switch (d) {
    case 0:
      return "0 (person: POSIX UID)";
    case 1:
      return "1 (group: POSIX GID)";
    case 2:
      return "2 (org)";
    default:
      return nullptr;
  }
}

// v2 has a timestamp too (v1's, less time_low), so it reveals its creation time to within
// 7 minutes and gets the same time fields, and through them the same secret warning.
void add_dce(Inspection& out, const UuidV2Fields& f) {
  add_time(out, f.unix_ms);
  out.fields.push_back(text("time_step",
                            "429.4967296 s (time is the start of the step: the low "
                            "32 bits of the timestamp hold local_id)"));
  out.fields.push_back(hex("timestamp", f.timestamp, 60));
  out.fields.push_back(number("local_id", f.local_id));
  const char* dname = dce_domain_name(f.local_domain);
  out.fields.push_back(
      {"domain", dname ? dname : std::to_string(f.local_domain) + " (unassigned)", f.local_domain});
  out.fields.push_back(number("clock_seq", f.clock_seq));
  out.fields.push_back(hex("node", f.node, 48));
}

}  // namespace

Inspection inspect_uuid(std::string_view input) {
  const Uuid u = Uuid::parse(input);
  Inspection out;
  out.kind = "uuid";
  out.input = std::string(input);
  out.canonical = u.to_string();
  const int v = u.version();
  if (u.is_nil() || u.is_max()) {
    out.fields.push_back(
        text("special", u.is_nil() ? "nil (RFC 9562 section 5.9)" : "max (RFC 9562 section 5.10)"));
    out.fields.push_back(number("version", static_cast<std::uint64_t>(v)));
    out.fields.push_back(text("variant", to_string(u.variant())));
    return out;
  }
  const bool rfc = u.variant() == UuidVariant::rfc9562;
  const char* vname = rfc ? version_name(v) : nullptr;
  out.fields.push_back(
      {"version",
       vname ? vname : std::to_string(v) + (rfc ? " (unassigned)" : " (not an RFC 9562 variant)"),
       static_cast<std::uint64_t>(v)});
  out.fields.push_back(text("variant", to_string(u.variant())));
  if (rfc) {
    const UuidSplitFields s = decompose_split(u);
    switch (v) {
      case 1:
        add_gregorian(out, decompose_v1(u));
        break;
      case 6:
        add_gregorian(out, decompose_v6(u));
        break;
      case 2:
        add_dce(out, decompose_v2(u));
        break;
      case 7:
        add_time(out, static_cast<std::int64_t>(s.a));
        out.fields.push_back(hex("rand_a", s.b, 12));
        out.fields.push_back(hex("rand_b", s.c, 62));
        break;
      case 4:
        out.fields.push_back(hex("random_a", s.a, 48));
        out.fields.push_back(hex("random_b", s.b, 12));
        out.fields.push_back(hex("random_c", s.c, 62));
        break;
      case 8:
        out.fields.push_back(hex("custom_a", s.a, 48));
        out.fields.push_back(hex("custom_b", s.b, 12));
        out.fields.push_back(hex("custom_c", s.c, 62));
        break;
      case 3:
      case 5:
        out.fields.push_back(text("hash", u.to_hex()));
        break;
      default:
        break;
    }
  }
  out.fields.push_back(text("hex", u.to_hex()));
  out.fields.push_back(text("urn", u.to_urn()));
  return out;
}

Inspection inspect_ulid(std::string_view input) {
  const Ulid u = Ulid::parse(input);
  Inspection out;
  out.kind = "ulid";
  out.input = std::string(input);
  out.canonical = u.to_string();
  add_time(out, static_cast<std::int64_t>(u.unix_ms()));
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%04x%016llx", static_cast<unsigned>(u.random_high()),
                static_cast<unsigned long long>(u.random_low()));
  out.fields.push_back(text("random", buf));
  out.fields.push_back(text("uuid", u.to_uuid().to_string()));
  return out;
}

}  // namespace idforge
