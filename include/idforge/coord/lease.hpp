// Node-ID leases: a Snowflake node ID is only unique while no two live processes hold it.
// A LeaseStore hands out node IDs that fit a layout and remembers, per node ID, the highest
// time any holder may have issued (the high-water mark), so the next holder starts above it.
//
// Providers (see open_lease_store and docs/LEASES.md):
//   static:N | static:DC/WORKER      fixed from configuration; registered in a store with
//                                    state=DIR (a file lock) or register=URL, else unchecked
//   ordinal:HOSTNAME                 StatefulSet ordinal (order-api-7 -> worker 7), as static
//   file:DIR                         one flock()ed file per node ID; the kernel releases it
//   redis://HOST:PORT                SET NX PX, Lua compare-and-extend, compare-and-delete
//   etcd://HOST:PORT[,HOST:PORT...]  lease grant + create-if-absent txn + keep-alive
//
// A store is used by one LeaseKeeper at a time; its calls are thread-safe but blocking,
// each bounded by the store's timeout. A store belongs to the process that opened it: in
// a child forked afterwards every call refuses (LeaseFailure::rejected) and touches
// neither the parent's connection nor its lease.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "idforge/clock.hpp"
#include "idforge/coord/coord_errc.hpp"
#include "idforge/error.hpp"
#include "idforge/snowflake_layout.hpp"

namespace idforge::coord {

/// deadline_unix_ms of a lease that only ends when its process does (file, static).
inline constexpr std::int64_t kNoDeadline = std::numeric_limits<std::int64_t>::max();
/// high_water_unix_ms when no earlier holder left a mark: core's kNoUnixMs, so a store's mark
/// feeds SnowflakePolicy::issued_up_to_unix_ms as it is.
inline constexpr std::int64_t kNoMark = kNoUnixMs;

/// A node ID held by this process.
struct Lease {
  std::uint64_t node = 0;        ///< datacenter and worker together, as the layout packs them
  std::uint64_t datacenter = 0;  ///< 0 for a layout without a datacenter split
  std::uint64_t worker = 0;      ///< the node's low worker bits
  /// Local-clock Unix ms from which the store may give the node ID to someone else.
  std::int64_t deadline_unix_ms = kNoDeadline;
  /// Highest Unix ms any earlier holder may have issued (the stored mark); kNoMark if none.
  std::int64_t high_water_unix_ms = kNoMark;
  std::int64_t since_unix_ms = 0;  ///< when this holder acquired it
  std::string holder;              ///< this holder's identity, "host:pid:nonce"
  std::string token;               ///< the store's proof of ownership (value, lease ID, ...)
  /// The store's generation record as this holder found it: a renewal that finds the record
  /// gone or changed (FLUSHALL, a restart without persistence, a wiped etcd, the folder
  /// deleted) reports the lease lost. "" for stores without one (static: alone).
  std::string generation;
  /// When the store's state may have been lost under live holders: kNoMark, unless the
  /// generation record was created anew while an earlier holder could still be issuing (a
  /// beacon of one was seen for a file: folder; always for Redis and etcd, which cannot
  /// tell). LeaseKeeper then issues nothing until every window an earlier holder could have
  /// reserved from that time has passed (docs/LEASES.md, "A store that lost its state").
  std::int64_t store_reset_unix_ms = kNoMark;
};

/// One row of LeaseStore::list(): who holds a node ID.
struct HolderInfo {
  std::uint64_t node = 0;
  std::uint64_t datacenter = 0;
  std::uint64_t worker = 0;
  std::string holder;  ///< "host:pid:nonce"
  std::int64_t pid = 0;
  std::string host;
  std::int64_t since_unix_ms = 0;
  std::int64_t high_water_unix_ms = kNoMark;  ///< mark stored for this node ID
  std::int64_t ttl_left_ms = -1;              ///< time until the store frees it; -1: no expiry
};

/// Why a lease operation failed; LeaseError::reason().
enum class LeaseFailure : std::uint8_t {
  unreachable,  ///< the store did not answer within its timeout (coord_errc::store_unreachable)
  space_full,   ///< every node ID in the range is held (coord_errc::lease_error)
  lost,         ///< the store gave the node ID away, or the lease expired (coord_errc::lease_error)
  fenced,       ///< renewals failing; issuing paused until one succeeds (errc::fenced)
  rejected,     ///< the store answered with an error or the configuration is wrong
  held,         ///< a fixed node ID is held by another live process (coord_errc::lease_error)
  cancelled,    ///< start-up was asked to stop before issuing (coord_errc::lease_error)
};

/// Words for a LeaseFailure ("store unreachable", "node-ID space full", ...).
const char* to_string(LeaseFailure reason) noexcept;

/// A failed lease operation, naming the store (its URL) and the reason.
class LeaseError : public Error {
 public:
  /// code follows the reason: store_unreachable, fenced or lease_error.
  LeaseError(LeaseFailure reason, std::string store, const std::string& detail);
  LeaseFailure reason() const noexcept { return reason_; }
  /// The store's URL as given.
  const std::string& store() const noexcept { return store_; }

 private:
  LeaseFailure reason_;
  std::string store_;
};

/// Hands out node IDs and keeps their high-water marks. Implementations: see the top.
class LeaseStore {
 public:
  virtual ~LeaseStore() = default;
  /// The URL this store was opened with, for messages.
  virtual const std::string& url() const noexcept = 0;
  /// How long a lease lives without renewal, in ms; a keeper renews at a third of it. For
  /// stores whose leases do not expire (file, static) it sets the mark-reservation pace.
  virtual std::int64_t ttl_ms() const noexcept = 0;
  /// Takes a free node ID that fits layout (and the store's datacenter/range settings).
  /// Throws LeaseError: unreachable, space_full, rejected.
  virtual Lease acquire(const Layout& layout) = 0;
  /// Takes exactly node (a node ID fixed by configuration), so that a node ID configured
  /// twice is refused instead of issuing twice. Throws LeaseError: held (naming the holder),
  /// unreachable, rejected (node does not fit the layout or the store's range).
  virtual Lease acquire_node(const Layout& layout, std::uint64_t node) = 0;
  /// Extends the lease (lease.deadline_unix_ms moves on) and stores mark_unix_ms as the
  /// node's high-water mark if it is higher than the stored one. On return the mark is
  /// durable (a power loss keeps it) and the lease was still this holder's after it was
  /// stored, so the holder may issue up to it.
  /// Throws LeaseError: lost (someone else holds it, it expired, or its key or lock file was
  /// deleted or replaced by hand), unreachable.
  virtual void renew(Lease& lease, std::int64_t mark_unix_ms) = 0;
  /// Stores mark_unix_ms as the mark (unless it is kNoMark) and frees the node ID.
  /// A lease already lost is left alone. Throws LeaseError: unreachable.
  virtual void release(Lease& lease, std::int64_t mark_unix_ms) = 0;
  /// Who holds which node ID in the range this store hands out for layout.
  virtual std::vector<HolderInfo> list(const Layout& layout) = 0;
  /// Checks, without contacting the store, that it could ever lease a node ID of layout
  /// (node: exactly that one, as acquire_node): dc= fits the layout, a static:/ordinal: node
  /// fits it, a fixed node lies in the store's range. Throws LeaseError(rejected) naming the
  /// value and the rule, as acquire would; a store that is down passes. For start-up checks
  /// that must refuse a configuration that can never work, not retry it.
  virtual void check(const Layout& layout, std::optional<std::uint64_t> node) const = 0;
  /// Creates the store's generation record (docs/LEASES.md, "A store that lost its state")
  /// as a fresh store's: the caller says no holder of an earlier state can still be issuing,
  /// so the first holder need not wait. Returns false, changing nothing, if a record exists
  /// (or the store keeps none: static: without state= or register=). For provisioning a new
  /// store (`idforge lease init`); never after a flush or a wipe with holders still running.
  /// Throws LeaseError: unreachable, rejected.
  virtual bool initialize() = 0;
};

/// Opens a store from a URL (see the top of this file). Query parameters, where they apply:
///   ttl=MS       lease lifetime (redis/etcd default 10000, file/static 3000)
///   timeout=MS   bound on connecting and on each request (default 2000)
///   dc=D         hand out only workers of datacenter D
///   nodes=N      consider only the first N node IDs of the range (default 1024)
///   prefix=P     key prefix (redis "idforge:lease:", etcd "/idforge/lease/")
///   offset=K     ordinal: worker = ordinal + K
///   state=DIR    static/ordinal: keep the high-water mark in DIR across restarts
/// Throws ParseError for a malformed URL and Error(errc::invalid_argument) for a bad value.
/// Opening does not contact the store; acquire() does.
std::unique_ptr<LeaseStore> open_lease_store(std::string_view url,
                                             Clock& clock = SystemClock::instance());

}  // namespace idforge::coord
