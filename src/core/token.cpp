#include "idforge/token.hpp"

#include <sodium.h>

#include <array>
#include <cmath>
#include <vector>

#include "idforge/error.hpp"
#include "idforge/random.hpp"

namespace idforge {
namespace {

constexpr char kBase62[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
// Bytes at or above 248 are drawn again: 248 = 4 x 62, so b % 62 is uniform below it.
constexpr unsigned kBase62Limit = 248;

void check_bits(unsigned bits) {
  if (bits < kMinTokenBits || bits > kMaxTokenBits)
    throw Error(errc::invalid_argument,
                "token bits " + std::to_string(bits) + ": must be " +
                    std::to_string(kMinTokenBits) + ".." + std::to_string(kMaxTokenBits) +
                    (bits < kMinTokenBits ? " (fewer than 128 random bits can be guessed)"
                                          : " (a token is a secret, not a payload)"));
}

std::size_t base64url_bytes(unsigned bits) {
  return (bits + 7) / 8;
}

}  // namespace

TokenEncoding parse_token_encoding(std::string_view name) {
  if (name == "base62") return TokenEncoding::base62;
  if (name == "base64url") return TokenEncoding::base64url;
  // "base64" is refused, not read as base64url: whoever asks for standard base64 (RFC 4648
  // section 4) expects '+' and '/', and would get '-' and '_' without a word.
  std::string msg = "unknown token encoding '" + std::string(name) + "': use base62 or base64url";
  if (name == "base64")
    msg += " (standard base64 is not offered: its '+' and '/' need escaping in URLs)";
  throw Error(errc::invalid_argument, msg);
}

std::size_t token_length(const TokenOptions& o) {
  check_bits(o.bits);
  if (o.encoding == TokenEncoding::base64url) return (base64url_bytes(o.bits) * 8 + 5) / 6;
  return static_cast<std::size_t>(std::ceil(o.bits / std::log2(62.0)));
}

double token_entropy_bits(const TokenOptions& o) {
  const std::size_t n = token_length(o);
  if (o.encoding == TokenEncoding::base64url)
    return 8.0 * static_cast<double>(base64url_bytes(o.bits));
  return static_cast<double>(n) * std::log2(62.0);
}

std::string random_token(const TokenOptions& o) {
  const std::size_t n = token_length(o);
  if (o.encoding == TokenEncoding::base64url) {
    std::vector<unsigned char> bytes(base64url_bytes(o.bits));
    random_fill(bytes.data(), bytes.size());
    std::string out(
        sodium_base64_ENCODED_LEN(bytes.size(), sodium_base64_VARIANT_URLSAFE_NO_PADDING), '\0');
    sodium_bin2base64(out.data(), out.size(), bytes.data(), bytes.size(),
                      sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    sodium_memzero(bytes.data(), bytes.size());
    out.resize(n);  // the encoder counts its terminating NUL
    return out;
  }
  std::string out;
  out.reserve(n);
  std::array<unsigned char, 64> pool{};
  while (out.size() < n) {
    random_fill(pool.data(), pool.size());
    for (unsigned char b : pool)
      if (b < kBase62Limit && out.size() < n) out += kBase62[b % 62];
  }
  sodium_memzero(pool.data(), pool.size());
  return out;
}

}  // namespace idforge
