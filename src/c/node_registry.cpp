#include "node_registry.hpp"

#include <pthread.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "idforge/coord/lease.hpp"
#include "idforge/time_format.hpp"

namespace idforge::c {

// One per node ID ever opened in this process, whatever the layout; never erased, so a NodeClaim's
// pointer stays valid and a floor outlives its handle (a few dozen bytes per node ever used).
struct NodeClaim::Slot {
  bool live = false;
  std::string layout;              // the live handle's layout name, for the refusal
  std::string store;               // the live handle's store, for the refusal
  std::int64_t since_unix_ms = 0;  // when the live handle took it
  std::int64_t floor_unix_ms = kNoUnixMs;
};

namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::uint64_t, NodeClaim::Slot> slots;
};

// A fork while another thread holds the mutex must not leave it locked in the child, where
// that thread does not exist: the atfork handlers take it around every fork.
Registry& registry() {
  static Registry* r = [] {
    auto* made = new Registry;  // never destroyed: handles may be freed during exit
    pthread_atfork([] { registry().mutex.lock(); }, [] { registry().mutex.unlock(); },
                   [] { registry().mutex.unlock(); });
    return made;
  }();
  return *r;
}

}  // namespace

NodeClaim NodeClaim::take(const Layout& layout, std::uint64_t node, const std::string& store) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  // Keyed by the node alone: one layout spelled two ways (a preset and its spec), two layouts
  // that put the node's bits in the same place (dc=5,worker=5 and worker=10), or an epoch a
  // millisecond apart all make equal IDs on the same node number.
  Slot& slot = r.slots[node];
  if (slot.live)
    throw coord::LeaseError(
        coord::LeaseFailure::held, store,
        "node " + std::to_string(node) + " is held by a live generator of this process (layout " +
            slot.layout + ", opened " + format_iso8601_ms(slot.since_unix_ms) + " on '" +
            slot.store +
            "'); one generator per node per process, whatever its layout or store: "
            "use that one from every thread, free it first, or give this one another node");
  slot.live = true;
  slot.layout = "'" + layout.name() + "'";
  slot.store = store;
  slot.since_unix_ms = SystemClock::instance().now_ns() / 1'000'000;
  return NodeClaim(&slot, slot.floor_unix_ms);
}

NodeClaim::NodeClaim(NodeClaim&& other) noexcept
    : slot_(std::exchange(other.slot_, nullptr)), floor_unix_ms_(other.floor_unix_ms_) {}

NodeClaim& NodeClaim::operator=(NodeClaim&& other) noexcept {
  if (this != &other) {
    end(kNoUnixMs);
    slot_ = std::exchange(other.slot_, nullptr);
    floor_unix_ms_ = other.floor_unix_ms_;
  }
  return *this;
}

void NodeClaim::end(std::int64_t last_unix_ms) noexcept {
  if (!slot_) return;
  const std::lock_guard lock(registry().mutex);
  slot_->floor_unix_ms = std::max(slot_->floor_unix_ms, last_unix_ms);
  slot_->live = false;
  slot_ = nullptr;
}

}  // namespace idforge::c
