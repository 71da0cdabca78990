#include "idforge/ulid_generator.hpp"

#include <string>

#include "idforge/error.hpp"
#include "idforge/random.hpp"
#include "idforge/time_format.hpp"
#include "monotonic_generator_impl.hpp"

namespace idforge {

UlidStamp::Bits UlidStamp::draw() noexcept {
  std::uint64_t r[2] = {0, 0};
  random_fill(r, 10);  // 80 bits: all of r[0], the low 16 of r[1] (little-endian fill)
  return ((static_cast<u128>(r[1] & 0xFFFF)) << 64) | r[0];
}

void UlidStamp::refuse(const Reservation& r, u128 last, std::uint64_t n) {
  if (r.outcome == Outcome::time_exhausted)
    throw Error(errc::time_exhausted,
                "ULID: the 48-bit millisecond field is exhausted (it ends in the year 10889)");
  const auto ms = static_cast<std::int64_t>(unix_ms(last));
  throw Error(errc::counter_exhausted, "ULID: the 80-bit random part cannot take " +
                                           std::to_string(n) +
                                           " more increment(s) inside millisecond " +
                                           std::to_string(ms) + " (" + format_iso8601_ms(ms) +
                                           "); the spec forbids wrapping, so nothing was issued; "
                                           "the next millisecond starts afresh");
}

template class MonotonicGenerator<UlidStamp, false>;
template class MonotonicGenerator<UlidStamp, true>;

}  // namespace idforge
