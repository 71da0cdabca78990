// `idforge gen uuid7|uuid4|ulid`: print 128-bit IDs, one a line.
//   text  canonical form: 8-4-4-4-12 lowercase for UUIDs, 26 Crockford characters for ULIDs
//   hex   32 lowercase hex digits of the 16 bytes
//   json  {"id":"<text>","hex":"<hex>"} plus "unix_ms" for the time-ordered kinds
#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
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

// Appends one JSON line for id.
void append_json(std::string& out, const Uuid& bytes, std::string_view text, bool timed,
                 std::uint64_t unix_ms) {
  char hex[Uuid::kHexSize];
  bytes.to_hex_chars(hex);
  out += R"({"id":")";
  out += text;
  out += R"(","hex":")";
  out.append(hex, sizeof hex);
  out += '"';
  if (timed) out += fmt::format(R"(,"unix_ms":{})", unix_ms);
  out += "}\n";
}

// Appends the chunk's IDs one a line: text and hex go through the batch writers (one call
// per chunk into the output buffer), json line by line.
template <typename Id>
void append_lines(std::string& out, std::span<const Id> ids, const std::string& format,
                  bool timed) {
  if (format == "text" || format == "hex") {
    const bool hex = format == "hex";
    const std::size_t at = out.size();
    out.resize(at + batch_text_size(ids.size(), hex ? Uuid::kHexSize : Id::kTextSize, "\n") + 1);
    char* end;
    if (hex) {
      if constexpr (std::is_same_v<Id, Uuid>) {
        end = to_hex_chars(ids, out.data() + at, "\n");
      } else {
        std::vector<Uuid> bytes;
        for (const Id& id : ids) bytes.push_back(id.to_uuid());
        end = to_hex_chars(std::span<const Uuid>(bytes), out.data() + at, "\n");
      }
    } else {
      end = to_chars(ids, out.data() + at, "\n");
    }
    *end = '\n';
    return;
  }
  for (const Id& id : ids) {
    char text[Id::kTextSize];
    const std::string_view t(text, static_cast<std::size_t>(id.to_chars(text) - text));
    if constexpr (std::is_same_v<Id, Uuid>)
      append_json(out, id, t, timed, decompose_v7(id).unix_ms);
    else
      append_json(out, id.to_uuid(), t, timed, id.unix_ms());
  }
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
    if (kind == Kind::ulid) {
      const std::span<Ulid> batch(ulids.data(), n);
      ulid.next_batch(batch);
      append_lines<Ulid>(out, batch, a.format, true);
    } else {
      const std::span<Uuid> batch(uuids.data(), n);
      if (kind == Kind::uuid7)
        v7.next_batch(batch);
      else
        new_uuid_v4_batch(batch);
      append_lines<Uuid>(out, batch, a.format, kind == Kind::uuid7);
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
