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
  const coord::KeeperStatus s = gen_.keeper().status();
  const std::int64_t now_ms = clock_.now_ns() / 1'000'000;
  Readiness& r = *server_.readiness();
  if (s.released) {
    r.set_not_ready(fmt::format("node {} lease released", gen_.node()));
  } else if (s.lost) {
    r.set_not_ready(fmt::format("node {} lease lost at {}: {}", gen_.node(),
                                gen_.keeper().store_url(), s.last_error));
  } else if (s.fence_unix_ms <= now_ms) {
    r.set_not_ready(fmt::format("node {} lease not renewed at {}: {}", gen_.node(),
                                gen_.keeper().store_url(),
                                s.last_error.empty() ? "renewal pending" : s.last_error));
  } else if (const std::int64_t behind = clock_behind_ms(now_ms); behind > 0) {
    r.set_not_ready(fmt::format(
        "the clock is {} ms behind the last ID issued on node {} (Unix ms {}), more than the "
        "{} ms an ID waits for it: ID requests fail until it catches up",
        behind, gen_.node(), gen_.generator().last_unix_ms(),
        gen_.generator().policy().max_backward_wait_ms));
  } else if (!r.ready()) {
    r.set_ready();
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
