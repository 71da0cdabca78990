#include "idforge/uuid_generator.hpp"

#include <algorithm>
#include <string>

#include "idforge/error.hpp"
#include "monotonic_generator_impl.hpp"

namespace idforge {

void new_uuid_v4_batch(std::span<Uuid> out) noexcept {
  std::uint64_t r[2 * 64];
  while (!out.empty()) {
    const std::size_t n = std::min<std::size_t>(out.size(), 64);
    random_fill(r, n * 2 * sizeof r[0]);
    for (std::size_t i = 0; i < n; ++i) out[i] = compose_v4(r[2 * i], r[2 * i + 1]);
    out = out.subspan(n);
  }
}

void UuidV7Stamp::refuse(const Reservation&, u128, std::uint64_t) {
  throw Error(errc::time_exhausted,
              "UUIDv7: the 48-bit millisecond field is exhausted (it ends in the year 10889); "
              "no later ID exists");
}

void UuidV7Stamp::emit(std::span<Uuid> out, u128 first) noexcept {
  std::uint32_t tails[256];  // MonotonicGenerator asks for at most 256 at a time
  while (!out.empty()) {
    const std::size_t n = std::min<std::size_t>(out.size(), std::size(tails));
    random_fill(tails, n * sizeof tails[0]);
    for (std::size_t i = 0; i < n; ++i) out[i] = compose(first + i, tails[i]);
    out = out.subspan(n);
    first += n;
  }
}

UuidV7Stamp::u128 UuidV7Stamp::resume_stamp(const Uuid& id) {
  if (id.version() != 7 || id.variant() != UuidVariant::rfc9562)
    throw Error(errc::invalid_argument,
                "resume_after: " + id.to_string() + " is not a UUIDv7 (version " +
                    std::to_string(id.version()) + ", variant " + to_string(id.variant()) +
                    "); a generator resumes only after a v7 it or its predecessor issued");
  return stamp_of(id);
}

template class MonotonicGenerator<UuidV7Stamp, false>;
template class MonotonicGenerator<UuidV7Stamp, true>;

}  // namespace idforge
