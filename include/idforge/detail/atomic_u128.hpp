// A 128-bit word updated by compare-and-swap, for generators whose whole state (a UUIDv7
// stamp, a ULID) is 128 bits. On x86-64 this is one `lock cmpxchg16b`, lock-free; std::atomic
// would route 16-byte atomics through libatomic (a call, and a link dependency for every
// embedder). Elsewhere a tiny spin lock keeps the same interface correct.
#pragma once

#include <atomic>
#include <cstdint>

namespace idforge::detail {

__extension__ typedef unsigned __int128 u128;

class AtomicU128 {
 public:
  explicit AtomicU128(u128 v = 0) noexcept : v_(v) {}
  AtomicU128(const AtomicU128&) = delete;
  AtomicU128& operator=(const AtomicU128&) = delete;

  /// A fast read that may be torn under concurrent writes. Use it only as the first guess
  /// of a compare_exchange loop: a torn value fails the exchange, which returns the truth.
  u128 load_guess() const noexcept {
#if defined(__x86_64__)
    const auto* halves = reinterpret_cast<const volatile std::uint64_t*>(&v_);
    const std::uint64_t lo = halves[0];
    const std::uint64_t hi = halves[1];
    return (static_cast<u128>(hi) << 64) | lo;
#else
    return load();
#endif
  }

  /// An exact atomic read.
  u128 load() const noexcept {
#if defined(__x86_64__)
    u128 expected = 0;
    // If the value is 0 this writes 0 back (no change); otherwise it fails and reports it.
    const_cast<AtomicU128*>(this)->compare_exchange(expected, 0);
    return expected;
#else
    Guard g(lock_);
    return v_;
#endif
  }

  /// If the value equals expected, stores desired and returns true; otherwise loads the
  /// current value into expected and returns false. Sequentially consistent.
  bool compare_exchange(u128& expected, u128 desired) noexcept {
#if defined(__x86_64__)
    auto lo = static_cast<std::uint64_t>(expected);
    auto hi = static_cast<std::uint64_t>(expected >> 64);
    bool ok;
    asm volatile("lock cmpxchg16b %1"
                 : "=@ccz"(ok), "+m"(v_), "+a"(lo), "+d"(hi)
                 : "b"(static_cast<std::uint64_t>(desired)),
                   "c"(static_cast<std::uint64_t>(desired >> 64))
                 : "memory");
    expected = (static_cast<u128>(hi) << 64) | lo;
    return ok;
#else
    Guard g(lock_);
    if (v_ == expected) {
      v_ = desired;
      return true;
    }
    expected = v_;
    return false;
#endif
  }

 private:
#if !defined(__x86_64__)
  struct Guard {
    explicit Guard(std::atomic_flag& f) noexcept : f_(f) {
      while (f_.test_and_set(std::memory_order_acquire)) f_.wait(true, std::memory_order_relaxed);
    }
    ~Guard() {
      f_.clear(std::memory_order_release);
      f_.notify_one();
    }
    std::atomic_flag& f_;
  };
  mutable std::atomic_flag lock_;
#endif
  alignas(16) u128 v_;
};

}  // namespace idforge::detail
