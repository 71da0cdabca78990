// Summing up a ticket set from records already read, so an init or resize can describe
// exactly the state it acted on (not a later one).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "idforge/ticket/ticket_set.hpp"

namespace idforge::ticket::detail {

/// The status of set name from its listed servers as read (see read_ticket_set()).
/// Empty when the listed servers' records can be one set; otherwise one line naming the
/// servers and what differs (see SetStatus::conflict).
std::string find_conflict(std::string_view name, const std::vector<ServerStatus>& servers);

SetStatus summarize_ticket_set(std::string name, std::vector<ServerStatus> servers);

}  // namespace idforge::ticket::detail
