#include "idforge/detail/feistel.hpp"

#include <sodium.h>

#include <bit>
#include <cstring>
#include <string>

#include "idforge/error.hpp"

namespace idforge::detail {
namespace {

// crypto_kdf context: 8 bytes that separate idforge's subkeys from any other use of a key.
constexpr char kKdfContext[crypto_kdf_CONTEXTBYTES] = {'i', 'd', 'f', 'o', 'r', 'g', 'e', 'm'};
static_assert(crypto_shorthash_KEYBYTES == 16 && crypto_shorthash_BYTES == 8);
static_assert(crypto_kdf_BYTES_MIN <= 16 && crypto_kdf_KEYBYTES == kFeistelSecretBytes);

constexpr std::uint64_t low_mask(unsigned bits) noexcept {
  return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

}  // namespace

Feistel::Feistel(const unsigned char (&secret)[kFeistelSecretBytes], unsigned width) {
  if (width < 2 || width > 128)
    throw Error(errc::invalid_argument,
                "Feistel width " + std::to_string(width) + ": must be from 2 to 128 bits");
  if (sodium_init() < 0) throw Error(errc::invalid_argument, "libsodium failed to initialise");
  u_ = width / 2;
  v_ = width - u_;
  for (int i = 0; i < kFeistelRounds; ++i) {
    const std::uint64_t id =
        std::uint64_t{1} << 32 | std::uint64_t{width} << 8 | static_cast<std::uint64_t>(i);
    derive_subkey(keys_[i], id, secret);
  }
}

void derive_subkey(unsigned char (&out)[16], std::uint64_t id,
                   const unsigned char (&secret)[kFeistelSecretBytes]) noexcept {
  crypto_kdf_derive_from_key(out, sizeof out, id, kKdfContext, secret);
}

Feistel::~Feistel() {
  sodium_memzero(keys_, sizeof keys_);
}

std::uint64_t Feistel::round_function(int round, std::uint64_t x, unsigned in_bits,
                                      unsigned out_bits) const noexcept {
  // Little-endian bytes, only as many as the part has: a 31- or 32-bit part is 4 bytes,
  // which SipHash takes in its final block alone (6 SipRounds rather than 8).
  unsigned char in[8];
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(in, &x, 8);
  } else {
    for (int k = 0; k < 8; ++k) in[k] = static_cast<unsigned char>(x >> (8 * k));
  }
  unsigned char out[8];
  crypto_shorthash_siphash24(out, in, (in_bits + 7) / 8, keys_[round]);
  std::uint64_t y;
  std::memcpy(&y, out, 8);
  if constexpr (std::endian::native == std::endian::big) y = __builtin_bswap64(y);
  return y & low_mask(out_bits);
}

void Feistel::encrypt(std::uint64_t& a, std::uint64_t& b) const noexcept {
  for (int i = 0; i < kFeistelRounds; ++i) {
    // Even rounds: B has v bits and the new part u; odd rounds the other way round.
    const bool even = (i & 1) == 0;
    const unsigned in_bits = even ? v_ : u_, out_bits = even ? u_ : v_;
    const std::uint64_t c = a ^ round_function(i, b, in_bits, out_bits);
    a = b;
    b = c;
  }
}

void Feistel::decrypt(std::uint64_t& a, std::uint64_t& b) const noexcept {
  for (int i = kFeistelRounds - 1; i >= 0; --i) {
    const bool even = (i & 1) == 0;
    const unsigned in_bits = even ? v_ : u_, out_bits = even ? u_ : v_;
    // (A, B) = (B_prev, A_prev xor F(B_prev))  =>  B_prev = A, A_prev = B xor F(A)
    const std::uint64_t prev_a = b ^ round_function(i, a, in_bits, out_bits);
    b = a;
    a = prev_a;
  }
}

std::uint64_t Feistel::encrypt(std::uint64_t x) const noexcept {
  std::uint64_t a = x >> v_, b = x & low_mask(v_);
  encrypt(a, b);
  return a << v_ | b;
}

std::uint64_t Feistel::decrypt(std::uint64_t x) const noexcept {
  std::uint64_t a = x >> v_, b = x & low_mask(v_);
  decrypt(a, b);
  return a << v_ | b;
}

std::uint64_t encrypt_positive(const Feistel& f, std::uint64_t x) noexcept {
  // Cycle walking (Black and Rogaway, 2002): the one x whose image is 0 takes the image of 0,
  // which is not 0 because 0 is already the image of x.
  const std::uint64_t y = f.encrypt(x);
  return y != 0 ? y : f.encrypt(y);
}

std::uint64_t decrypt_positive(const Feistel& f, std::uint64_t y) noexcept {
  const std::uint64_t x = f.decrypt(y);
  return x != 0 ? x : f.decrypt(x);
}

}  // namespace idforge::detail
