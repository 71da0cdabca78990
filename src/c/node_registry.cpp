#include "node_registry.hpp"

#include <pthread.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "idforge/coord/lease.hpp"
#include "idforge/error.hpp"
#include "idforge/time_format.hpp"

namespace idforge::c {

// One per node ID ever opened in this process, whatever the layout; never erased, so a NodeClaim's
// pointer stays valid and a floor outlives its handle (a few dozen bytes per node ever used).
struct NodeClaim::Slot {
  explicit Slot(const Layout& l) : layout(l) {}
  Layout layout;  // the layout of the last handle, the one floor_unix_ms is of
  bool live = false;
  std::string store;               // the live handle's store, for the refusal
  std::int64_t since_unix_ms = 0;  // when the last handle took it
  std::int64_t floor_unix_ms = kNoUnixMs;
};

namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::uint64_t, NodeClaim::Slot> slots;
};

std::string shown(const Layout& l) {
  return "'" + l.name() + "' (" + l.to_spec() + ")";
}

// Whether IDs of (a, node_a) and (b, node_b) can be equal as far as their node fields tell,
// for two layouts whose time fields sit in the same place with the same tick (so their IDs of
// one moment lie side by side): the bits both give their node field hold the same value in both
// (or there are none). The same layout on two nodes never can; two layouts with the node's bits
// in the same place, or shifted by one with the node doubled (twitter node 33, worker=11,seq=11
// node 66), can. Layouts of another tick or time placement (sonyflake beside twitter) make IDs
// of other magnitudes at any one time, and are not compared.
bool node_bits_coincide(const Layout& a, std::uint64_t node_a, const Layout& b,
                        std::uint64_t node_b) noexcept {
  if (a.time_shift() != b.time_shift() || a.tick_ms() != b.tick_ms()) return false;
  const auto field = [](const Layout& l) {
    return l.node_bits() >= 64 ? ~std::uint64_t{0}
                               : ((std::uint64_t{1} << l.node_bits()) - 1) << l.node_shift();
  };
  const std::uint64_t both = field(a) & field(b);
  return ((node_a << a.node_shift()) & both) == ((node_b << b.node_shift()) & both);
}

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
  Slot* same = nullptr;
  for (auto& [n, used] : r.slots) {
    if (n == node) {
      same = &used;
      continue;
    }
    // Another node of another layout whose node field holds the same bits as this one (twitter
    // node 33 and worker=11,seq=11 node 66): their IDs of one moment can be equal.
    if (!(used.layout == layout) && node_bits_coincide(used.layout, n, layout, node))
      throw Error(errc::invalid_argument,
                  "node " + std::to_string(node) + " of layout " + shown(layout) +
                      " puts the same bits where node " + std::to_string(n) + " of layout " +
                      shown(used.layout) +
                      ", used in this process, puts its node, so IDs of the two can be equal; "
                      "use one layout for both, or a node whose bits differ");
  }
  if (same && same->live)
    throw coord::LeaseError(
        coord::LeaseFailure::held, store,
        "node " + std::to_string(node) + " is held by a live generator of this process (layout '" +
            same->layout.name() + "', opened " + format_iso8601_ms(same->since_unix_ms) + " on '" +
            same->store +
            "'); one generator per node per process, whatever its layout or store: use that one "
            "from every thread, free it first, or give this one another node");
  Slot& slot = same ? *same : r.slots.try_emplace(node, layout).first->second;
  // The node issued here before under another layout whose ticks sit where this one's do: its
  // IDs of tick t are this layout's IDs of tick t, so the floor moves by the difference of the
  // epochs (an epoch 1 s later would repeat the IDs of 1 s ago; 4.5 years later, as discord
  // after twitter, in 4.5 years), and this generator starts above the last tick issued.
  if (!(slot.layout == layout) && slot.floor_unix_ms != kNoUnixMs &&
      node_bits_coincide(slot.layout, node, layout, node))
    slot.floor_unix_ms += layout.epoch_ms() - slot.layout.epoch_ms();
  slot.layout = layout;
  slot.live = true;
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
