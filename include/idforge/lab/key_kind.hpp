// The ID kinds the index lab compares, with what a database stores for each.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace idforge::lab {

/// An ID format as a primary key.
enum class KeyKind {
  snowflake,   ///< 64-bit Snowflake in a BIGINT (time-ordered)
  uuid7,       ///< UUIDv7 as 16 bytes (time-ordered)
  ulid,        ///< ULID as 16 bytes (time-ordered)
  uuid4,       ///< UUIDv4 as 16 bytes (random)
  uuid4_text,  ///< UUIDv4 as its 36-character text (random)
};

/// What the lab knows about a kind.
struct KeyKindInfo {
  KeyKind kind;
  std::string_view name;         ///< the name on the command line: snowflake, uuid7, ...
  unsigned key_bytes;            ///< bytes one key takes in an index entry
  bool time_ordered;             ///< new keys sort after older ones
  std::string_view description;  ///< e.g. "UUIDv4 as 36-char text"
};

/// The facts about kind.
const KeyKindInfo& info(KeyKind kind) noexcept;

/// Every kind, in the order tables list them.
std::span<const KeyKind> all_key_kinds() noexcept;

/// The kind named `name` (as in info().name; "uuid4-text" is accepted too). Throws
/// Error(errc::invalid_argument) naming the value and the accepted names.
KeyKind parse_key_kind(std::string_view name);

/// A comma-separated list of kinds ("snowflake,uuid7,uuid4"); "all" means every kind.
/// Empty items, unknown names and repeats are errors (errc::invalid_argument).
std::vector<KeyKind> parse_key_kinds(std::string_view list);

}  // namespace idforge::lab
