#include "idforge/ulid_generator.hpp"

#include <algorithm>
#include <string>

#include "idforge/error.hpp"
#include "idforge/random.hpp"
#include "idforge/time_format.hpp"

namespace idforge {
namespace {

constexpr std::size_t kBatchChunk = 256;

using detail::unix_ms_of;

UlidStamp::u128 random80() noexcept {
  std::uint64_t r[2] = {0, 0};
  random_fill(r, 10);  // 80 bits: all of r[0], the low 16 of r[1] (little-endian fill)
  return ((static_cast<UlidStamp::u128>(r[1] & 0xFFFF)) << 64) | r[0];
}

[[noreturn]] void refuse(UlidStamp::Outcome outcome, UlidStamp::u128 last, std::uint64_t n) {
  if (outcome == UlidStamp::Outcome::time_exhausted)
    throw Error(errc::time_exhausted,
                "ULID: the 48-bit millisecond field is exhausted (it ends in the year 10889)");
  const auto ms = static_cast<std::int64_t>(UlidStamp::unix_ms(last));
  throw Error(errc::counter_exhausted, "ULID: the 80-bit random part cannot take " +
                                           std::to_string(n) +
                                           " more increment(s) inside millisecond " +
                                           std::to_string(ms) + " (" + format_iso8601_ms(ms) +
                                           "); the spec forbids wrapping, so nothing was issued; "
                                           "the next millisecond starts afresh");
}

}  // namespace

// ---------------------------------------------------------------------------------------
// UlidGenerator

UlidGenerator::UlidGenerator(Clock& clock) noexcept : clock_(clock) {
  detail::install_fork_handler();
  fork_epoch_ = detail::fork_epoch();
}

UlidStamp::Reservation UlidGenerator::take(std::uint64_t n) {
  const std::int64_t now_ms = clock_.now_ms();
  const std::uint64_t epoch = detail::fork_epoch();
  const bool fresh = epoch != fork_epoch_;
  const UlidStamp::u128 random =
      UlidStamp::starts_new_ms(last_, static_cast<std::uint64_t>(now_ms), fresh) ? random80() : 0;
  const auto r = UlidStamp::reserve(last_, now_ms, random, n, fresh);
  if (r.outcome != UlidStamp::Outcome::ok) [[unlikely]]
    refuse(r.outcome, last_, n);
  last_ = r.last;
  fork_epoch_ = epoch;
  return r;
}

Ulid UlidGenerator::next() {
  return UlidStamp::to_ulid(take(1).first);
}

void UlidGenerator::next_batch(std::span<Ulid> out) {
  while (!out.empty()) {
    const std::size_t n = std::min(out.size(), kBatchChunk);
    const UlidStamp::u128 first = take(n).first;
    for (std::size_t i = 0; i < n; ++i) out[i] = UlidStamp::to_ulid(first + i);
    out = out.subspan(n);
  }
}

void UlidGenerator::resume_after(const Ulid& id) noexcept {
  last_ = std::max(last_, UlidStamp::value_of(id));
}

// ---------------------------------------------------------------------------------------
// SharedUlidGenerator

SharedUlidGenerator::SharedUlidGenerator(Clock& clock) noexcept : clock_(clock) {
  detail::install_fork_handler();
  fork_epoch_.store(detail::fork_epoch(), std::memory_order_relaxed);
}

UlidStamp::Reservation SharedUlidGenerator::take(std::uint64_t n) {
  const std::int64_t now_ms = unix_ms_of(clock_.now_ns());
  const std::uint64_t epoch = detail::fork_epoch();
  const bool fresh = epoch != fork_epoch_.load(std::memory_order_relaxed);
  UlidStamp::u128 last = last_.load_guess();
  UlidStamp::u128 random = 0;
  bool have_random = false;
  for (;;) {
    if (!have_random && UlidStamp::starts_new_ms(last, static_cast<std::uint64_t>(now_ms), fresh)) {
      random = random80();
      have_random = true;
    }
    const auto r = UlidStamp::reserve(last, now_ms, random, n, fresh);
    if (r.outcome != UlidStamp::Outcome::ok) [[unlikely]] {
      const UlidStamp::u128 exact = last_.load();  // a torn guess must not refuse
      if (exact != last) {
        last = exact;
        continue;
      }
      refuse(r.outcome, last, n);
    }
    if (last_.compare_exchange(last, r.last)) [[likely]] {
      if (fresh) fork_epoch_.store(epoch, std::memory_order_relaxed);
      return r;
    }
  }
}

Ulid SharedUlidGenerator::next() {
  return UlidStamp::to_ulid(take(1).first);
}

void SharedUlidGenerator::next_batch(std::span<Ulid> out) {
  while (!out.empty()) {
    const std::size_t n = std::min(out.size(), kBatchChunk);
    const UlidStamp::u128 first = take(n).first;
    for (std::size_t i = 0; i < n; ++i) out[i] = UlidStamp::to_ulid(first + i);
    out = out.subspan(n);
  }
}

void SharedUlidGenerator::resume_after(const Ulid& id) noexcept {
  const UlidStamp::u128 target = UlidStamp::value_of(id);
  UlidStamp::u128 cur = last_.load_guess();
  while (cur < target && !last_.compare_exchange(cur, target)) {
  }
}

}  // namespace idforge
