#include "idforge/ticket/ticket_client.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "idforge/error.hpp"
#include "idforge/ticket/sequence_name.hpp"
#include "idforge/ticket/ticket_errc.hpp"

namespace idforge::ticket {
namespace {

// A fenced server is back as soon as its resize activates it: skip it only briefly.
constexpr std::int64_t kFencedSkipNs = 10'000'000;
// Failures in a row double the time a server is skipped, up to 2^5 times retry_after_ns.
constexpr int kMaxBackoffShift = 5;

// base << shift, saturating at the largest int64 (base >= 0).
std::int64_t shifted(std::int64_t base, int shift) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  return base > (kMax >> shift) ? kMax : base << shift;
}

// now + delta without overflow (delta >= 0).
std::int64_t later(std::int64_t now, std::int64_t delta) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  return now > kMax - delta ? kMax : now + delta;
}

}  // namespace

TicketClient::TicketClient(std::vector<std::unique_ptr<TicketServer>> servers, std::string name,
                           TicketClientOptions options, Clock& clock)
    : servers_(std::move(servers)), name_(std::move(name)), options_(options), clock_(clock) {
  check_sequence_name(name_);
  if (servers_.empty())
    throw Error(errc::invalid_argument, "a ticket client needs at least one server");
  if (options_.retry_after_ns < 0 || options_.fenced_wait_ns < 0 || options_.min_epoch < 0)
    throw Error(errc::invalid_argument,
                "retry_after_ns " + std::to_string(options_.retry_after_ns) + ", fenced_wait_ns " +
                    std::to_string(options_.fenced_wait_ns) + " and min_epoch " +
                    std::to_string(options_.min_epoch) + " must be >= 0");
  epoch_.store(options_.min_epoch, std::memory_order_relaxed);
  for (std::size_t i = 0; i < servers_.size(); ++i) slots_.push_back(std::make_unique<Slot>());
}

std::int64_t TicketClient::take(std::size_t i) {
  Slot& slot = *slots_[i];
  // Around an activation a good value can carry the epoch before (the epoch is read in the
  // statement's snapshot): ask once more before calling the server stale.
  for (int attempt = 0;; ++attempt) {
    const TicketValue v = servers_[i]->next(name_);
    slot.epoch = v.epoch;
    std::int64_t known = epoch_.load(std::memory_order_acquire);
    if (v.epoch >= known) {
      slot.stale = false;
      while (v.epoch > known && !epoch_.compare_exchange_weak(known, v.epoch)) {
      }
      return v.value;
    }
    if (attempt > 0) {
      slot.stale = true;
      throw Error(errc::fenced,
                  "ticket server " + servers_[i]->describe() + " answered for set '" + name_ +
                      "' from epoch " + std::to_string(v.epoch) + ", older than epoch " +
                      std::to_string(known) +
                      " seen from another member: its values are refused (a member dropped by "
                      "a resize while unreachable; `idforge ticket status` shows it)");
    }
  }
}

std::int64_t TicketClient::next() {
  bool any_fenced = false;
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::nanoseconds(options_.fenced_wait_ns);
  for (;;) {
    try {
      return round(&any_fenced);
    } catch (const Error&) {
      if (!any_fenced || std::chrono::steady_clock::now() >= until) throw;
    }
    // A resize between its last fence and its first activation: a few ms as a rule.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

std::int64_t TicketClient::round(bool* any_fenced) {
  *any_fenced = false;
  const std::size_t n = servers_.size();
  const std::size_t start =
      static_cast<std::size_t>(rr_.fetch_add(1, std::memory_order_relaxed) % n);
  std::string reasons;
  std::error_code common = ticket_errc::store_unreachable;
  bool first_failure = true;
  std::vector<char> tried(n, 0);
  // Pass 0: free servers not marked down. Pass 1: wait for a busy one not marked down.
  // Pass 2: the ones marked down too (the whole set may have come back before its time).
  for (int pass = 0; pass < 3; ++pass) {
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = (start + k) % n;
      if (tried[i]) continue;
      Slot& slot = *slots_[i];
      const bool down = slot.down_until_ns.load(std::memory_order_acquire) > clock_.now_ns();
      if (down != (pass == 2)) continue;
      std::unique_lock lk(slot.mu, std::try_to_lock);
      if (!lk.owns_lock()) {
        if (pass == 0) continue;
        lk.lock();
      }
      tried[i] = 1;
      try {
        const std::int64_t v = take(i);
        slot.down_until_ns.store(0, std::memory_order_release);
        slot.failing = 0;
        ++slot.served;
        return v;
      } catch (const Error& e) {
        ++slot.failures;
        slot.last_error = e.what();
        const bool fenced = e.code() == errc::fenced && !slot.stale;
        *any_fenced = *any_fenced || fenced;
        // A server that keeps failing (down, frozen) is asked less and less often: each
        // attempt may cost a timeout, which this client's callers wait for.
        const std::int64_t skip =
            fenced ? std::min<std::int64_t>(options_.retry_after_ns, kFencedSkipNs)
                   : shifted(options_.retry_after_ns, std::min(slot.failing, kMaxBackoffShift));
        if (!fenced && slot.failing < kMaxBackoffShift) ++slot.failing;
        slot.down_until_ns.store(later(clock_.now_ns(), skip), std::memory_order_release);
        if (first_failure)
          common = e.code();
        else if (common != e.code())
          common = ticket_errc::store_unreachable;
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
    out.push_back({servers_[i]->describe(), s.served, s.failures, s.epoch, s.last_error});
  }
  return out;
}

}  // namespace idforge::ticket
