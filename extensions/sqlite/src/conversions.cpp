// uuid_str(), uuid_blob(), idforge_inspect(): pure functions of their arguments (registered
// SQLITE_DETERMINISTIC, so SQLite may use them in indexes and generated columns). The parsing
// and decoding are core's, so the rules and messages are those of the CLI.
#include <cstring>
#include <string>

#include "functions.hpp"
#include "idforge/inspect.hpp"
#include "idforge/inspect_json.hpp"
#include "idforge/snowflake_layout.hpp"
#include "idforge/uuid.hpp"

namespace idforge::sqlite {
namespace {

constexpr const char* kBlobRule = "the argument must be a 16-byte blob (a UUID's bytes)";

Uuid uuid_of_blob(sqlite3_value* v) {
  if (sqlite3_value_type(v) != SQLITE_BLOB || sqlite3_value_bytes(v) != 16)
    throw ArgumentError(std::string(kBlobRule) + ", got " + describe(v));
  Uuid::Bytes b;
  std::memcpy(b.data(), sqlite3_value_blob(v), b.size());
  return Uuid(b);
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
      if (sqlite3_value_bytes(v) == 16) return uuid_of_blob(v).to_string();
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
    char text[Uuid::kTextSize];
    uuid_of_blob(argv[0]).to_chars(text);
    sqlite3_result_text(ctx, text, sizeof text, SQLITE_TRANSIENT);
  });
}

void uuid_blob(sqlite3_context* ctx, int, sqlite3_value** argv) noexcept {
  guard(ctx, "uuid_blob", [&] {
    const std::string_view s =
        text_arg(argv[0],
                 "the argument must be UUID text (36 characters 8-4-4-4-12, 32 hex digits, "
                 "{braced} or urn:uuid:)");
    Uuid u;
    if (!parse_uuid(s, u).ok()) u = Uuid::parse(s);  // throws ParseError: position and rule
    sqlite3_result_blob(ctx, u.bytes().data(), static_cast<int>(u.bytes().size()),
                        SQLITE_TRANSIENT);
  });
}

void inspect_json(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept {
  guard(ctx, "idforge_inspect", [&] {
    InspectOptions options;
    if (argc > 1)
      options.layout = parse_layout(
          text_arg(argv[1],
                   "the layout must be text: a preset name (twitter, discord, sonyflake, "
                   "instagram, baidu) or a spec"));
    const Inspection in = inspect(inspect_input(argv[0]), options);
    // Text that is not UTF-8 is written with U+FFFD, as `idforge inspect --json` does.
    const std::string json = inspection_to_json_with_warning(in).dump(
        -1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    sqlite3_result_text(ctx, json.data(), static_cast<int>(json.size()), SQLITE_TRANSIENT);
  });
}

}  // namespace idforge::sqlite
