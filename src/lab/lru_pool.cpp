#include "idforge/lab/lru_pool.hpp"

#include <algorithm>

namespace idforge::lab {

void LruPool::grow(std::uint32_t page) {
  if (page < in_.size()) return;
  const std::size_t n = std::max<std::size_t>(page + 1, in_.size() * 2);
  prev_.resize(n, kNone);
  next_.resize(n, kNone);
  in_.resize(n, false);
}

void LruPool::unlink(std::uint32_t p) noexcept {
  const std::uint32_t a = prev_[p], b = next_[p];
  (a == kNone ? head_ : next_[a]) = b;
  (b == kNone ? tail_ : prev_[b]) = a;
}

void LruPool::push_front(std::uint32_t p) noexcept {
  prev_[p] = kNone;
  next_[p] = head_;
  (head_ == kNone ? tail_ : prev_[head_]) = p;
  head_ = p;
}

void LruPool::load(std::uint32_t page) {
  if (capacity_ != 0 && resident_ >= capacity_) {
    const std::uint32_t victim = tail_;
    unlink(victim);
    in_[victim] = false;
    --resident_;
    ++evictions_;
  }
  in_[page] = true;
  ++resident_;
  push_front(page);
}

bool LruPool::access(std::uint32_t page) {
  grow(page);
  if (capacity_ == 0) {  // unlimited: nothing is ever evicted, so no order to keep
    resident_ += in_[page] ? 0 : 1;
    in_[page] = true;
    return false;
  }
  if (in_[page]) {
    if (head_ != page) {
      unlink(page);
      push_front(page);
    }
    return false;
  }
  ++misses_;
  load(page);
  return true;
}

void LruPool::add_new(std::uint32_t page) {
  grow(page);
  if (in_[page]) return;
  if (capacity_ == 0) {
    in_[page] = true;
    ++resident_;
    return;
  }
  load(page);
}

}  // namespace idforge::lab
