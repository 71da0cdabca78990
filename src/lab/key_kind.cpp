#include "idforge/lab/key_kind.hpp"

#include <algorithm>
#include <array>

#include "idforge/error.hpp"

namespace idforge::lab {
namespace {

constexpr std::array<KeyKindInfo, 5> kInfos{{
    {KeyKind::snowflake, "snowflake", 8, true, "Snowflake as BIGINT (8 bytes)"},
    {KeyKind::uuid7, "uuid7", 16, true, "UUIDv7 as 16 bytes"},
    {KeyKind::ulid, "ulid", 16, true, "ULID as 16 bytes"},
    {KeyKind::uuid4, "uuid4", 16, false, "UUIDv4 as 16 bytes"},
    {KeyKind::uuid4_text, "uuid4text", 36, false, "UUIDv4 as 36-char text"},
}};
constexpr std::array<KeyKind, 5> kAll{KeyKind::snowflake, KeyKind::uuid7, KeyKind::ulid,
                                      KeyKind::uuid4, KeyKind::uuid4_text};

std::string accepted_names() {
  std::string s;
  for (const auto& i : kInfos) s += (s.empty() ? "" : ", ") + std::string(i.name);
  return s;
}

}  // namespace

const KeyKindInfo& info(KeyKind kind) noexcept {
  return kInfos[static_cast<std::size_t>(kind)];
}

std::span<const KeyKind> all_key_kinds() noexcept {
  return kAll;
}

KeyKind parse_key_kind(std::string_view name) {
  if (name == "uuid4-text") return KeyKind::uuid4_text;
  for (const auto& i : kInfos)
    if (i.name == name) return i.kind;
  throw Error(errc::invalid_argument,
              "unknown key kind '" + std::string(name) + "': expected one of " + accepted_names());
}

std::vector<KeyKind> parse_key_kinds(std::string_view list) {
  if (list == "all") return {kAll.begin(), kAll.end()};
  std::vector<KeyKind> kinds;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = list.find(',', start);
    const std::string_view item = list.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (item.empty())
      throw Error(errc::invalid_argument, "empty key kind in list '" + std::string(list) +
                                              "': expected e.g. snowflake,uuid7,uuid4");
    const KeyKind k = parse_key_kind(item);
    if (std::find(kinds.begin(), kinds.end(), k) != kinds.end())
      throw Error(errc::invalid_argument, "key kind '" + std::string(item) +
                                              "' appears twice in '" + std::string(list) + "'");
    kinds.push_back(k);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return kinds;
}

}  // namespace idforge::lab
