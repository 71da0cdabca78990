// LruPool: a buffer pool of M pages with least-recently-used eviction, counting misses.
// It models which page reads a database must do from disk; it holds no page contents.
// Pages are small dense integers (the simulator numbers them as it makes them), so the
// LRU list lives in two arrays indexed by page: O(1) per access, no allocation per page.
#pragma once

#include <cstdint>
#include <vector>

namespace idforge::lab {

/// LRU residency of up to `capacity` pages; capacity 0 means unlimited (never misses).
class LruPool {
 public:
  /// A pool that holds `capacity` pages (0: unlimited).
  explicit LruPool(std::uint64_t capacity = 0) : capacity_(capacity) {}

  /// The page was read: a hit moves it to the front; a miss loads it, evicting the least
  /// recently used page when full. Returns true on a miss.
  bool access(std::uint32_t page);
  /// A page the database just made: it enters the pool without a read (no miss).
  void add_new(std::uint32_t page);

  std::uint64_t capacity() const noexcept { return capacity_; }
  /// Misses so far.
  std::uint64_t misses() const noexcept { return misses_; }
  /// Pages pushed out so far.
  std::uint64_t evictions() const noexcept { return evictions_; }
  /// Pages resident now.
  std::uint64_t resident() const noexcept { return resident_; }
  /// Whether page is resident (unlimited pools report every page they have seen).
  bool contains(std::uint32_t page) const noexcept { return page < in_.size() && in_[page]; }

 private:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  void grow(std::uint32_t page);
  void unlink(std::uint32_t page) noexcept;
  void push_front(std::uint32_t page) noexcept;
  void load(std::uint32_t page);

  std::uint64_t capacity_;
  std::uint64_t misses_ = 0, evictions_ = 0, resident_ = 0;
  std::vector<std::uint32_t> prev_, next_;
  std::vector<bool> in_;
  std::uint32_t head_ = kNone, tail_ = kNone;
};

}  // namespace idforge::lab
