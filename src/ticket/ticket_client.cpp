#include "idforge/ticket/ticket_client.hpp"

#include <string>
#include <vector>

#include "idforge/error.hpp"
#include "idforge/ticket/sequence_name.hpp"

namespace idforge::ticket {

TicketClient::TicketClient(std::vector<std::unique_ptr<TicketServer>> servers, std::string name,
                           TicketClientOptions options, Clock& clock)
    : servers_(std::move(servers)), name_(std::move(name)), options_(options), clock_(clock) {
  check_sequence_name(name_);
  if (servers_.empty())
    throw Error(errc::invalid_argument, "a ticket client needs at least one server");
  if (options_.retry_after_ns < 0)
    throw Error(errc::invalid_argument,
                "retry_after_ns " + std::to_string(options_.retry_after_ns) + " must be >= 0");
  for (std::size_t i = 0; i < servers_.size(); ++i) slots_.push_back(std::make_unique<Slot>());
}

std::int64_t TicketClient::next() {
  const std::size_t n = servers_.size();
  const std::size_t start =
      static_cast<std::size_t>(rr_.fetch_add(1, std::memory_order_relaxed) % n);
  std::string reasons;
  errc common = errc::store_unreachable;
  bool first_failure = true;
  std::vector<bool> tried(n, false);
  // Two passes: first the servers not marked down; then, if none of those answered, the
  // marked ones too (the whole set may have come back before its retry time).
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = (start + k) % n;
      Slot& slot = *slots_[i];
      std::lock_guard lk(slot.mu);
      const bool down = slot.down_until_ns > clock_.now_ns();
      if (tried[i] || down != (pass == 1)) continue;
      tried[i] = true;
      try {
        const std::int64_t v = servers_[i]->next(name_);
        slot.down_until_ns = 0;
        ++slot.served;
        return v;
      } catch (const Error& e) {
        ++slot.failures;
        slot.last_error = e.what();
        slot.down_until_ns = clock_.now_ns() + options_.retry_after_ns;
        if (first_failure)
          common = e.code();
        else if (common != e.code())
          common = errc::store_unreachable;
        first_failure = false;
        reasons += "; ";
        reasons += e.what();
      }
    }
  }
  throw Error(common, "no ticket server answered for set '" + name_ + "'" + reasons);
}

std::vector<TicketServerStats> TicketClient::stats() const {
  std::vector<TicketServerStats> out;
  for (std::size_t i = 0; i < servers_.size(); ++i) {
    Slot& s = *slots_[i];
    std::lock_guard lk(s.mu);
    out.push_back({servers_[i]->describe(), s.served, s.failures, s.last_error});
  }
  return out;
}

}  // namespace idforge::ticket
