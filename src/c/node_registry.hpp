// The process-wide node registry: at most one live Snowflake generator per node ID in a
// process, whatever its store and whatever face opened it (C, Python, Node, SQLite all open
// generators through the C ABI); no two layouts whose node fields coincide issue in one process;
// and a node opened again, under its layout or another, continues above the last tick it
// issued.
//
// Why here and not in the stores: a lock file or a store key tells processes apart, but two
// handles of one process may use two stores (file:/a and file:/b), or one store whose lock a
// second open of the same process would not see as held; and a handle freed and opened again
// must not wait on the store's mark to start above what it issued.
#pragma once

#include <cstdint>
#include <string>

#include "idforge/clock.hpp"
#include "idforge/snowflake_layout.hpp"

namespace idforge::c {

/// The right to issue on one node ID in this process (under any layout); movable, not copyable.
/// Ends (the node is free again) by end() or the destructor.
class NodeClaim {
 public:
  /// Takes (layout, node) for a handle on store (its URL, for messages). Throws
  /// coord::LeaseError (held) naming the node, the layout and the live handle's store when
  /// another handle of this process holds it, and Error (invalid_argument) naming both layouts
  /// when its bits coincide with another node of another layout used here.
  static NodeClaim take(const Layout& layout, std::uint64_t node, const std::string& store);

  NodeClaim() = default;
  NodeClaim(NodeClaim&& other) noexcept;
  NodeClaim& operator=(NodeClaim&& other) noexcept;
  NodeClaim(const NodeClaim&) = delete;
  NodeClaim& operator=(const NodeClaim&) = delete;
  ~NodeClaim() { end(kNoUnixMs); }

  /// Unix ms up to which an earlier handle of this process issued on this node, under any
  /// layout (kNoUnixMs: none): the next generator starts above it (SnowflakePolicy's floor).
  std::int64_t floor_unix_ms() const noexcept { return floor_unix_ms_; }
  /// Frees the node; last_unix_ms (the generator's last issued time, or kNoUnixMs) becomes
  /// the floor of the next claim. Idempotent.
  void end(std::int64_t last_unix_ms) noexcept;
  /// Whether this claim holds its node.
  bool held() const noexcept { return slot_ != nullptr; }

  /// One node's entry in the registry (node_registry.cpp).
  struct Slot;

 private:
  explicit NodeClaim(Slot* slot, std::int64_t floor) : slot_(slot), floor_unix_ms_(floor) {}
  Slot* slot_ = nullptr;
  std::int64_t floor_unix_ms_ = kNoUnixMs;
};

}  // namespace idforge::c
