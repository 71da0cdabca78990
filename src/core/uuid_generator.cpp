#include "idforge/uuid_generator.hpp"

#include <algorithm>
#include <string>

#include "idforge/error.hpp"

namespace idforge {
namespace {

// IDs a batch takes per clock read and per compare-and-swap: large enough to amortise
// both, small enough that the random tails fit on the stack and the time stays current.
constexpr std::size_t kBatchChunk = 256;

using detail::unix_ms_of;

[[noreturn]] void throw_time_exhausted() {
  throw Error(errc::time_exhausted,
              "UUIDv7: the 48-bit millisecond field is exhausted (it ends in the year 10889); "
              "no later ID exists");
}

std::uint64_t seed_if(bool needed) noexcept {
  return needed ? random_u64() : 0;
}

void fill(std::span<Uuid> out, UuidV7Stamp::u128 first) noexcept {
  std::uint32_t tails[kBatchChunk];
  random_fill(tails, out.size() * sizeof tails[0]);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = UuidV7Stamp::compose(first + i, tails[i]);
}

}  // namespace

void new_uuid_v4_batch(std::span<Uuid> out) noexcept {
  std::uint64_t r[2 * 64];
  while (!out.empty()) {
    const std::size_t n = std::min<std::size_t>(out.size(), 64);
    random_fill(r, n * 2 * sizeof r[0]);
    for (std::size_t i = 0; i < n; ++i) out[i] = compose_v4(r[2 * i], r[2 * i + 1]);
    out = out.subspan(n);
  }
}

// ---------------------------------------------------------------------------------------
// UuidV7Generator

UuidV7Generator::UuidV7Generator(Clock& clock) noexcept : clock_(clock) {
  detail::install_fork_handler();
  fork_epoch_ = detail::fork_epoch();
}

Uuid UuidV7Generator::next() {
  const std::int64_t now_ms = clock_.now_ms();
  const std::uint64_t epoch = detail::fork_epoch();
  const bool fresh = epoch != fork_epoch_;
  const std::uint64_t seed =
      seed_if(UuidV7Stamp::starts_new_ms(stamp_, static_cast<std::uint64_t>(now_ms), fresh));
  std::uint32_t tail;
  random_fill(&tail, sizeof tail);
  const auto r = UuidV7Stamp::reserve(stamp_, now_ms, seed, 1, fresh);
  if (r.exhausted) [[unlikely]]
    throw_time_exhausted();
  stamp_ = r.last;
  fork_epoch_ = epoch;
  return UuidV7Stamp::compose(r.first, tail);
}

void UuidV7Generator::next_batch(std::span<Uuid> out) {
  while (!out.empty()) {
    const std::size_t n = std::min(out.size(), kBatchChunk);
    const std::int64_t now_ms = clock_.now_ms();
    const std::uint64_t epoch = detail::fork_epoch();
    const bool fresh = epoch != fork_epoch_;
    const std::uint64_t seed =
        seed_if(UuidV7Stamp::starts_new_ms(stamp_, static_cast<std::uint64_t>(now_ms), fresh));
    const auto r = UuidV7Stamp::reserve(stamp_, now_ms, seed, n, fresh);
    if (r.exhausted) throw_time_exhausted();
    stamp_ = r.last;
    fork_epoch_ = epoch;
    fill(out.first(n), r.first);
    out = out.subspan(n);
  }
}

namespace {
// resume_after's rule: only a v7's bits are a time and a counter.
void require_v7(const Uuid& id) {
  if (id.version() != 7 || id.variant() != UuidVariant::rfc9562)
    throw Error(errc::invalid_argument,
                "resume_after: " + id.to_string() + " is not a UUIDv7 (version " +
                    std::to_string(id.version()) + ", variant " + to_string(id.variant()) +
                    "); a generator resumes only after a v7 it or its predecessor issued");
}
}  // namespace

void UuidV7Generator::resume_after(const Uuid& id) {
  require_v7(id);
  stamp_ = std::max(stamp_, UuidV7Stamp::stamp_of(id));
}

// ---------------------------------------------------------------------------------------
// SharedUuidV7Generator

SharedUuidV7Generator::SharedUuidV7Generator(Clock& clock) noexcept : clock_(clock) {
  detail::install_fork_handler();
  fork_epoch_.store(detail::fork_epoch(), std::memory_order_relaxed);
}

UuidV7Stamp::Reservation SharedUuidV7Generator::take(std::uint64_t n) {
  const auto now_ms = unix_ms_of(clock_.now_ns());
  const std::uint64_t epoch = detail::fork_epoch();
  const bool fresh = epoch != fork_epoch_.load(std::memory_order_relaxed);
  UuidV7Stamp::u128 last = stamp_.load_guess();
  std::uint64_t seed = 0;
  bool have_seed = false;
  for (;;) {
    if (!have_seed && UuidV7Stamp::starts_new_ms(last, static_cast<std::uint64_t>(now_ms), fresh)) {
      seed = random_u64();
      have_seed = true;
    }
    auto r = UuidV7Stamp::reserve(last, now_ms, seed, n, fresh);
    if (r.exhausted) [[unlikely]] {
      // A torn first guess may look exhausted; only the exact state may refuse.
      const UuidV7Stamp::u128 exact = stamp_.load();
      if (exact != last) {
        last = exact;
        continue;
      }
      throw_time_exhausted();
    }
    if (stamp_.compare_exchange(last, r.last)) [[likely]] {
      if (fresh) fork_epoch_.store(epoch, std::memory_order_relaxed);
      return r;
    }
    // Lost a race (or the guess was torn): last now holds the current state; same clock.
  }
}

Uuid SharedUuidV7Generator::next() {
  std::uint32_t tail;
  random_fill(&tail, sizeof tail);
  return UuidV7Stamp::compose(take(1).first, tail);
}

void SharedUuidV7Generator::next_batch(std::span<Uuid> out) {
  while (!out.empty()) {
    const std::size_t n = std::min(out.size(), kBatchChunk);
    fill(out.first(n), take(n).first);
    out = out.subspan(n);
  }
}

void SharedUuidV7Generator::resume_after(const Uuid& id) {
  require_v7(id);
  const UuidV7Stamp::u128 target = UuidV7Stamp::stamp_of(id);
  UuidV7Stamp::u128 cur = stamp_.load_guess();
  while (cur < target && !stamp_.compare_exchange(cur, target)) {
  }
}

}  // namespace idforge
