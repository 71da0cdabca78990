#include "idforge/server/lease_binding.hpp"

#include <fmt/format.h>

#include <vector>

#include "idforge/clock.hpp"
#include "idforge/server/snowflake_kind.hpp"

namespace idforge::server {

LeaseBinding::LeaseBinding(Server& server, coord::LeasedSnowflakeGenerator& gen,
                           std::chrono::milliseconds poll)
    : LeaseBinding(server, gen, server.clock(), poll) {}

LeaseBinding::LeaseBinding(Server& server, coord::LeasedSnowflakeGenerator& gen, Clock& clock,
                           std::chrono::milliseconds poll)
    : server_(server), gen_(gen), clock_(clock), poll_(poll) {
  add_snowflake_kind(server, gen.generator(),
                     [&gen](std::span<Snowflake> out) { gen.next_batch(out); });
  server.add_metrics_source([&gen](std::string& out) {
    const coord::KeeperStatus s = gen.keeper().status();
    out +=
        "# HELP idforge_lease_renewals_total Successful renewals of the node-ID lease.\n"
        "# TYPE idforge_lease_renewals_total counter\n";
    fmt::format_to(std::back_inserter(out), "idforge_lease_renewals_total {}\n", s.renewals);
    out +=
        "# HELP idforge_lease_failures_total Failed renewal attempts of the node-ID lease.\n"
        "# TYPE idforge_lease_failures_total counter\n";
    fmt::format_to(std::back_inserter(out), "idforge_lease_failures_total {}\n", s.failures);
    out +=
        "# HELP idforge_lease_held 1 while the lease is held and not lost.\n"
        "# TYPE idforge_lease_held gauge\n";
    fmt::format_to(std::back_inserter(out), "idforge_lease_held {}\n",
                   s.lost || s.released ? 0 : 1);
    out +=
        "# HELP idforge_lease_fence_unix_ms Time at which issuing stops unless the lease is "
        "renewed.\n"
        "# TYPE idforge_lease_fence_unix_ms gauge\n";
    fmt::format_to(std::back_inserter(out), "idforge_lease_fence_unix_ms {}\n", s.fence_unix_ms);
  });
  refresh();
  thread_ = std::thread([this] {
    std::unique_lock lock(mu_);
    while (!wake_.wait_for(lock, poll_, [this] { return stop_; })) {
      lock.unlock();
      refresh();
      lock.lock();
    }
  });
}

LeaseBinding::~LeaseBinding() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void LeaseBinding::refresh() {
  std::lock_guard guard(refresh_mu_);
  const coord::KeeperStatus s = gen_.keeper().status();
  const std::int64_t now_ms = clock_.now_ns() / 1'000'000;
  Readiness& r = *server_.readiness();
  State state = State::ready;
  std::string reason;
  if (s.released) {
    state = State::released;
    reason = fmt::format("node {} lease released", gen_.node());
  } else if (s.lost) {
    state = State::lost;
    reason = fmt::format("node {} lease lost at {}: {}", gen_.node(), gen_.keeper().store_url(),
                         s.last_error);
  } else if (s.fence_unix_ms <= now_ms) {
    state = State::fenced;
    reason =
        fmt::format("node {} lease not renewed at {}: {}", gen_.node(), gen_.keeper().store_url(),
                    s.last_error.empty() ? "renewal pending" : s.last_error);
  } else if (const std::int64_t behind = clock_behind_ms(now_ms); behind > 0) {
    state = State::clock_behind;
    reason = fmt::format(
        "the clock is {} ms behind the last ID issued on node {} (Unix ms {}), more than the "
        "{} ms an ID waits for it: ID requests fail until it catches up",
        behind, gen_.node(), gen_.generator().last_unix_ms(),
        gen_.generator().policy().max_backward_wait_ms);
  }
  if (state == State::ready) {
    if (!r.ready()) r.set_ready();
  } else {
    r.set_not_ready(reason);
  }
  log_changes(s, state, now_ms, reason);
}

void LeaseBinding::log_events_to(EventLog& log) {
  std::lock_guard guard(refresh_mu_);
  const coord::KeeperStatus s = gen_.keeper().status();
  failures_seen_ = s.failures;
  reacquired_seen_ = s.reacquired;
  const coord::Lease& a = gen_.keeper().acquired();
  log.write_always(
      "lease_acquired",
      fmt::format("node {} at {}{}", gen_.node(), gen_.keeper().store_url(),
                  a.high_water_unix_ms == coord::kNoMark
                      ? std::string(" (no earlier mark)")
                      : fmt::format(" (earlier mark Unix ms {})", a.high_water_unix_ms)));
  if (a.store_reset_unix_ms != coord::kNoMark)
    log.write_always("store_state_lost",
                     fmt::format("{} had lost its state (no generation record) at Unix ms {} "
                                 "while an earlier holder may still have been issuing: node {} "
                                 "issues only above Unix ms {}",
                                 gen_.keeper().store_url(), a.store_reset_unix_ms, gen_.node(),
                                 a.high_water_unix_ms));
  log_.store(&log);
}

// The refresh mutex held. Events once per cause are always written; a renewal failure
// repeats each retry and goes through the log's rate limit.
void LeaseBinding::log_changes(const coord::KeeperStatus& s, State state, std::int64_t now_ms,
                               const std::string& reason) {
  EventLog* log = log_.load();
  const State was = state_;
  state_ = state;
  if (!log) return;
  const auto node = gen_.node();
  const std::string url = gen_.keeper().store_url();
  if (s.reacquired > reacquired_seen_ && s.store_reset_unix_ms != coord::kNoMark)
    log->write_always("store_state_lost",
                      fmt::format("{} had lost its state (no generation record) at Unix ms {}: "
                                  "node {} issues only above every earlier holder's window",
                                  url, s.store_reset_unix_ms, node));
  if (s.reacquired > reacquired_seen_)
    log->write_always("lease_reacquired",
                      fmt::format("node {} taken again at {}{}; issuing resumes", node, url,
                                  s.lost_since_unix_ms ? fmt::format(" {} ms after it was lost",
                                                                     now_ms - s.lost_since_unix_ms)
                                                       : std::string()));
  if (s.failures > failures_seen_) {
    if (s.lost && was == State::lost)
      log->write("lease_reacquire_failed",
                 fmt::format("node {} at {}: {}; retrying", node, url, s.last_error));
    else if (!s.lost && !s.released)
      log->write(
          "lease_renewal_failed",
          s.fence_unix_ms > now_ms
              ? fmt::format("node {} at {}: {}; issuing stops in {} ms unless a renewal "
                            "succeeds",
                            node, url, s.last_error, s.fence_unix_ms - now_ms)
              : fmt::format("node {} at {}: {}; issuing is paused", node, url, s.last_error));
  }
  failures_seen_ = s.failures;
  reacquired_seen_ = s.reacquired;
  if (state == was) return;
  switch (state) {
    case State::lost:
      log->write_always("lease_lost",
                        reason + "; issuing stopped, and the keeper tries to take the node again");
      break;
    case State::fenced:
      log->write_always("lease_fenced", reason + "; issuing paused until a renewal succeeds");
      break;
    case State::clock_behind:
      log->write_always("clock_behind_mark", reason);
      break;
    case State::released:
      log->write_always("lease_released", reason);
      break;
    case State::ready:
      if (was == State::clock_behind)
        log->write_always(
            "clock_caught_up",
            fmt::format("node {}: the clock passed the last ID; issuing resumes", node));
      else if (was == State::fenced)
        log->write_always("lease_renewed",
                          fmt::format("node {} renewed at {}; issuing resumes", node, url));
      break;
  }
}

// How far the clock lies behind what the generator allows before it refuses (0: not
// behind that far). The allowance is the backward wait, the borrowing the policy permits
// and one tick (a used-up tick makes the last ID's tick run one ahead of the clock), so
// readiness only drops when every ID request would fail.
std::int64_t LeaseBinding::clock_behind_ms(std::int64_t now_ms) const noexcept {
  const SharedSnowflakeGenerator& g = gen_.generator();
  const std::int64_t last = g.last_unix_ms();
  if (last == kNoUnixMs || last <= now_ms) return 0;
  const SnowflakePolicy& p = g.policy();
  const std::int64_t allowed = p.max_backward_wait_ms + p.max_borrow_ms + g.layout().tick_ms();
  return last - now_ms > allowed ? last - now_ms : 0;
}

}  // namespace idforge::server
