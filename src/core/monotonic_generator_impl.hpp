// MonotonicGenerator's calls (include/idforge/detail/monotonic_generator.hpp), included by
// each family's source file, which instantiates them for its rule.
#pragma once

#include <algorithm>

#include "idforge/detail/monotonic_generator.hpp"

namespace idforge {

template <class Rule, bool Shared>
detail::u128 MonotonicGenerator<Rule, Shared>::take(std::uint64_t n) {
  // Readings before 1970 count as millisecond 0, as the rules take them (and then a call
  // draws no random bits for a millisecond that is not new).
  const std::int64_t now_ms = std::max<std::int64_t>(clock_.now_ms(), 0);
  const detail::ForkGuard::Seen seen = fork_.check();
  detail::u128 last = cell_.guess();
  typename Rule::Bits bits{};
  bool drawn = false;
  for (;;) {
    if (!drawn && Rule::starts_new_ms(last, static_cast<std::uint64_t>(now_ms), seen.forked)) {
      bits = Rule::draw();
      drawn = true;
    }
    const auto r = Rule::reserve(last, now_ms, bits, n, seen.forked);
    if (!Rule::ok(r)) [[unlikely]] {
      const detail::u128 exact = cell_.load();  // a torn guess must not refuse
      if (exact != last) {
        last = exact;
        continue;
      }
      Rule::refuse(r, last, n);
    }
    if (cell_.try_claim(last, r.last)) [[likely]] {
      if (seen.forked) fork_.adopt(seen.epoch);
      return r.first;
    }
    // Lost a race (or the guess was torn): last now holds the current state; same reading.
  }
}

template <class Rule, bool Shared>
typename Rule::Id MonotonicGenerator<Rule, Shared>::next() {
  return Rule::make(take(1));
}

template <class Rule, bool Shared>
void MonotonicGenerator<Rule, Shared>::next_batch(std::span<Id> out) {
  while (!out.empty()) {
    const std::size_t n = std::min(out.size(), kChunk);
    Rule::emit(out.first(n), take(n));
    out = out.subspan(n);
  }
}

}  // namespace idforge
