// The C++ side of idforge_pg_lease.h: a LeaseKeeper without its renewal thread. The worker
// drives renew() from its own loop, so no thread ever runs inside a PostgreSQL process
// (its signal handling, memory contexts and error handling assume one thread).
#include "idforge_pg_lease.h"

#include "put_error.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "idforge/clock.hpp"
#include "idforge/coord/lease.hpp"
#include "idforge/coord/lease_keeper.hpp"
#include "idforge/coord/lease_url.hpp"
#include "idforge/error.hpp"
#include "idforge/snowflake_generator.hpp"
#include "idforge/snowflake_layout.hpp"

struct idf_lease {
  idforge::Layout layout;
  std::unique_ptr<idforge::coord::LeaseKeeper> keeper;
};

namespace {

using idforge_pg::put_error;

void fill(const idforge::coord::LeaseKeeper& keeper, idf_lease_info* info) {
  const idforge::coord::KeeperStatus s = keeper.status();
  info->node = keeper.acquired().node;
  info->high_water_ms = keeper.acquired().high_water_unix_ms;
  info->fence_ms = s.fence_unix_ms;
  info->ttl_ms = keeper.ttl_ms();
  // As the keeper's own default: a twelfth of the TTL, at least 10 ms.
  info->retry_ms = std::max<std::int64_t>(10, keeper.ttl_ms() / 12);
  info->reserve_ms = keeper.reserve_window_ms();
  info->lost = s.lost ? 1 : 0;
}

}  // namespace

extern "C" {

int idf_lease_check(const char* url, const char* spec, int64_t fixed_node, char* err) {
  try {
    const idforge::Layout layout = idforge::parse_layout(spec);
    const idforge::coord::LeaseUrl parsed = idforge::coord::parse_lease_url(url);
    const auto store = idforge::coord::open_lease_store(url);
    // The CLI gives these a lock folder of its own (.data/leases); a server has no such
    // folder shared with its peers, so it asks for one rather than locking nothing.
    if ((parsed.scheme == "static" || parsed.scheme == "ordinal") && !parsed.param("state") &&
        !parsed.param("register"))
      throw idforge::Error(
          idforge::errc::invalid_argument,
          "a " + parsed.scheme +
              ": store with neither state=DIR nor register=URL locks nothing: two clusters "
              "given the same node would issue the same IDs unseen. Add ?register=URL (a "
              "file:, redis:// or etcd:// store every holder shares, which registers the node) "
              "or ?state=DIR (a folder every holder on this host shares)");
    store->check(layout, fixed_node >= 0
                             ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(fixed_node))
                             : std::nullopt);
    return 0;
  } catch (const std::exception& e) {
    put_error(err, e.what());
  } catch (...) {
    put_error(err, "unknown error in idforge");
  }
  return -1;
}

idf_lease* idf_lease_acquire(const char* url, const char* spec, int64_t fixed_node,
                             idf_lease_info* info, char* err) {
  try {
    auto lease = std::make_unique<idf_lease>(idf_lease{idforge::parse_layout(spec), nullptr});
    idforge::coord::KeeperOptions options;
    options.renew_in_background = false;
    if (fixed_node >= 0) options.node = static_cast<std::uint64_t>(fixed_node);
    lease->keeper = std::make_unique<idforge::coord::LeaseKeeper>(
        idforge::coord::open_lease_store(url), lease->layout, idforge::SystemClock::instance(),
        options);
    lease->keeper->start();
    fill(*lease->keeper, info);
    return lease.release();
  } catch (const std::exception& e) {
    put_error(err, e.what());
  } catch (...) {
    put_error(err, "unknown error in idforge");
  }
  return nullptr;
}

int idf_lease_renew(idf_lease* lease, idf_lease_info* info, char* err) {
  try {
    const bool ok = lease->keeper->renew();
    fill(*lease->keeper, info);
    if (!ok) put_error(err, lease->keeper->status().last_error);
    return ok ? 0 : -1;
  } catch (const std::exception& e) {
    put_error(err, e.what());
  } catch (...) {
    put_error(err, "unknown error in idforge");
  }
  return -1;
}

int idf_lease_release(idf_lease* lease, int64_t last_unix_ms, char* err) {
  std::unique_ptr<idf_lease> owned(lease);
  int rc = -1;
  try {
    // The keeper stores its attached generator's last claimed tick as the mark (the exact
    // use, so a restart need not wait out the reservation). The backends' generator lives in
    // shared memory, not here: a stand-in resumed at that tick reports the same time.
    // Nothing issued under this lease (IDF_NO_UNIX_MS): the earlier holders' mark stays.
    idforge::SnowflakePolicy policy;
    policy.issued_up_to_unix_ms = last_unix_ms;
    idforge::SharedSnowflakeGenerator stand_in(owned->layout, owned->keeper->acquired().node,
                                               policy);
    owned->keeper->attach(&stand_in);
    owned->keeper->release();
    rc = 0;
  } catch (const std::exception& e) {
    put_error(err, e.what());
  } catch (...) {
    put_error(err, "unknown error in idforge");
  }
  try {
    owned.reset();  // the keeper's destructor swallows errors (the TTL frees the node ID)
  } catch (...) {
  }
  return rc;
}

}  // extern "C"
