// DihedralCheck: the check character of a public ID, a Verhoeff scheme over the dihedral
// group D_n for an alphabet of 2n characters (n odd: D_29 for base58, D_31 for base62).
//
// Verhoeff (1969) and Gumm (1985): with digits d_0..d_L (d_L the check) read as elements
// of a group G and a permutation sigma of G, the text is valid when
//   sigma^0(d_0) * sigma^1(d_1) * ... * sigma^L(d_L) = e.
// Any one changed character changes one factor, so the product moves: every single
// substitution is caught. Swapping neighbours x != y is caught when
//   a * sigma(b) != b * sigma(a)   for all a != b,
// which holds in D_n, n odd, for sigma(r^i) = s r^i, sigma(s r^i) = r^(1-i) (tests check it
// over all pairs). A sum modulo 58 or 62 could not promise the second: both are even, and
// ISO 7064's hybrid MOD 59,58 misses about 1 in 1,600 swaps.
//
// Elements: digit d < n is the rotation r^d; digit d >= n is the reflection s r^(d-n).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace idforge::detail {

class DihedralCheck {
 public:
  /// Longest text (check included) whose powers of sigma come from a table.
  static constexpr std::size_t kTablePowers = 32;
  /// Largest alphabet.
  static constexpr unsigned kMaxSize = 64;

  /// For an alphabet of `size` characters; size = 2n with n odd and size <= 64 (58 and 62
  /// qualify).
  constexpr explicit DihedralCheck(unsigned size) noexcept : n_(size / 2) {
    for (unsigned a = 0; a < 2 * n_; ++a)
      for (unsigned b = 0; b < 2 * n_; ++b)
        table_[a][b] = static_cast<std::uint8_t>(multiply(a, b));
    for (unsigned d = 0; d < 2 * n_; ++d) {
      unsigned x = d;
      unsigned y = d;
      for (std::size_t k = 0; k < kTablePowers; ++k, x = sigma(x), y = sigma_inverse(y)) {
        powers_[k][d] = static_cast<std::uint8_t>(x);
        inverse_powers_[k][d] = static_cast<std::uint8_t>(y);
      }
    }
  }

  /// The group product a * b.
  constexpr unsigned multiply(unsigned a, unsigned b) const noexcept {
    // (s^f r^i)(s^g r^j) = s^(f+g) r^((g ? -i : i) + j), since r^i s = s r^-i. Operands are
    // below 2n, so "mod n" is one conditional subtraction (no division on the hot path).
    const bool f = a >= n_, g = b >= n_;
    const unsigned i = f ? a - n_ : a, j = g ? b - n_ : b;
    unsigned k = (g ? (i == 0 ? 0 : n_ - i) : i) + j;
    if (k >= n_) k -= n_;
    return (f != g ? n_ : 0) + k;
  }
  /// The inverse of a: rotations invert their angle, reflections are their own inverse.
  constexpr unsigned inverse(unsigned a) const noexcept { return a >= n_ || a == 0 ? a : n_ - a; }
  /// sigma(r^i) = s r^i, sigma(s r^i) = r^(1-i).
  constexpr unsigned sigma(unsigned d) const noexcept {
    return d < n_ ? n_ + d : (n_ + 1 - (d - n_)) % n_;
  }
  /// sigma^-1.
  constexpr unsigned sigma_inverse(unsigned d) const noexcept {
    if (d >= n_) return d - n_;
    const unsigned i = n_ + 1 - d;  // 2..n+1
    return n_ + (i >= n_ ? i - n_ : i);
  }
  /// sigma applied k times.
  constexpr unsigned sigma_pow(unsigned d, std::size_t k) const noexcept {
    if (k < kTablePowers) return powers_[k][d];
    for (; k > 0; --k) d = sigma(d);
    return d;
  }

  /// The check digit for digits[0..len): the d_L that makes the product e.
  constexpr unsigned check_digit(const std::uint8_t* digits, std::size_t len) const noexcept {
    const unsigned p = product(digits, len);
    // p * sigma^L(c) = e  =>  c = sigma^-L(p^-1)
    unsigned c = inverse(p);
    if (len < kTablePowers) return inverse_powers_[len][c];
    for (std::size_t k = 0; k < len; ++k) c = sigma_inverse(c);
    return c;
  }
  /// True when digits[0..len) end in their check digit.
  constexpr bool valid(const std::uint8_t* digits, std::size_t len) const noexcept {
    return len > 0 && product(digits, len) == 0;
  }

 private:
  constexpr unsigned product(const std::uint8_t* digits, std::size_t len) const noexcept {
    unsigned p = 0;  // e = r^0
    // Table lookups: the branches of multiply() mispredict on random digits.
    for (std::size_t k = 0; k < len; ++k) p = table_[p][sigma_pow(digits[k], k)];
    return p;
  }

  unsigned n_;
  std::array<std::array<std::uint8_t, kMaxSize>, kMaxSize> table_{};
  std::array<std::array<std::uint8_t, kMaxSize>, kTablePowers> powers_{};
  std::array<std::array<std::uint8_t, kMaxSize>, kTablePowers> inverse_powers_{};
};

}  // namespace idforge::detail
