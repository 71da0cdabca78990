#include "idforge/server/lease_binding.hpp"

#include <fmt/format.h>

#include <vector>

#include "idforge/clock.hpp"
#include "idforge/server/snowflake_kind.hpp"

namespace idforge::server {

LeaseBinding::LeaseBinding(Server& server, coord::SharedLeasedSnowflakeGenerator& gen,
                           std::chrono::milliseconds poll)
    : LeaseBinding(server, gen, server.clock(), poll) {}

LeaseBinding::LeaseBinding(Server& server, coord::SharedLeasedSnowflakeGenerator& gen, Clock& clock,
                           std::chrono::milliseconds poll)
    : LeaseBinding(server, gen.generator().layout(), clock, poll) {
  attach(gen);
}

LeaseBinding::LeaseBinding(Server& server, const Layout& layout, Clock& clock,
                           std::chrono::milliseconds poll)
    : server_(server), clock_(clock), poll_(poll), runs_out_ms_(describe(layout).time_runs_out_ms) {
  // Registered now, before the server runs; they look the generator up on each use, and
  // the kind is never asked before attach() (readiness stays down until then).
  add_snowflake_kind(
      server, layout,
      [this]() -> const SharedSnowflakeGenerator* {
        coord::SharedLeasedSnowflakeGenerator* g = gen_ptr_.load(std::memory_order_acquire);
        return g ? &g->generator() : nullptr;
      },
      [this](std::span<Snowflake> out) {
        coord::SharedLeasedSnowflakeGenerator* g = gen_ptr_.load(std::memory_order_acquire);
        if (!g) throw Error(errc::fenced, "no node ID yet: start-up is still taking one");
        try {
          g->next_batch(out);
        } catch (const Error& e) {
          // Its last tick used up is the time field's end too, before that tick's end time.
          if (e.code() == errc::time_exhausted) exhausted_seen_ = true;
          // The generator refused (fenced, lost, clock far behind): readiness follows at
          // once, not at the next poll, so /readyz is not 200 while IDs fail. On the poll
          // thread: this one's clock may be bounded for the request (BoundedClock).
          refresh_soon();
          throw;
        }
      },
      "node from the lease");
  server.add_metrics_source([this](std::string& out) {
    coord::SharedLeasedSnowflakeGenerator* g = gen_ptr_.load(std::memory_order_acquire);
    if (!g) return;
    const coord::KeeperStatus s = g->keeper().status();
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
}

void LeaseBinding::refresh_soon() {
  {
    std::lock_guard lock(mu_);
    refresh_now_ = true;
  }
  wake_.notify_all();
}

void LeaseBinding::waiting(std::string cause, std::string reason) {
  server_.readiness()->set_not_ready(std::move(cause), std::move(reason));
}

void LeaseBinding::attach(coord::SharedLeasedSnowflakeGenerator& gen) {
  gen_ptr_.store(&gen, std::memory_order_release);
  refresh();
  thread_ = std::thread([this] {
    std::unique_lock lock(mu_);
    while (!stop_) {
      wake_.wait_for(lock, poll_, [this] { return stop_ || refresh_now_; });
      if (stop_) break;
      refresh_now_ = false;
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
  if (thread_.joinable()) thread_.join();
  if (replacing_.joinable()) replacing_.join();
  // owned_ goes after the threads: each generator it made releases its node on the way.
}

void LeaseBinding::replace_lost_node_with(std::function<Replacement()> make) {
  std::lock_guard guard(refresh_mu_);
  make_replacement_ = std::move(make);
}

void LeaseBinding::maybe_replace(const coord::KeeperStatus& s, std::int64_t now_ms) {
  if (!make_replacement_ || !s.lost || s.released || s.lost_since_unix_ms == 0) return;
  if (now_ms - s.lost_since_unix_ms < gen().keeper().ttl_ms() || now_ms < next_replace_ms_) return;
  if (replacing_busy_.exchange(true)) return;
  if (replacing_.joinable()) replacing_.join();  // the last attempt's thread, done
  replacing_ = std::thread([this, lost = &gen()] { run_replacement(lost); });
}

void LeaseBinding::run_replacement(coord::SharedLeasedSnowflakeGenerator* lost) {
  const std::uint64_t old_node = lost->node();
  std::string failure;
  Replacement r;
  try {
    r = make_replacement_();
  } catch (const std::exception& e) {
    failure = e.what();
  } catch (...) {  // nothing thrown here may end the process: the old node stays lost
    failure = "an error of unknown type";
  }
  {
    std::lock_guard guard(refresh_mu_);
    EventLog* log = log_.load();
    const std::int64_t now_ms = clock_.now_ns() / 1'000'000;
    if (!r.gen) {
      next_replace_ms_ = now_ms + lost->keeper().ttl_ms();
      if (log)
        log->write("lease_replace_failed",
                   fmt::format("node {} stays lost, and no other node ID could be taken: {}; "
                               "trying again in {} ms",
                               old_node, failure, lost->keeper().ttl_ms()));
    } else {
      coord::SharedLeasedSnowflakeGenerator* fresh = r.gen.get();
      {
        std::lock_guard own(owned_mu_);
        owned_.push_back(std::move(r));
      }
      gen_ptr_.store(fresh, std::memory_order_release);
      const coord::KeeperStatus s = fresh->keeper().status();
      failures_seen_ = s.failures;
      reacquired_seen_ = s.reacquired;
      if (log)
        log->write_always(
            "lease_replaced",
            fmt::format("node {} was lost to another holder for over one TTL; took node {} at "
                        "{} and issues from it",
                        old_node, fresh->node(), fresh->keeper().store_url()));
    }
  }
  try {
    if (gen_ptr_.load() != lost) lost->release();  // fenced already: it issues nothing more
  } catch (const std::exception&) {  // its lease is lost: the store has nothing to be told
  }
  replacing_busy_ = false;
}

void LeaseBinding::refresh() {
  std::lock_guard guard(refresh_mu_);
  const coord::KeeperStatus s = gen().keeper().status();
  const std::int64_t now_ms = clock_.now_ns() / 1'000'000;
  Readiness& r = *server_.readiness();
  State state = State::ready;
  std::string reason;
  const Layout& layout = gen().generator().layout();
  if (now_ms >= runs_out_ms_ || exhausted_seen_) {
    // Permanent: no renewal or wait brings it back; a new layout (a later epoch, a wider
    // time field) with a fresh lease prefix does.
    state = State::exhausted;
    reason = fmt::format(
        "the layout's {}-bit time field has no tick left (the last one ends at Unix ms {}{}): "
        "node {} can issue no more Snowflakes; start with a layout whose epoch is later or "
        "whose time field is wider",
        layout.time_bits(), runs_out_ms_,
        now_ms < runs_out_ms_ ? ", and its sequence numbers are used up" : "", gen().node());
  } else if (now_ms < layout.epoch_ms()) {
    state = State::before_epoch;
    reason = fmt::format(
        "the clock reads Unix ms {}, before the layout's epoch (Unix ms {}): node {} can issue "
        "nothing until it passes it",
        now_ms, layout.epoch_ms(), gen().node());
  } else if (s.released) {
    state = State::released;
    reason = fmt::format("node {} lease released", gen().node());
  } else if (s.lost) {
    state = State::lost;
    reason = fmt::format("node {} lease lost at {}: {}", gen().node(), gen().keeper().store_url(),
                         s.last_error);
  } else if (s.fence_unix_ms <= now_ms) {
    state = State::fenced;
    reason =
        fmt::format("node {} lease not renewed at {}: {}", gen().node(), gen().keeper().store_url(),
                    s.last_error.empty() ? "renewal pending" : s.last_error);
  } else if (const std::int64_t behind = clock_behind_ms(now_ms); behind > 0) {
    state = State::clock_behind;
    reason = fmt::format(
        "the clock is {} ms behind the last ID issued on node {} (Unix ms {}), more than the "
        "{} ms an ID waits for it: ID requests fail until it catches up",
        behind, gen().node(), gen().generator().last_unix_ms(),
        gen().generator().policy().max_backward_wait_ms);
  }
  if (state == State::ready) {
    if (!r.ready()) r.set_ready();
  } else {
    r.set_not_ready(cause_of(state), reason);
  }
  log_changes(s, state, now_ms, reason);
  if (state == State::lost) maybe_replace(s, now_ms);
}

const char* LeaseBinding::cause_of(State state) noexcept {
  switch (state) {
    case State::ready:
      return "";
    case State::released:
      return "lease-released";
    case State::lost:
      return "lease-lost";
    case State::fenced:
      return "lease-fenced";
    case State::clock_behind:
      return "clock-behind";
    case State::exhausted:
      return "time-exhausted";
    case State::before_epoch:
      return "clock-before-epoch";
  }
  return "not-ready";
}

void LeaseBinding::log_events_to(EventLog& log) {
  std::lock_guard guard(refresh_mu_);
  const coord::KeeperStatus s = gen().keeper().status();
  failures_seen_ = s.failures;
  reacquired_seen_ = s.reacquired;
  const coord::Lease& a = gen().keeper().acquired();
  log.write_always(
      "lease_acquired",
      fmt::format("node {} at {}{}", gen().node(), gen().keeper().store_url(),
                  a.high_water_unix_ms == coord::kNoMark
                      ? std::string(" (no earlier mark)")
                      : fmt::format(" (earlier mark Unix ms {})", a.high_water_unix_ms)));
  if (a.store_reset_unix_ms != coord::kNoMark)
    log.write_always("store_state_lost",
                     fmt::format("{} had lost its state (no generation record) at Unix ms {} "
                                 "while an earlier holder may still have been issuing: node {} "
                                 "issues only above Unix ms {}",
                                 gen().keeper().store_url(), a.store_reset_unix_ms, gen().node(),
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
  const auto node = gen().node();
  const std::string url = gen().keeper().store_url();
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
    case State::exhausted:
      log->write_always("time_exhausted", reason);
      break;
    case State::before_epoch:
      log->write_always("clock_before_epoch", reason);
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
  const SharedSnowflakeGenerator& g = gen().generator();
  const std::int64_t last = g.last_unix_ms();
  if (last == kNoUnixMs || last <= now_ms) return 0;
  const SnowflakePolicy& p = g.policy();
  const std::int64_t allowed = p.max_backward_wait_ms + p.max_borrow_ms + g.layout().tick_ms();
  return last - now_ms > allowed ? last - now_ms : 0;
}

}  // namespace idforge::server
