// Feistel: a keyed permutation of w-bit values (2 <= w <= 128), the engine under masking
// (idforge/mask.hpp). The construction is the one NIST SP 800-38G uses for FF1 on a binary
// string, with libsodium's SipHash-2-4 in place of FF1's AES-CBC-MAC as the round function:
//
//   x = A || B              A: the u = floor(w/2) high bits, B: the v = w - u low bits
//   round i (0..9):         m = u if i is even, else v
//                           C = A xor (F_i(B) mod 2^m);  A <- B;  B <- C
//   after 10 rounds         y = A || B  (an even round count leaves A with u bits again)
//
//   F_i(x) = SipHash-2-4(K_i, x as ceil(bits(x)/8) little-endian bytes)   (crypto_shorthash)
//   K_i    = crypto_kdf_derive_from_key(16 bytes, id = 1<<32 | w<<8 | i, "idforgem", secret)
//
// Each round is invertible given the key, so the whole is a bijection on [0, 2^w) for any
// round function; the keys of different widths and rounds are independent (the KDF input
// differs), so the 16- and 20-bit networks the tests walk exhaustively run this same code
// under keys unrelated to the 63-, 122- and 128-bit ones. Why 10 rounds: docs/PUBLIC-IDS.md.
//
// Constant time: XOR, shifts and SipHash, no table lookups and no branch on the value.
#pragma once

#include <cstddef>
#include <cstdint>

namespace idforge::detail {

/// Rounds of every Feistel network in idforge (FF1 uses 10; see docs/PUBLIC-IDS.md).
inline constexpr int kFeistelRounds = 10;
/// Bytes of the master secret the round keys are derived from.
inline constexpr std::size_t kFeistelSecretBytes = 32;

class Feistel {
 public:
  /// Derives the round keys of the width-bit network from a 32-byte secret. Throws
  /// Error(errc::invalid_argument) for a width outside 2..128.
  Feistel(const unsigned char (&secret)[kFeistelSecretBytes], unsigned width);
  Feistel(const Feistel&) = default;
  Feistel& operator=(const Feistel&) = default;
  /// Wipes the round keys.
  ~Feistel();

  /// Domain width w in bits.
  unsigned width() const noexcept { return u_ + v_; }
  /// Bits of the high part A (u = floor(w/2)); the low part B has width() - left_bits().
  unsigned left_bits() const noexcept { return u_; }

  /// Enciphers the value whose high part is a (u bits) and low part b (v bits), in place.
  /// Bits above a part's width must be zero.
  void encrypt(std::uint64_t& a, std::uint64_t& b) const noexcept;
  /// Inverse of encrypt().
  void decrypt(std::uint64_t& a, std::uint64_t& b) const noexcept;
  /// encrypt() on a value below 2^w, for w <= 64.
  std::uint64_t encrypt(std::uint64_t x) const noexcept;
  /// decrypt() on a value below 2^w, for w <= 64.
  std::uint64_t decrypt(std::uint64_t x) const noexcept;

 private:
  // F_round(x) reduced to out_bits, where x has in_bits.
  std::uint64_t round_function(int round, std::uint64_t x, unsigned in_bits,
                               unsigned out_bits) const noexcept;

  unsigned u_ = 0, v_ = 0;
  unsigned char keys_[kFeistelRounds][16] = {};
};

/// Subkey id of crypto_kdf_derive_from_key for the key that tags public IDs; the round keys
/// use 1<<32 | width<<8 | round (above).
inline constexpr std::uint64_t kTagSubkeyId = std::uint64_t{2} << 32;

/// A 16-byte subkey of secret: crypto_kdf_derive_from_key (BLAKE2b) with context "idforgem".
void derive_subkey(unsigned char (&out)[16], std::uint64_t id,
                   const unsigned char (&secret)[kFeistelSecretBytes]) noexcept;

/// The permutation restricted to [1, 2^w): cycle-walks past 0, so a positive value always
/// masks to a positive value (0 stays out: many schemas read 0 as "no ID"). One input of
/// the 2^w - 1 takes a second pass. x must be in [1, 2^w), w <= 64.
std::uint64_t encrypt_positive(const Feistel& f, std::uint64_t x) noexcept;
/// Inverse of encrypt_positive().
std::uint64_t decrypt_positive(const Feistel& f, std::uint64_t y) noexcept;

}  // namespace idforge::detail
