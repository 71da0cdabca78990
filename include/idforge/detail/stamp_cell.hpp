// StampCell: the one word a generator's whole state lives in (a Snowflake stamp, a UUIDv7
// stamp, the last ULID), and the only two ways it changes: claimed from the value a call
// loaded, or raised to a floor. Every generator family keeps its state in one, so "no two
// calls get the same ID" is argued once, here: a claim succeeds only from the value it
// loaded, and the value only moves up.
//
// Shared = true: the claim is a compare-and-swap, so among threads it is one call's alone;
// a lost race reports the newer value and the caller runs its rule again on it. Shared =
// false: one thread owns the cell, the claim is a plain store and never fails.
// The 64-bit cell is a std::atomic either way, so last_unix_ms() and metrics may read it
// from another thread (relaxed stores and plain loads cost nothing more on x86-64); the
// 128-bit shared cell is AtomicU128 (one lock cmpxchg16b), the 128-bit unshared one a plain
// value, as nothing outside its thread reads it.
#pragma once

#include <atomic>
#include <cstdint>

#include "idforge/detail/atomic_u128.hpp"

namespace idforge::detail {

template <class T, bool Shared>
class StampCell;

template <bool Shared>
class StampCell<std::uint64_t, Shared> {
 public:
  explicit StampCell(std::uint64_t v = 0) noexcept : v_(v) {}
  StampCell(const StampCell&) = delete;
  StampCell& operator=(const StampCell&) = delete;

  /// The current value (sequentially consistent: a plain load on x86-64).
  std::uint64_t load() const noexcept { return v_.load(std::memory_order_seq_cst); }
  /// The first guess of a claim; for 64 bits the exact value.
  std::uint64_t guess() const noexcept { return load(); }
  /// Sets desired if the cell still holds expected; else loads the newer value into
  /// expected and returns false (Shared only: one thread's claim cannot be overtaken).
  bool try_claim(std::uint64_t& expected, std::uint64_t desired) noexcept {
    if constexpr (Shared) {
      return v_.compare_exchange_strong(expected, desired, std::memory_order_seq_cst,
                                        std::memory_order_relaxed);
    } else {
      v_.store(desired, std::memory_order_relaxed);
      return true;
    }
  }
  /// Raises the value to at least floor; never lowers it. Thread-safe in both kinds, as a
  /// floor may come from a lease keeper's thread.
  void raise_to(std::uint64_t floor) noexcept {
    std::uint64_t cur = v_.load(std::memory_order_relaxed);
    while (cur < floor && !v_.compare_exchange_weak(cur, floor, std::memory_order_seq_cst,
                                                    std::memory_order_relaxed)) {
    }
  }

 private:
  std::atomic<std::uint64_t> v_;
};

template <>
class StampCell<u128, true> {
 public:
  explicit StampCell(u128 v = 0) noexcept : v_(v) {}
  StampCell(const StampCell&) = delete;
  StampCell& operator=(const StampCell&) = delete;

  /// The exact current value (a compare-and-swap that changes nothing).
  u128 load() const noexcept { return v_.load(); }
  /// Two plain loads that may be torn under a concurrent claim: only a claim's first guess,
  /// which a torn value fails and try_claim then corrects. A rule that would refuse on a
  /// guess checks load() first.
  u128 guess() const noexcept { return v_.load_guess(); }
  bool try_claim(u128& expected, u128 desired) noexcept {
    return v_.compare_exchange(expected, desired);
  }
  void raise_to(u128 floor) noexcept {
    u128 cur = v_.load_guess();
    while (cur < floor && !v_.compare_exchange(cur, floor)) {
    }
  }

 private:
  AtomicU128 v_;
};

template <>
class StampCell<u128, false> {
 public:
  explicit StampCell(u128 v = 0) noexcept : v_(v) {}
  StampCell(const StampCell&) = delete;
  StampCell& operator=(const StampCell&) = delete;

  u128 load() const noexcept { return v_; }
  u128 guess() const noexcept { return v_; }
  bool try_claim(u128& /*expected*/, u128 desired) noexcept {
    v_ = desired;
    return true;
  }
  void raise_to(u128 floor) noexcept {
    if (v_ < floor) v_ = floor;
  }

 private:
  u128 v_;
};

}  // namespace idforge::detail
