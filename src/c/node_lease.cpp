// idforge_node_lease_*: a node-ID lease without its renewal thread. A server whose processes
// must not run a thread of this library (PostgreSQL: signal handling, memory contexts and
// error handling assume one thread per process) drives renewal from its own worker loop; the
// lease rules (fence, mark, TTL, store checks) stay LeaseKeeper's.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "c_support.hpp"
#include "idforge/clock.hpp"
#include "idforge/coord/lease.hpp"
#include "idforge/coord/lease_keeper.hpp"
#include "idforge/coord/lease_url.hpp"
#include "idforge/snowflake_generator.hpp"
#include "node_registry.hpp"

struct idforge_node_lease {
  idforge::Layout layout;
  std::unique_ptr<idforge::coord::LeaseKeeper> keeper;
  // The node in this process's registry, as a Snowflake handle's: a lease and a handle (or
  // two leases from two folders) on one node in one process would issue the same IDs.
  idforge::c::NodeClaim claim;
};

namespace idforge::c {
namespace {

void fill(const coord::LeaseKeeper& keeper, idforge_node_lease_info* info) {
  const coord::KeeperStatus s = keeper.status();
  info->node = keeper.acquired().node;
  info->high_water_ms = keeper.acquired().high_water_unix_ms;
  info->fence_ms = s.fence_unix_ms;
  info->ttl_ms = keeper.ttl_ms();
  // As the keeper's own default: a twelfth of the TTL, at least 10 ms.
  info->retry_ms = std::max<std::int64_t>(10, keeper.ttl_ms() / 12);
  info->reserve_ms = keeper.reserve_window_ms();
  info->lost = s.lost ? 1 : 0;
}

std::optional<std::uint64_t> fixed(int64_t node) {
  if (node < 0) return std::nullopt;
  return static_cast<std::uint64_t>(node);
}

}  // namespace
}  // namespace idforge::c

using namespace idforge;
using idforge::c::guard;
using idforge::c::null_argument;

extern "C" {

idforge_status idforge_node_lease_check(const char* store, const char* layout, int64_t node) {
  if (!store) return null_argument("idforge_node_lease_check", "store");
  return guard([&] {
    const Layout l = c::layout_or_default(layout);
    const coord::LeaseUrl parsed = coord::parse_lease_url(store);
    const auto opened = coord::open_lease_store(store);
    coord::require_node_lock(parsed);
    opened->check(l, c::fixed(node));
    return IDFORGE_OK;
  });
}

idforge_status idforge_node_lease_acquire(const char* store, const char* layout, int64_t node,
                                          idforge_node_lease** out, idforge_node_lease_info* info) {
  if (!store) return null_argument("idforge_node_lease_acquire", "store");
  if (!out) return null_argument("idforge_node_lease_acquire", "out");
  if (!info) return null_argument("idforge_node_lease_acquire", "info");
  *out = nullptr;
  return guard([&] {
    auto lease = std::make_unique<idforge_node_lease>(
        idforge_node_lease{c::layout_or_default(layout), {}, {}});
    coord::KeeperOptions options;
    options.renew_in_background = false;
    options.node = c::fixed(node);
    lease->keeper = std::make_unique<coord::LeaseKeeper>(
        coord::open_lease_store(store), lease->layout, SystemClock::instance(), options);
    lease->keeper->start();
    // Refused here, the keeper's destructor gives the node back to the store.
    lease->claim = c::NodeClaim::take(lease->layout, lease->keeper->acquired().node, store);
    c::fill(*lease->keeper, info);
    *out = lease.release();
    return IDFORGE_OK;
  });
}

idforge_status idforge_node_lease_renew(idforge_node_lease* lease, idforge_node_lease_info* info) {
  if (!lease) return null_argument("idforge_node_lease_renew", "lease");
  if (!info) return null_argument("idforge_node_lease_renew", "info");
  return guard([&] {
    const bool ok = lease->keeper->renew();
    c::fill(*lease->keeper, info);
    if (ok) return IDFORGE_OK;
    return c::fail(info->lost ? IDFORGE_E_LEASE_ERROR : IDFORGE_E_STORE_UNREACHABLE,
                   lease->keeper->status().last_error);
  });
}

idforge_status idforge_node_lease_release(idforge_node_lease* lease, int64_t last_unix_ms) {
  if (!lease) return IDFORGE_OK;
  std::unique_ptr<idforge_node_lease> owned(lease);
  const idforge_status s = guard([&] {
    // The keeper stores its attached generator's last claimed tick as the mark (the exact
    // use, so a restart need not wait out the reservation). The caller's generator lives in
    // its own memory, not here: a stand-in resumed at that tick reports the same time.
    // Nothing issued under this lease (IDFORGE_NO_UNIX_MS): the earlier holders' mark stays.
    SnowflakePolicy policy;
    policy.issued_up_to_unix_ms = last_unix_ms;
    SharedSnowflakeGenerator stand_in(owned->layout, owned->keeper->acquired().node, policy);
    owned->keeper->attach(&stand_in);
    owned->keeper->release();
    owned->claim.end(last_unix_ms);
    return IDFORGE_OK;
  });
  try {
    owned.reset();  // the keeper's destructor swallows errors (the TTL frees the node)
  } catch (...) {
  }
  return s;
}

}  // extern "C"
