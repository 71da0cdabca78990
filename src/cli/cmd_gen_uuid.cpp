// `idforge gen uuid7|uuid4|ulid`: print 128-bit IDs, one a line.
//   text  canonical form: 8-4-4-4-12 lowercase for UUIDs, 26 Crockford characters for ULIDs
//   hex   32 lowercase hex digits of the 16 bytes
//   json  {"id":"<text>","hex":"<hex>"} plus "unix_ms" for the time-ordered kinds
#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/ulid_generator.hpp"
#include "idforge/uuid_generator.hpp"
#include "option_checks.hpp"
#include "output.hpp"

namespace idforge::cli {
namespace {

enum class Kind { uuid7, uuid4, ulid };

struct GenArgs {
  std::uint64_t count = 1;
  std::string format = "text";
};

constexpr std::size_t kChunk = 4096;

// Appends one line for id in the chosen format; text and hex are written straight into the
// buffer with the allocation-free to_chars.
void append(std::string& out, const Uuid& bytes, const char* text, std::size_t text_size,
            const std::string& format, bool timed, std::uint64_t unix_ms) {
  char hex[Uuid::kHexSize];
  if (format == "text") {
    out.append(text, text_size);
  } else if (format == "hex") {
    out.append(hex, static_cast<std::size_t>(bytes.to_hex_chars(hex) - hex));
  } else {
    bytes.to_hex_chars(hex);
    out += R"({"id":")";
    out.append(text, text_size);
    out += R"(","hex":")";
    out.append(hex, sizeof hex);
    out += '"';
    if (timed) out += fmt::format(R"(,"unix_ms":{})", unix_ms);
    out += '}';
  }
  out += '\n';
}

void run(Kind kind, const GenArgs& a) {
  UuidV7Generator v7;
  UlidGenerator ulid;
  std::vector<Uuid> uuids(kind == Kind::ulid ? 0 : std::min<std::uint64_t>(a.count, kChunk));
  std::vector<Ulid> ulids(kind == Kind::ulid ? std::min<std::uint64_t>(a.count, kChunk) : 0);
  std::string out;
  for (std::uint64_t left = a.count; left > 0;) {
    const std::size_t n = std::min<std::uint64_t>(left, kChunk);
    out.clear();
    char text[Uuid::kTextSize];
    if (kind == Kind::ulid) {
      ulid.next_batch(std::span(ulids.data(), n));
      for (std::size_t i = 0; i < n; ++i)
        append(out, ulids[i].to_uuid(), text,
               static_cast<std::size_t>(ulids[i].to_chars(text) - text), a.format, true,
               ulids[i].unix_ms());
    } else {
      const std::span<Uuid> batch(uuids.data(), n);
      if (kind == Kind::uuid7)
        v7.next_batch(batch);
      else
        uuid_v4_batch(batch);
      for (const Uuid& u : batch)
        append(out, u, text, static_cast<std::size_t>(u.to_chars(text) - text), a.format,
               kind == Kind::uuid7, decompose_v7(u).unix_ms);
    }
    write_out(out);
    left -= n;
  }
}

void add(CLI::App& gen, const char* name, const char* help, Kind kind) {
  auto args = std::make_shared<GenArgs>();
  CLI::App* cmd = gen.add_subcommand(name, help);
  cmd->add_option("-n,--count", args->count, "How many IDs")->transform(whole_number(1, kMaxCount));
  cmd->add_option("--format", args->format, "text, hex or json")
      ->check(CLI::IsMember({"text", "hex", "json"}))
      ->capture_default_str();
  cmd->callback([args, kind] { run(kind, *args); });
}

}  // namespace

void add_gen_uuid(CLI::App& gen) {
  add(gen, "uuid7", "RFC 9562 UUIDv7: time-ordered, strictly increasing, 42-bit counter",
      Kind::uuid7);
  add(gen, "uuid4", "RFC 9562 UUIDv4: 122 random bits from the CSPRNG", Kind::uuid4);
  add(gen, "ulid", "ULID: 48-bit ms time + 80 random bits, monotonic, Crockford base32",
      Kind::ulid);
}

}  // namespace idforge::cli
