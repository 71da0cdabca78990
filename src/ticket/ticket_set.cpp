#include "idforge/ticket/ticket_set.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "idforge/error.hpp"
#include "idforge/ticket/sequence_name.hpp"

namespace idforge::ticket {

void init_ticket_set(std::span<const std::unique_ptr<TicketServer>> servers, std::string_view name,
                     std::int64_t start) {
  check_sequence_name(name);
  const auto k = static_cast<std::int64_t>(servers.size());
  if (k < 1 || k > kMaxTicketServers)
    throw Error(errc::invalid_argument, "a ticket set needs 1.." +
                                            std::to_string(kMaxTicketServers) + " servers, not " +
                                            std::to_string(k));
  if (start < 1)
    throw Error(errc::invalid_argument, "ticket start " + std::to_string(start) + " must be >= 1");
  for (std::int64_t i = 0; i < k; ++i)
    servers[static_cast<std::size_t>(i)]->install(name, start + i, k);
}

ResizeReport resize_ticket_set(std::span<const std::unique_ptr<TicketServer>> servers,
                               std::string_view name, std::int64_t new_k) {
  check_sequence_name(name);
  const auto listed = static_cast<std::int64_t>(servers.size());
  if (new_k < 1 || new_k > listed || new_k > kMaxTicketServers)
    throw Error(errc::invalid_argument, "resize to " + std::to_string(new_k) +
                                            " servers needs 1 <= K <= " +
                                            std::to_string(std::min(listed, kMaxTicketServers)) +
                                            " (the number of servers listed)");
  ResizeReport rep;
  rep.new_k = new_k;
  rep.highest = std::numeric_limits<std::int64_t>::min();
  std::vector<bool> held(servers.size(), false);
  const auto abort_all = [&] {
    for (const auto& s : servers) s->abort();
  };
  // 1. Pause every current server and read how far it got. All of them must answer: a
  //    server we cannot read could hold the highest value.
  for (std::size_t i = 0; i < servers.size(); ++i) {
    try {
      if (auto st = servers[i]->lock_for_resize(name)) {
        held[i] = true;
        ++rep.old_k;
        rep.old_increments.push_back(st->increment);
        rep.highest = std::max(rep.highest, st->highest);
      }
    } catch (const Error& e) {
      abort_all();
      throw Error(e.code(),
                  "resize of ticket set '" + std::string(name) + "' changed nothing: server " +
                      std::to_string(i + 1) + " (" + servers[i]->describe() +
                      ") must answer so the highest value handed out is known: " + e.what());
    }
  }
  if (rep.old_k == 0) {
    abort_all();
    throw Error(errc::not_found, "no listed server holds ticket set '" + std::string(name) +
                                     "': create it with `idforge ticket init`");
  }
  // 2. New values start above the highest one, on the first value = 1 (mod new_k), so server
  //    i keeps the residue i + 1 as in Flickr's scheme.
  const std::int64_t above = std::max<std::int64_t>(rep.highest, 0) + 1;
  const std::int64_t r = (above - 1) % new_k;
  rep.first = r == 0 ? above : above + (new_k - r);
  try {
    for (std::int64_t i = 0; i < listed; ++i) {
      const auto idx = static_cast<std::size_t>(i);
      if (i < new_k)
        servers[idx]->reconfigure(name, rep.first + i, new_k);
      else if (held[idx])
        servers[idx]->retire(name);
    }
    // 3. Release: clients blocked meanwhile continue with the new step.
    for (const auto& s : servers) s->commit();
  } catch (const Error& e) {
    abort_all();
    throw Error(e.code(), "resize of ticket set '" + std::string(name) +
                              "' failed and was rolled back (on MariaDB, "
                              "tables already changed stay changed: run the resize again): " +
                              e.what());
  }
  return rep;
}

}  // namespace idforge::ticket
