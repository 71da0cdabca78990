// The record of a set on one server (idforge_ticket_members), in the same columns on
// PostgreSQL and MariaDB: how it is written to and read from text.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "idforge/ticket/ticket_server.hpp"

namespace idforge::ticket::detail {

/// The record's columns, in the order parse_record() reads them.
inline constexpr std::string_view kRecordColumns =
    "state, epoch, first_value, members, dropped, gap, member_index, token, highest, "
    "next_epoch, next_first, next_members, next_dropped, next_gap, version";

/// Member lists as text: one "ID URL" a line.
std::string encode_members(const std::vector<MemberRef>& members);
std::vector<MemberRef> decode_members(std::string_view text);

/// A record from its columns (kRecordColumns order); col(i) is nullopt for NULL.
MemberRecord parse_record(const std::function<std::optional<std::string_view>(int)>& col,
                          std::string_view where);

/// Member index's step (K) and its residue for MariaDB's auto_increment_offset (1..K).
struct MemberValues {
  std::int64_t step = 0;
  std::int64_t first = 0;    ///< its first value
  std::int64_t residue = 0;  ///< first's residue, 1..step
};
MemberValues values_of(const TicketConfig& c, std::int64_t index);

/// The position of id in c.members, or -1.
std::int64_t index_of(const TicketConfig& c, std::string_view id);

/// A fresh token naming one init or resize: "e<epoch>-<16 hex digits>".
std::string new_token(std::int64_t epoch);

}  // namespace idforge::ticket::detail
