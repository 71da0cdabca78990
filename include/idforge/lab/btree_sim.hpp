// BTreeSim: a B+ tree that models where keys land in a database index, without a database.
//
// It keeps the structure a real index has (leaf pages of `leaf_capacity` keys, interior
// pages of `interior_fanout` children, separators routing each key to one leaf) and counts
// what seed 003's scoreboard counts:
//   - splits: pages split (leaf and interior; leaf_splits and interior_splits apart);
//   - page writes: 1 per insert, plus 2 for every page the insert splits (the new page and
//     the parent that gets its separator), so an insert that splits one leaf writes 3;
//   - leaves and leaf fill (keys / (leaves * leaf_capacity));
//   - buffer-pool misses: every page on the root-to-leaf path is read through an LRU pool
//     of `pool_pages` pages (0 = unlimited); pages a split makes enter it without a read.
// Split rules, as InnoDB and PostgreSQL do them: a key that lands at the end of the
// rightmost page of a level (above every key in it) and finds the page full opens a new
// page on the right; the old page keeps `rightmost_fill` of its capacity (1.0, the seed's
// demo: it stays full and the new page holds the new key alone; PostgreSQL keeps 90% of a
// leaf). Anywhere else a full page splits evenly: the lower half stays, the upper half moves.
//
// Speed (>= 5M keys/s at 16 KB pages on one core): keys live in one flat array, a fixed
// slot range per leaf, and a leaf keeps its keys in arrival order, not sorted. Which leaf a
// key lands in and when a leaf splits depend only on the set of keys a leaf holds, never on
// the slot order inside it, so the counts are those of a sorted leaf; a split finds the
// median with nth_element. leaves() returns every leaf's keys sorted.
// Keys must be distinct (the lab's sources make distinct keys); a repeated key is not
// detected and counts as another entry.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "idforge/lab/key128.hpp"
#include "idforge/lab/lru_pool.hpp"

namespace idforge::lab {

/// Shape and rules of a simulated index. Validated by BTreeSim's constructor.
struct BTreeConfig {
  std::uint32_t leaf_capacity = 4;     ///< keys a leaf page holds; >= 2
  std::uint32_t interior_fanout = 16;  ///< children an interior page holds; >= 3
  double rightmost_fill =
      1.0;  ///< share of a full rightmost page kept on a right-edge split; (0, 1]
  std::uint32_t page_bytes = 0;  ///< bytes a page takes, for index_bytes (0: not known)
  std::uint64_t pool_pages = 0;  ///< LRU buffer pool size in pages; 0 = unlimited
  bool record_creation = false;  ///< keep each key's creation number (for leaves())

  /// Capacities from sizes: a leaf holds page_bytes / (key_bytes + entry_overhead) keys,
  /// an interior page page_bytes / (key_bytes + child_pointer_bytes) children. Throws
  /// Error(errc::invalid_argument) naming the value when a page cannot hold 2 keys.
  static BTreeConfig for_page(std::uint32_t page_bytes, std::uint32_t key_bytes,
                              std::uint32_t entry_overhead = 0,
                              std::uint32_t child_pointer_bytes = 8);
  /// Throws Error(errc::invalid_argument) naming the first field that breaks its rule.
  void validate() const;
};

/// The scoreboard.
struct BTreeStats {
  std::uint64_t inserts = 0;
  std::uint64_t leaf_splits = 0;
  std::uint64_t interior_splits = 0;
  std::uint64_t page_writes = 0;  ///< 1 per insert + 2 per page split
  std::uint64_t leaves = 0;
  std::uint64_t interior_pages = 0;
  std::uint32_t height = 1;       ///< levels, leaves included (1: the root is a leaf)
  std::uint64_t pool_misses = 0;  ///< page reads the LRU pool could not serve
  double leaf_fill = 0;           ///< keys / (leaves * leaf_capacity), 0..1
  std::uint64_t index_bytes = 0;  ///< (leaves + interior_pages) * page_bytes
  /// Every page split, leaf or interior.
  std::uint64_t splits() const noexcept { return leaf_splits + interior_splits; }
};

/// One leaf as a page would show it: keys in order, with their creation numbers.
struct LeafView {
  std::uint32_t page = 0;    ///< page number, in the order pages were made (0 = first)
  std::vector<Key128> keys;  ///< sorted
  std::vector<std::uint64_t>
      created;  ///< creation number of keys[i] (1 = first insert); empty unless record_creation
};

/// A simulated B+ tree. Single-threaded; copyable (a copy is an independent tree).
class BTreeSim {
 public:
  /// An empty tree: one empty leaf as root. Throws as BTreeConfig::validate().
  explicit BTreeSim(const BTreeConfig& config);

  /// Inserts key, with creation number inserts()+1.
  void insert(const Key128& key);
  /// Inserts keys in order.
  void insert(const Key128* keys, std::size_t count);

  /// The scoreboard now.
  BTreeStats stats() const;
  const BTreeConfig& config() const noexcept { return config_; }
  /// Leaves from left to right, keys sorted. O(n log n); for display and tests.
  std::vector<LeafView> leaves() const;
  /// Whether key is in the tree (searched the way an insert routes it).
  bool contains(const Key128& key) const;
  /// Checks the structure: separators sorted and bounding their subtrees, every leaf within
  /// capacity and non-empty (except an empty root), leaves linked left to right in key
  /// order, counts consistent. Returns what is wrong, empty when all holds. O(n log n).
  std::vector<std::string> check() const;

 private:
  struct Leaf {
    Key128 max;  // largest key in the leaf (valid when count > 0)
    std::uint32_t count = 0;
    std::uint32_t page = 0;
    std::uint32_t next = kNone;  // right sibling
  };
  struct Interior {
    std::vector<Key128> seps;           // seps[i] = smallest key under child[i+1]
    std::vector<std::uint64_t> sep_hi;  // seps[i].hi: the search reads 8 bytes a step, not 16
    std::vector<std::uint32_t> child;   // leaf indexes at level 1, interior indexes above
    std::uint32_t page = 0;
  };
  struct PathStep {
    std::uint32_t node;  // interior index
    std::uint32_t slot;  // child slot taken
    bool rightmost;      // node is the rightmost page of its level
  };
  static constexpr std::uint32_t kNone = 0xffffffffu;
  static constexpr int kMaxHeight = 48;

  std::uint32_t new_leaf();
  std::uint32_t new_interior();
  void split_leaf(std::uint32_t leaf, const Key128& key, std::uint64_t created, bool rightmost,
                  const PathStep* path, int depth);
  void insert_separator(const PathStep* path, int depth, const Key128& sep, std::uint32_t right);
  Key128* slots(std::uint32_t leaf) noexcept {
    return keys_.data() + std::size_t{leaf} * config_.leaf_capacity;
  }
  const Key128* slots(std::uint32_t leaf) const noexcept {
    return keys_.data() + std::size_t{leaf} * config_.leaf_capacity;
  }
  std::uint32_t find_leaf(const Key128& key) const;
  static std::uint32_t child_slot(const Interior& in, const Key128& key) noexcept;
  void check_node(std::uint32_t node, int level, const Key128* lo, const Key128* hi,
                  std::vector<std::uint32_t>& leaf_order, std::vector<std::string>& problems) const;

  BTreeConfig config_;
  std::uint32_t keep_on_right_edge_leaf_;      // keys a leaf keeps on a right-edge split
  std::uint32_t keep_on_right_edge_interior_;  // children an interior page keeps
  std::vector<Key128> keys_;                   // leaf i owns slots [i*cap, (i+1)*cap)
  std::vector<std::uint64_t> created_;         // parallel to keys_ when record_creation
  std::vector<Leaf> leaves_;
  std::vector<Interior> interiors_;
  std::vector<std::pair<Key128, std::uint64_t>> scratch_;  // a splitting leaf's entries
  std::uint32_t root_ = 0;  // leaf index when height_ == 1, else interior index
  std::uint32_t height_ = 1;
  std::uint32_t pages_ = 0;
  std::uint64_t inserts_ = 0, leaf_splits_ = 0, interior_splits_ = 0, page_writes_ = 0;
  LruPool pool_;
};

}  // namespace idforge::lab
