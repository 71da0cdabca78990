// Creating and resizing a ticket set across servers.
//
// Resize K -> K' is the step the multi-master scheme makes painful: every current server
// must be paused, the highest value handed out anywhere found, and every server restarted
// with the new step and an offset above it. resize_ticket_set() does exactly that, holding
// each current server's lock (so no client gets a value meanwhile) until all are changed.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "idforge/ticket/ticket_server.hpp"

namespace idforge::ticket {

/// Installs set name on every server: server i hands out start+i, start+i+K, ... (K =
/// servers.size()). errc::already_exists if any server has it (those before it keep theirs).
void init_ticket_set(std::span<const std::unique_ptr<TicketServer>> servers, std::string_view name,
                     std::int64_t start = 1);

/// What a resize did.
struct ResizeReport {
  std::int64_t old_k = 0;    ///< servers that held the set
  std::int64_t new_k = 0;    ///< servers that hold it now (the first new_k in the list)
  std::int64_t highest = 0;  ///< highest value handed out anywhere before the resize
  std::int64_t first = 0;    ///< the new server 0's first value (> highest, = 1 mod new_k)
  std::vector<std::int64_t> old_increments;  ///< the step each current server had
};

/// Moves set name to the first new_k servers of the list. Every server in the list that
/// holds the set must answer (its highest value is needed); errc::store_unreachable names
/// the one that did not, and nothing changes. The new values start above the highest one
/// handed out anywhere, so no value is given twice. Servers past new_k that held the set
/// are retired. 1 <= new_k <= servers.size() (errc::invalid_argument).
ResizeReport resize_ticket_set(std::span<const std::unique_ptr<TicketServer>> servers,
                               std::string_view name, std::int64_t new_k);

}  // namespace idforge::ticket
