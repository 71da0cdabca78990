#include "idforge/ksuid.hpp"

#include "idforge/error.hpp"
#include "idforge/random.hpp"
#include "idforge/time_format.hpp"

namespace idforge {
namespace {

constexpr char kAlphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
// Base62 works on 32-bit limbs five digits at a time: 62^5 < 2^32, so one pass of long
// division (or multiply-add) over the limbs moves five digits with 64-bit arithmetic only.
constexpr std::uint64_t k62Pow5 = 62ull * 62 * 62 * 62 * 62;  // 916132832
constexpr int kLimbs = 5;                                     // 160 bits

struct Base62Values {
  std::uint8_t v[256];
};
constexpr Base62Values make_values() {
  Base62Values t{};
  for (int i = 0; i < 256; ++i) t.v[i] = 0xFF;
  for (int i = 0; i < 62; ++i)
    t.v[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::uint8_t>(i);
  return t;
}
constexpr Base62Values kValues = make_values();

}  // namespace

ParseStatus parse_ksuid(std::string_view text, Ksuid& out) noexcept {
  if (text.size() != Ksuid::kTextSize)
    return {text.size() < Ksuid::kTextSize ? text.size() : Ksuid::kTextSize,
            "a KSUID is exactly 27 base62 characters (0-9, A-Z, a-z)"};
  for (std::size_t i = 0; i < text.size(); ++i)
    if (kValues.v[static_cast<unsigned char>(text[i])] == 0xFF)
      return {i, "expected a base62 character (0-9, A-Z, a-z)"};
  // 27 digits = 2 + 5 x 5: limbs = limbs * 62^k + chunk, watching the carry out of the top.
  std::uint32_t limb[kLimbs] = {};
  std::size_t at = 0;
  for (int chunk_size : {2, 5, 5, 5, 5, 5}) {
    std::uint64_t chunk = 0, scale = 1;
    for (int j = 0; j < chunk_size; ++j, ++at) {
      chunk = chunk * 62 + kValues.v[static_cast<unsigned char>(text[at])];
      scale *= 62;
    }
    std::uint64_t carry = chunk;
    for (int k = kLimbs - 1; k >= 0; --k) {
      const std::uint64_t x = limb[k] * scale + carry;
      limb[k] = static_cast<std::uint32_t>(x);
      carry = x >> 32;
    }
    if (carry != 0)
      return {0, "value exceeds 160 bits (the largest KSUID is aWgEPTl1tmebfsQzFP4bxwgy80V)"};
  }
  Ksuid::Bytes b;
  for (int k = 0; k < kLimbs; ++k)
    for (int j = 0; j < 4; ++j) b[4 * k + j] = static_cast<std::uint8_t>(limb[k] >> (24 - 8 * j));
  out = Ksuid(b);
  return {};
}

Ksuid Ksuid::parse(std::string_view text) {
  Ksuid k;
  const ParseStatus st = parse_ksuid(text, k);
  if (!st.ok()) throw ParseError("KSUID", text, st.position, st.reason);
  return k;
}

std::optional<Ksuid> Ksuid::try_parse(std::string_view text) noexcept {
  Ksuid k;
  if (!parse_ksuid(text, k).ok()) return std::nullopt;
  return k;
}

char* Ksuid::to_chars(char* out) const noexcept {
  std::uint32_t limb[kLimbs];
  for (int k = 0; k < kLimbs; ++k)
    limb[k] = (std::uint32_t{bytes_[4 * k]} << 24) | (std::uint32_t{bytes_[4 * k + 1]} << 16) |
              (std::uint32_t{bytes_[4 * k + 2]} << 8) | bytes_[4 * k + 3];
  // Six passes of division by 62^5 yield 30 digits, the last (most significant) three of
  // which are zero for every 160-bit value: 2^160 < 62^27.
  char digits[30];
  for (int pass = 0; pass < 6; ++pass) {
    std::uint64_t rem = 0;
    for (int k = 0; k < kLimbs; ++k) {
      const std::uint64_t x = (rem << 32) | limb[k];
      limb[k] = static_cast<std::uint32_t>(x / k62Pow5);
      rem = x % k62Pow5;
    }
    for (int j = 0; j < 5; ++j) {
      digits[29 - 5 * pass - j] = kAlphabet[rem % 62];
      rem /= 62;
    }
  }
  for (std::size_t i = 0; i < kTextSize; ++i) out[i] = digits[3 + i];
  return out + kTextSize;
}

std::string Ksuid::to_string() const {
  std::string s(kTextSize, '\0');
  to_chars(s.data());
  return s;
}

Ksuid compose_ksuid(std::int64_t unix_seconds, const Ksuid::Payload& payload) {
  const std::int64_t t = unix_seconds - Ksuid::kEpochUnixSeconds;
  if (t < 0)
    throw Error(errc::clock_before_epoch, "KSUID: time " + format_iso8601_ms(unix_seconds * 1000) +
                                              " is before the KSUID epoch 2014-05-13T16:53:20Z");
  if (t > 0xFFFF'FFFFll)
    throw Error(errc::time_exhausted,
                "KSUID: time " + format_iso8601_ms(unix_seconds * 1000) +
                    " is past the 32-bit timestamp's end, 2150-06-19T23:21:35Z");
  return Ksuid::from_parts(static_cast<std::uint32_t>(t), payload);
}

Ksuid new_ksuid(Clock& clock) {
  const std::int64_t ns = clock.now_ns();
  // Floor division: a clock before 1970 still lands in the right (refused) second.
  const std::int64_t s = ns >= 0 ? ns / 1'000'000'000 : -((-ns + 999'999'999) / 1'000'000'000);
  Ksuid::Payload payload;
  random_fill(payload.data(), payload.size());
  return compose_ksuid(s, payload);
}

}  // namespace idforge
