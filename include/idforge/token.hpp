// Random tokens for secrets: password-reset links, API keys, invite URLs, session IDs.
//
// A token is nothing but bits from core's CSPRNG (random_fill: ChaCha20 keyed from
// getrandom(), see random.hpp), written in a URL-safe alphabet. It carries no time, no node
// and no counter, so one token says nothing about another or about when it was made. That is
// the difference from Snowflake, UUIDv7 and ULID, which begin with their creation time: seed
// 000's rule "never use Snowflake or UUID v7 for secrets" is why this exists.
//
//   base62     0-9A-Za-z; each character is one byte drawn below 248 (= 4 x 62) taken
//              modulo 62, so every character is uniform and carries log2 62 = 5.95 bits;
//              ceil(bits / 5.95) characters (256 bits: 43, 128 bits: 22).
//   base64url  RFC 4648 section 5 without padding over ceil(bits / 8) random bytes
//              (256 bits: 43 characters, 128 bits: 22): bits round up to whole bytes, so
//              129 bits gives 17 bytes = 136 bits in 23 characters.
//   Both round up, never down: base62 to whole characters, base64url to whole bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace idforge {

/// The alphabet a token is written in.
enum class TokenEncoding { base62, base64url };

/// Fewest and most bits a token may be asked for. 128 bits is the floor so that guessing a
/// live token stays hopeless even at billions of guesses a second for centuries.
inline constexpr unsigned kMinTokenBits = 128;
inline constexpr unsigned kMaxTokenBits = 4096;

/// What to make.
struct TokenOptions {
  unsigned bits = 256;  ///< entropy asked for; kMinTokenBits..kMaxTokenBits
  TokenEncoding encoding = TokenEncoding::base62;
};

/// "base62" or "base64url"; Error(errc::invalid_argument) naming the value and the two
/// choices otherwise ("base64" too: standard base64 would have '+' and '/').
TokenEncoding parse_token_encoding(std::string_view name);

/// Characters a token made with options has. Throws like random_token() for bad bits.
std::size_t token_length(const TokenOptions& options);

/// The entropy a token made with options carries, in bits (>= options.bits).
double token_entropy_bits(const TokenOptions& options);

/// A fresh random token. Throws Error(errc::invalid_argument) naming the value when bits is
/// outside kMinTokenBits..kMaxTokenBits. The random bytes used are wiped before it returns.
std::string random_token(const TokenOptions& options = {});

}  // namespace idforge
