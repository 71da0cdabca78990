// Pieces every lease store shares: the node range it hands out, the holder's identity and
// its JSON form, and the high-water-mark file. Internal to idforge::coord.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "idforge/clock.hpp"
#include "idforge/coord/lease.hpp"
#include "idforge/coord/lease_url.hpp"
#include "idforge/detail/explore.hpp"
#include "idforge/detail/fork_guard.hpp"
#include "idforge/snowflake_layout.hpp"

namespace idforge::coord::detail {

/// The mutex a store holds across its requests (the explorer sees a thread wait for it).
using StoreMutex = idforge::detail::ExplorableMutex;

/// Default cap on how many node IDs a store scans (nodes=N overrides it).
inline constexpr std::int64_t kDefaultNodeCap = 1024;

/// The node IDs a store may hand out: [first, first + count).
struct NodeRange {
  std::uint64_t first = 0;
  std::uint64_t count = 0;
};

/// Settings every store reads from its URL: ttl, timeout, dc, nodes.
struct CommonSettings {
  std::int64_t ttl_ms = 0;
  std::int64_t timeout_ms = 2000;
  std::int64_t dc = -1;  ///< -1: any datacenter
  std::int64_t node_cap = kDefaultNodeCap;
};

/// Reads ttl (default_ttl_ms if absent), timeout, dc and nodes from url.
CommonSettings common_settings(const LeaseUrl& url, std::int64_t default_ttl_ms);

/// Settings of a store reached over the network (Redis, etcd): the request timeout fits the
/// TTL. A holder renews every fifth of the TTL; a request that may wait longer than a third could
/// see the lease run out while it waits for one member, with no time left to try another (a
/// 2 s timeout under a 3 s TTL lost leases to 2.1 s partitions). An absent timeout is
/// min(1000, ttl / 8); one given above ttl / 3 is refused naming both and the rule.
CommonSettings network_settings(const LeaseUrl& url, std::int64_t default_ttl_ms);

/// How long a network store waits for a TCP connect: the request timeout, at most 250 ms.
/// A connect is one round trip inside a cluster, and a SYN dropped by a partition is sent
/// again only after a second, past the whole timeout: a connect begun just before the
/// partition heals would fail anyway, so a short one leaves time for the next attempt (the
/// next etcd member, the next renewal).
std::int64_t connect_timeout_ms(std::int64_t timeout_ms);

/// The range for layout: all workers of datacenter dc (or all node IDs), capped.
/// Throws LeaseError(rejected) if dc does not fit the layout.
NodeRange node_range(const CommonSettings& s, const Layout& layout, const std::string& store);

/// Checks a node ID fixed by configuration against layout and the store's dc= setting.
/// Throws LeaseError(rejected) naming the node and the rule.
void check_fixed_node(const Layout& layout, std::uint64_t node, const CommonSettings& s,
                      const std::string& store);

/// Fills node, datacenter and worker of a lease or holder row from a node number.
template <class T>
void set_node(T& row, const Layout& layout, std::uint64_t node) {
  row.node = node;
  row.worker = node & ((std::uint64_t{1} << layout.worker_bits()) - 1);
  row.datacenter = layout.datacenter_bits() == 0 ? 0 : node >> layout.worker_bits();
}

/// This machine's host name.
std::string host_name();
/// A fresh holder identity "host:pid:nonce" (the nonce tells two leases of one process apart).
std::string new_holder_id();
/// The JSON a store keeps beside a held node ID: holder, pid, host, since_ms.
std::string holder_json(const Lease& lease);
/// Reads holder_json() output into row (fields it lacks stay as they are).
void read_holder_json(std::string_view json, HolderInfo& row);

/// The largest mark any store accepts: 9999-12-31T23:59:59.999Z, the last time ISO-8601's
/// four-digit years can show (a mark is a Unix time, never a tick count).
inline constexpr std::int64_t kLastMarkUnixMs = 253'402'300'799'999;
/// Longest mark file read: the time and the layout line fit well inside it. A longer file
/// is refused by its size, unread.
inline constexpr std::int64_t kMaxMarkFileBytes = 256;

/// text as a message can show it: printable ASCII as is, every other byte as \xNN (a NUL
/// would otherwise end the message); at most max_bytes of text, then "...".
std::string shown_bytes(std::string_view text, std::size_t max_bytes = 40);
/// A stored mark's text as Unix ms: decimal digits (an optional '-' is read only to name
/// it), 0 .. kLastMarkUnixMs. Throws LeaseError(rejected) naming where, the text (escaped)
/// and the rule.
std::int64_t parse_mark_text(std::string_view text, const std::string& where,
                             const std::string& store);
/// What fstat() says path is, in words ("a FIFO", "a directory", ...); "" for a regular file.
std::string file_kind_words(unsigned mode);

/// A mark file's content: the time and the layout that wrote it (its spec without name;
/// "" in marks written before marks recorded it).
struct MarkRecord {
  std::int64_t mark = kNoMark;
  std::string layout;
};
/// The spec a mark records for layout: Layout::to_spec() without the name.
std::string mark_layout_spec(const Layout& layout);
/// Refuses (LeaseError rejected, one line naming both layouts and why) a start with layout
/// on a node whose mark was written by another layout, unless every ID the new layout can
/// issue after the mark lies above every ID the old one could issue up to it. A mark
/// without a layout is taken as written by layout.
void check_mark_layout(const MarkRecord& record, const Layout& layout, const std::string& where,
                       const std::string& store);
/// read_mark_file() with the layout line.
MarkRecord read_mark_record(const std::string& path, const std::string& store);
/// A mark file's content, or kNoMark if it does not exist (ENOENT, and only that). Throws
/// LeaseError(rejected) naming the file and the reason if it cannot be read (EACCES, EMFILE,
/// EIO, a directory, ...) or holds something other than a decimal number: starting the node
/// from scratch then could reissue its last holder's IDs.
std::int64_t read_mark_file(const std::string& path, const std::string& store);
/// Writes mark to path so that once this returns it survives a crash or a power loss, and
/// a crash at any point leaves the old or the new mark: the text goes to a temporary file,
/// fdatasync(), rename() over path, then fsync() of the directory (which makes the rename
/// itself durable). Throws LeaseError(rejected) naming the step and errno.
/// layout_spec (mark_layout_spec()), when given, goes on a second line "layout SPEC".
void write_mark_file(const std::string& path, std::int64_t mark, const std::string& store,
                     const std::string& layout_spec = "");
/// Creates dir and its parents (each new one made durable in its parent). Throws
/// LeaseError(rejected) naming the directory.
void make_dirs(const std::string& dir, const std::string& store);

/// Remembers the process that opened a store: a forked child inherits the store's
/// connection, file descriptors and lease, and must touch none of them. Core's fork guard
/// (idforge/detail/fork_guard.hpp) decides; this adds the store's refusal.
class ForkGuard {
 public:
  /// True in a child process forked after this guard was made.
  bool in_child() const noexcept { return process_.forked(); }
  /// Throws LeaseError(rejected) naming store if in_child().
  void check(const std::string& store) const;

 private:
  idforge::detail::ForkGuard process_;
};

/// What every network or file store keeps and answers the same way: its URL, its clock,
/// the settings read from the URL, the process that opened it and the mutex its requests
/// hold; url(), check() and ttl_ms() follow from them.
class StoreBase : public LeaseStore {
 public:
  const std::string& url() const noexcept final { return url_; }
  void check(const Layout& layout, std::optional<std::uint64_t> node) const final {
    if (node)
      check_fixed_node(layout, *node, settings_, url_);
    else
      (void)node_range(settings_, layout, url_);
  }
  std::int64_t ttl_ms() const noexcept final { return settings_.ttl_ms; }

 protected:
  StoreBase(std::string url, Clock& clock, const CommonSettings& settings)
      : url_(std::move(url)), clock_(&clock), settings_(settings) {}

  /// The start of every acquire(): refuse in a forked child, then the node IDs to scan.
  NodeRange acquire_range(const Layout& layout) const {
    guard_.check(url_);
    return node_range(settings_, layout, url_);
  }

  std::string url_;
  Clock* clock_;
  CommonSettings settings_;
  ForkGuard guard_;
  StoreMutex mu_;
};

/// Unix ms on clock.
inline std::int64_t now_ms(Clock& clock) noexcept {
  return clock.now_ns() / 1'000'000;
}

/// The stores, one factory each (lease.cpp dispatches on the scheme).
std::unique_ptr<LeaseStore> make_static_store(const LeaseUrl& url, Clock& clock);
std::unique_ptr<LeaseStore> make_file_store(const LeaseUrl& url, Clock& clock);
std::unique_ptr<LeaseStore> make_redis_store(const LeaseUrl& url, Clock& clock);
std::unique_ptr<LeaseStore> make_etcd_store(const LeaseUrl& url, Clock& clock);

}  // namespace idforge::coord::detail
