// uuid_str(), uuid_blob(), idforge_inspect(): pure functions of their arguments (registered
// SQLITE_DETERMINISTIC, so SQLite may use them in indexes and generated columns). The parsing
// and decoding are the C ABI's (idforge_uuid_parse, idforge_inspect_json), so the rules and
// messages are those of the CLI.
#include <cstring>
#include <string>
#include <vector>

#include "functions.hpp"

namespace idforge::sqlite {
namespace {

constexpr const char* kBlobRule = "the argument must be a 16-byte blob (a UUID's bytes)";
constexpr const char* kLayoutRule =
    "the layout must be text: a preset name (twitter, discord, sonyflake, instagram, baidu) or "
    "a spec";

idforge_uuid uuid_of_blob(sqlite3_value* v) {
  if (sqlite3_value_type(v) != SQLITE_BLOB || sqlite3_value_bytes(v) != 16)
    throw ArgumentError(std::string(kBlobRule) + ", got " + describe(v));
  idforge_uuid u;
  std::memcpy(u.bytes, sqlite3_value_blob(v), sizeof u.bytes);
  return u;
}

std::string uuid_text(const idforge_uuid& u) {
  char text[IDFORGE_UUID_TEXT_SIZE];
  ok(idforge_uuid_format(&u, text, sizeof text));
  return std::string(text, IDFORGE_UUID_TEXT_SIZE - 1);
}

// What idforge_inspect() decodes: text as given, an integer as its decimal digits (a Snowflake
// stored as INTEGER), a 16-byte blob as the UUID it holds.
std::string inspect_input(sqlite3_value* v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_TEXT:
      return std::string(text_arg(v, ""));
    case SQLITE_INTEGER:
      return std::to_string(sqlite3_value_int64(v));
    case SQLITE_BLOB:
      if (sqlite3_value_bytes(v) == 16) return uuid_text(uuid_of_blob(v));
      [[fallthrough]];
    default:
      throw ArgumentError(
          "the ID must be text, an integer (a Snowflake) or a 16-byte blob (a "
          "UUID), got " +
          describe(v));
  }
}

}  // namespace

void uuid_str(sqlite3_context* ctx, int, sqlite3_value** argv) noexcept {
  guard(ctx, "uuid_str", [&] {
    const std::string text = uuid_text(uuid_of_blob(argv[0]));
    sqlite3_result_text(ctx, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  });
}

void uuid_blob(sqlite3_context* ctx, int, sqlite3_value** argv) noexcept {
  guard(ctx, "uuid_blob", [&] {
    const std::string_view s =
        text_arg(argv[0],
                 "the argument must be UUID text (36 characters 8-4-4-4-12, 32 hex digits, "
                 "{braced} or urn:uuid:)");
    idforge_uuid u;
    ok(idforge_uuid_parse(s.data(), s.size(), &u));  // the message gives position and rule
    sqlite3_result_blob(ctx, u.bytes, sizeof u.bytes, SQLITE_TRANSIENT);
  });
}

void inspect_json(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept {
  guard(ctx, "idforge_inspect", [&] {
    std::string layout;  // NUL-terminated for the C ABI, so a NUL inside is refused here
    if (argc > 1) {
      layout = std::string(text_arg(argv[1], kLayoutRule));
      if (const std::size_t at = layout.find('\0'); at != std::string::npos)
        throw ArgumentError("the layout must not contain a NUL byte (found at byte " +
                            std::to_string(at) + "), got text '" + shown(layout) + "'");
    }
    const std::string input = inspect_input(argv[0]);
    const char* spec = argc > 1 ? layout.c_str() : nullptr;
    // Text that is not UTF-8 is written with U+FFFD, as `idforge inspect --json` does.
    std::vector<char> json(512);
    std::size_t needed = 0;
    idforge_status s =
        idforge_inspect_json(input.data(), input.size(), spec, json.data(), json.size(), &needed);
    if (s == IDFORGE_E_BUFFER_TOO_SMALL) {
      json.resize(needed);
      s = idforge_inspect_json(input.data(), input.size(), spec, json.data(), json.size(), &needed);
    }
    ok(s);
    sqlite3_result_text(ctx, json.data(), static_cast<int>(needed - 1), SQLITE_TRANSIENT);
  });
}

}  // namespace idforge::sqlite
