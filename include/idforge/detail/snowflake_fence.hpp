// SnowflakeFence: the last stamp a Snowflake generator may issue, set from outside (a lease
// keeper: where its lease may expire, or where its reserved high-water mark ends).
//
// Why a call checks it twice: before its claim, so a fenced call claims nothing (relaxed:
// a stale read only lets a call reach the second check); and after its claim with a
// sequentially consistent load that pairs with set(): a fence set before the claim is seen
// there, so once set() returns, any ID a call still in flight returns was claimed before,
// and a high-water mark read afterwards covers it.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>

namespace idforge::detail {

class SnowflakeFence {
 public:
  SnowflakeFence() noexcept = default;
  SnowflakeFence(const SnowflakeFence&) = delete;
  SnowflakeFence& operator=(const SnowflakeFence&) = delete;

  /// From now on admit only stamps up to last_allowed; unix_ms is what it stands for.
  void set(std::int64_t unix_ms, std::uint64_t last_allowed) noexcept {
    unix_ms_.store(unix_ms, std::memory_order_release);
    last_allowed_.store(last_allowed, std::memory_order_seq_cst);
  }
  /// The last stamp admitted, read before a claim.
  std::uint64_t before_claim() const noexcept {
    return last_allowed_.load(std::memory_order_relaxed);
  }
  /// The last stamp admitted, read after a claim (see the header comment).
  std::uint64_t after_claim() const noexcept {
    return last_allowed_.load(std::memory_order_seq_cst);
  }
  /// The fence as set (max(): none).
  std::int64_t unix_ms() const noexcept { return unix_ms_.load(std::memory_order_acquire); }

  /// How many of the count stamps from first lie at or below last_allowed (0..count).
  static constexpr std::uint64_t admitted(std::uint64_t first, std::uint64_t count,
                                          std::uint64_t last_allowed) noexcept {
    return first > last_allowed ? 0 : std::min(count, last_allowed - first + 1);
  }

 private:
  std::atomic<std::uint64_t> last_allowed_{~std::uint64_t{0}};
  std::atomic<std::int64_t> unix_ms_{std::numeric_limits<std::int64_t>::max()};
};

}  // namespace idforge::detail
