#include "idforge/inspect.hpp"

#include <algorithm>
#include <cctype>

#include "idforge/error.hpp"
#include "idforge/snowflake.hpp"
#include "idforge/time_format.hpp"

namespace idforge {
namespace {

InspectField number_field(std::string name, std::uint64_t v) {
  return {std::move(name), std::to_string(v), v};
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

const InspectField* Inspection::field(std::string_view name) const noexcept {
  for (const auto& f : fields)
    if (f.name == name) return &f;
  return nullptr;
}

Inspection inspect_snowflake(std::string_view text, const InspectOptions& options) {
  IntEncoding enc = IntEncoding::decimal;
  if (options.encoding)
    enc = *options.encoding;
  else if (text.starts_with("0x") || text.starts_with("0X"))
    enc = IntEncoding::hex;
  const std::uint64_t v = decode_u64(text, enc);
  const Layout& layout = options.layout;
  const SnowflakeParts p = decompose(layout, Snowflake(v));
  Inspection out;
  out.kind = "snowflake";
  out.input = std::string(text);
  out.canonical = std::to_string(v);
  out.unix_ms = p.unix_ms;
  out.fields.push_back({"layout", layout.name(), std::nullopt});
  out.fields.push_back({"time", format_iso8601_ms(p.unix_ms), std::nullopt});
  out.fields.push_back(number_field("unix_ms", static_cast<std::uint64_t>(p.unix_ms)));
  out.fields.push_back(number_field("tick", p.tick));
  if (layout.datacenter_bits() > 0) {
    out.fields.push_back(number_field("datacenter", p.datacenter));
    out.fields.push_back(number_field("worker", p.worker));
  }
  out.fields.push_back(number_field("node", p.node));
  out.fields.push_back(number_field("sequence", p.sequence));
  out.fields.push_back({"hex", encode_u64(v, IntEncoding::hex), std::nullopt});
  out.fields.push_back({"base32", encode_u64(v, IntEncoding::base32), std::nullopt});
  out.fields.push_back({"base62", encode_u64(v, IntEncoding::base62), std::nullopt});
  // Number.MAX_SAFE_INTEGER is 2^53 - 1: 2^53 itself is shared with 2^53 + 1 once in a double.
  const bool js_safe = v < (std::uint64_t{1} << 53);
  out.fields.push_back({"js_safe", js_safe ? "true" : "false", std::nullopt, true});
  return out;
}

namespace {

// The 128-bit kinds by their text forms: UUID 36 (8-4-4-4-12), 32 (hex), 38 ({...}),
// 45 (urn:uuid:...); ULID 26. No Snowflake text has these lengths: decimal needs at most 20
// digits, hex at most 16 (+ 0x), base32 13, base62 11.
bool looks_like_uuid(std::string_view s) {
  switch (s.size()) {
    case 32:
      return std::all_of(s.begin(), s.end(),
                         [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
    case 36:
      return s[8] == '-' || s[13] == '-';
    case 38:
      return s.front() == '{';
    case 45:
      return s[3] == ':' && s[8] == ':';
    default:
      return false;
  }
}

bool looks_like_ulid(std::string_view s) {
  return s.size() == 26 && std::all_of(s.begin(), s.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) != 0;
         });
}

// TypeID: something, then '_', then 26 characters; no other kind has an underscore.
bool looks_like_typeid(std::string_view s) {
  const std::size_t sep = s.rfind('_');
  return sep != std::string_view::npos && s.size() - sep - 1 == 26;
}

// KSUID: 27 base62 characters. No Snowflake text is that long (at most 20 digits).
bool looks_like_ksuid(std::string_view s) {
  return s.size() == 27 && std::all_of(s.begin(), s.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) != 0;
         });
}

// Detection goes by shape, and random text of the right shape decodes too: a 27-character
// base62 token is a valid KSUID, a 26-character one often a valid ULID, 32 random hex digits
// a UUID of whatever version their 13th digit says. Their "time" then falls anywhere in the
// range of the time field, which reaches centuries (KSUID) to millennia (ULID) ahead, so a
// time far ahead is the tell.
std::string future_note(const Inspection& in) {
  const char* shape = nullptr;
  if (in.kind == "ksuid")
    shape = "27 base62 characters (such as a token from 'idforge gen token')";
  else if (in.kind == "ulid")
    shape = "26 letters and digits (such as a token from 'idforge gen token')";
  else if (in.kind == "typeid")
    shape = "a prefix, '_' and 26 letters and digits";
  else if (in.kind == "uuid")
    shape = "32 hex digits";
  if (!shape)  // a number: any number decodes under any layout
    return "time is more than a day in the future: a number of another layout (epoch, widths) or "
           "no "
           "Snowflake at all reads like this; check --layout";
  return "time is more than a day in the future: a random string of " + std::string(shape) +
         " reads as a " + in.kind + " too, so this may not be a " + in.kind + " at all";
}

Inspection detect_and_decode(std::string_view text, const InspectOptions& options) {
  if (!options.encoding) {
    if (looks_like_uuid(text)) return inspect_uuid(text);
    if (looks_like_ulid(text)) return inspect_ulid(text);
    if (looks_like_typeid(text)) return inspect_typeid(text);
    if (looks_like_ksuid(text)) return inspect_ksuid(text);
  }
  if (options.encoding || all_digits(text) || text.starts_with("0x") || text.starts_with("0X"))
    return inspect_snowflake(text, options);
  throw ParseError("ID", text, 0,
                   "unrecognised shape: expected a UUID (8-4-4-4-12, 32 hex digits, {braced} or "
                   "urn:uuid:), a ULID (26 Crockford base32 characters), a TypeID (prefix_ and 26 "
                   "base32 characters), a KSUID (27 base62 characters) or a Snowflake (decimal "
                   "digits, or 0x and hex; other encodings with --encoding)");
}

}  // namespace

Inspection inspect(std::string_view text, const InspectOptions& options) {
  Inspection out = detect_and_decode(text, options);
  // Unsigned difference once t > now: exact for any two int64 times, where a signed one
  // overflows for the far-off times a custom layout can decode.
  const auto ahead = [](std::int64_t t, std::int64_t now) {
    return t > now && static_cast<std::uint64_t>(t) - static_cast<std::uint64_t>(now) >
                          static_cast<std::uint64_t>(kFutureSlackMs);
  };
  if (out.unix_ms && options.now_unix_ms && ahead(*out.unix_ms, *options.now_unix_ms)) {
    out.time_in_future = true;
    out.fields.push_back({"note", future_note(out), std::nullopt});
  }
  return out;
}

}  // namespace idforge
