// Store generations: how a lease store notices that it lost its state.
//
// A Redis FLUSHALL, a Redis restart without persistence, a wiped etcd data directory or an
// `rm -rf` of a file store's folder all forget every lease and every mark at once, while
// the holders of the old state may still issue up to their fences (a third of the TTL, or
// a reservation window, away). A newcomer that took a node at once would issue the same
// IDs. So every store keeps one generation record (a random ID, created with the first
// lease): each holder remembers the one it found and fails its next renewal when the
// record is gone or changed, and the holder that creates it treats the store's state as
// lost from that moment unless it can tell that no earlier holder can still be live
// (Lease::store_reset_unix_ms; the keeper then waits out the longest window an earlier
// holder could have reserved before it issues).
//
// Telling "fresh" from "lost" is possible on one machine only: a file store's holders bind
// an abstract Unix socket named for the folder (the kernel drops it with the process, and
// `rm -rf` cannot touch it). Redis and etcd cannot say whether a holder of an earlier state
// still issues (it need not be connected), so a record they create anew always counts as a
// loss, and a new store is provisioned with `idforge lease init` to skip the wait. Redis
// holders name their connections (CLIENT SETNAME) so that init can refuse while one is
// connected.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace idforge::coord::detail {

/// A fresh generation ID: 32 lower-case hex digits from the system's random source.
std::string new_generation_id();

/// A new record as Redis and etcd keep it: a fresh ID and the reset time, "ID RESET-MS", or
/// "ID none" for kNoMark (no earlier holder can be live).
std::string new_generation_record(std::int64_t reset_ms);
/// The reset time of such a record (kNoMark for "none"). Throws LeaseError(rejected) naming
/// where it was read (a key), the text and the rule.
std::int64_t generation_reset(std::string_view record, const std::string& where,
                              const std::string& store);

/// The tag a store's holders carry for key (a folder's absolute path, a Redis prefix):
/// "idforge-presence-" and 16 hex digits of key's FNV-1a hash (the tag must be short and
/// free of spaces for CLIENT SETNAME and /proc/net/unix).
std::string presence_tag(std::string_view key);

/// An abstract Unix socket "@<presence_tag(key)>/<pid>/<nonce>", bound while the object
/// lives (O_CLOEXEC: a program exec'd by the holder does not carry it). The kernel removes
/// it with the last descriptor, so a killed holder leaves none behind.
class PresenceBeacon {
 public:
  /// Binds the socket. A socket that cannot be made leaves the beacon unbound (ok() false):
  /// newcomers then cannot see this holder, and wait as for a store whose state was lost.
  explicit PresenceBeacon(std::string_view key);
  ~PresenceBeacon();
  PresenceBeacon(const PresenceBeacon&) = delete;
  PresenceBeacon& operator=(const PresenceBeacon&) = delete;
  bool ok() const noexcept { return fd_ >= 0; }
  /// The bound name without the leading NUL.
  const std::string& name() const noexcept { return name_; }

 private:
  int fd_ = -1;
  std::string name_;
};

/// Whether a beacon for key other than own (nullptr: none) is bound in this network
/// namespace. True when /proc/net/unix cannot be read: unknown counts as present.
bool beacon_seen(std::string_view key, const PresenceBeacon* own);

}  // namespace idforge::coord::detail
