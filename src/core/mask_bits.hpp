// The 122 bits of a UUIDv7 or v4 that are neither version nor variant (RFC 9562 §5.4,
// §5.7), shared by the v7_as_v4 masking and its public text. Private to idforge::core.
//
//   high: [48 bits][ver 4][12 bits]   low: [var 2][62 bits]
//   a = the top 61 of the 122 bits, b = the low 61 (the 122-bit network's halves, u = v = 61)
#pragma once

#include <cstdint>

#include "idforge/mask.hpp"

namespace idforge::detail {

inline constexpr std::uint64_t kLow61 = (std::uint64_t{1} << 61) - 1;
inline constexpr std::uint64_t kLow62 = (std::uint64_t{1} << 62) - 1;

/// The 122 free bits of u as the halves a, b.
inline void split122(const MaskValue& u, std::uint64_t& a, std::uint64_t& b) noexcept {
  const std::uint64_t hi60 = (u.high >> 16) << 12 | (u.high & 0xFFF);
  const std::uint64_t lo62 = u.low & kLow62;
  a = hi60 << 1 | lo62 >> 61;
  b = lo62 & kLow61;
}

/// The UUID of version `version`, RFC 9562 variant, whose free bits are a, b.
inline MaskValue join122(std::uint64_t a, std::uint64_t b, unsigned version) noexcept {
  const std::uint64_t hi60 = a >> 1;
  const std::uint64_t lo62 = (a & 1) << 61 | b;
  return {(hi60 >> 12) << 16 | std::uint64_t{version} << 12 | (hi60 & 0xFFF),
          std::uint64_t{0b10} << 62 | lo62};
}

/// True when u has this version and the RFC 9562 variant (0b10).
inline bool is_rfc_version(const MaskValue& u, unsigned version) noexcept {
  return ((u.high >> 12) & 0xF) == version && (u.low >> 62) == 0b10;
}

}  // namespace idforge::detail
