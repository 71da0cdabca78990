#include "idforge/public_id.hpp"

#include <array>
#include <cstdint>
#include <cstring>

#include "idforge/detail/dihedral_check.hpp"
#include "mask_bits.hpp"

namespace idforge {
namespace {

__extension__ using u128 = unsigned __int128;

constexpr std::size_t kTagDigits = 3;

struct Alphabet {
  const char* chars;
  unsigned size;
  detail::DihedralCheck check;
  std::array<std::int8_t, 256> digit;  // -1 outside the alphabet

  constexpr Alphabet(const char* c, unsigned n) : chars(c), size(n), check(n), digit{} {
    for (auto& d : digit) d = -1;
    for (unsigned i = 0; i < n; ++i)
      digit[static_cast<unsigned char>(c[i])] = static_cast<std::int8_t>(i);
  }
};

constexpr Alphabet kBase58("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz", 58);
constexpr Alphabet kBase62("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 62);

// x / size, x % size and x % size^3 for the two alphabet sizes, each branch dividing by a
// constant (a multiply and a shift rather than a divide instruction).
constexpr std::uint64_t div_a(std::uint64_t x, unsigned size) noexcept {
  return size == 58 ? x / 58 : x / 62;
}
constexpr unsigned mod_a(std::uint64_t x, unsigned size) noexcept {
  return static_cast<unsigned>(size == 58 ? x % 58 : x % 62);
}
constexpr std::uint64_t mod_tag(std::uint64_t x, unsigned size) noexcept {
  return size == 58 ? x % (58 * 58 * 58) : x % (62 * 62 * 62);
}

const Alphabet& alphabet_of(PublicAlphabet a) noexcept {
  return a == PublicAlphabet::base62 ? kBase62 : kBase58;
}

constexpr std::size_t body_digits(MaskMode mode) noexcept {
  return public_id_size(mode) - kTagDigits - 2;
}

// The number a body encodes: u63 as is, u128 as 128 bits, v7_as_v4 as the 122 free bits.
u128 body_number(MaskMode mode, const MaskValue& masked) noexcept {
  if (mode == MaskMode::v7_as_v4) {
    std::uint64_t a, b;
    detail::split122(masked, a, b);
    return u128{a} << 61 | b;
  }
  return u128{masked.high} << 64 | masked.low;
}

// Inverse of body_number; false when n is no masked value of mode (too large, or 0 for u63).
bool masked_of(MaskMode mode, u128 n, MaskValue& out) noexcept {
  switch (mode) {
    case MaskMode::u63:
      if (n == 0 || n > kMaskMaxU63) return false;
      out = {0, static_cast<std::uint64_t>(n)};
      return true;
    case MaskMode::u128:
      out = {static_cast<std::uint64_t>(n >> 64), static_cast<std::uint64_t>(n)};
      return true;
    case MaskMode::v7_as_v4:
      if (n >> 122) return false;
      out = detail::join122(static_cast<std::uint64_t>(n >> 61),
                            static_cast<std::uint64_t>(n) & detail::kLow61, 4);
      return true;
  }
  return false;
}

// Writes n as `count` base-A digits at d, most significant first. 128-bit division is a
// library call, so it runs once per 10 digits (A^10 < 2^63) and the rest is 64-bit
// arithmetic by a constant (a multiply, not a divide).
template <unsigned A>
void write_digits(u128 n, std::uint8_t* d, std::size_t count) noexcept {
  constexpr std::uint64_t kChunk = [] {
    std::uint64_t c = 1;
    for (int k = 0; k < 10; ++k) c *= A;
    return c;
  }();
  std::size_t i = count;
  while (i > 0) {
    std::uint64_t chunk;
    std::size_t take = i;
    if (n >> 64) {
      chunk = static_cast<std::uint64_t>(n % kChunk);
      n /= kChunk;
      take = 10;
    } else {
      chunk = static_cast<std::uint64_t>(n);
      n = 0;
    }
    for (std::size_t k = 0; k < take && i > 0; ++k) {
      d[--i] = static_cast<std::uint8_t>(chunk % A);
      chunk /= A;
    }
  }
}

void write_digits(u128 n, const Alphabet& a, std::uint8_t* d, std::size_t count) noexcept {
  if (a.size == 58)
    write_digits<58>(n, d, count);
  else
    write_digits<62>(n, d, count);
}

bool mode_of_length(std::size_t n, MaskMode& mode) noexcept {
  for (MaskMode m : {MaskMode::u63, MaskMode::u128, MaskMode::v7_as_v4}) {
    if (public_id_size(m) == n) {
      mode = m;
      return true;
    }
  }
  return false;
}

// A public ID is at most 27 characters; a longer input is cut so a message stays a line.
std::string shown(std::string_view text) {
  return text.size() <= 64 ? std::string(text) : std::string(text.substr(0, 64)) + "...";
}

std::string quoted(std::string_view text) {
  return "'" + shown(text) + "'";
}

std::string parse_reason(const PublicIdStatus& status, std::string_view text,
                         PublicAlphabet alphabet) {
  switch (status.fault) {
    case MaskFault::bad_length:
      return std::to_string(text.size()) +
             " characters; a public ID has 16 (u63), 26 (v7) or 27 (u128)";
    case MaskFault::bad_character: {
      // One byte of the input: printable ASCII as itself, any other as \xNN, since a raw NUL
      // would end a C caller's message and a lone byte of a UTF-8 sequence is not text.
      const auto c = static_cast<unsigned char>(text[status.position]);
      static constexpr char kHex[] = "0123456789abcdef";
      const std::string ch = c >= 0x20 && c < 0x7f
                                 ? std::string(1, static_cast<char>(c))
                                 : std::string{'\\', 'x', kHex[c >> 4], kHex[c & 0xf]};
      return "'" + ch + "' is not a " + to_string(alphabet) + " character";
    }
    case MaskFault::mistyped:
      return std::string(
                 "the check character does not match: a character is mistyped or two are swapped") +
             " (or it is a " + (alphabet == PublicAlphabet::base58 ? "base62" : "base58") +
             " ID read as " + to_string(alphabet) + ")";
    default:
      return to_string(status.fault);
  }
}

}  // namespace

const char* to_string(PublicAlphabet alphabet) noexcept {
  return alphabet == PublicAlphabet::base62 ? "base62" : "base58";
}

PublicAlphabet parse_public_alphabet(std::string_view name) {
  if (name == "base58") return PublicAlphabet::base58;
  if (name == "base62") return PublicAlphabet::base62;
  throw ParseError("public ID alphabet", name, 0, "expected base58 or base62");
}

MaskFault write_public_id(const MaskKey& key, MaskMode mode, MaskValue value,
                          PublicAlphabet alphabet, char* out) noexcept {
  MaskValue masked;
  if (const MaskFault f = key.mask(mode, value, masked); f != MaskFault::ok) return f;
  const Alphabet& a = alphabet_of(alphabet);
  const std::size_t body = body_digits(mode), size = public_id_size(mode);
  std::uint8_t d[kMaxPublicIdSize];
  write_digits(body_number(mode, masked), a, d, body);
  std::uint64_t t = mod_tag(key.tag(mode, masked), a.size);
  const unsigned key_digit = mod_a(key.id() + t, a.size);
  for (std::size_t i = body + kTagDigits; i-- > body;) {
    d[i] = static_cast<std::uint8_t>(mod_a(t, a.size));
    t = div_a(t, a.size);
  }
  d[size - 2] = static_cast<std::uint8_t>(key_digit);
  d[size - 1] = static_cast<std::uint8_t>(a.check.check_digit(d, size - 1));
  for (std::size_t i = 0; i < size; ++i) out[i] = a.chars[d[i]];
  return MaskFault::ok;
}

std::string to_public_id(const MaskKey& key, MaskMode mode, MaskValue value,
                         PublicAlphabet alphabet) {
  char buf[kMaxPublicIdSize];
  const MaskFault f = write_public_id(key, mode, value, alphabet, buf);
  if (f == MaskFault::ok) return std::string(buf, public_id_size(mode));
  const std::string shown = mode == MaskMode::u63 && value.high == 0 ? std::to_string(value.low)
                                                                     : value.to_uuid().to_string();
  throw Error(to_errc(f), std::string("cannot make a ") + to_string(mode) + " public ID of " +
                              shown + ": " + to_string(f));
}

PublicIdStatus read_public_id(const MaskKeyring& keys, std::string_view text,
                              PublicAlphabet alphabet, PublicIdInfo& out) noexcept {
  MaskMode mode;
  if (!mode_of_length(text.size(), mode)) return {MaskFault::bad_length, text.size()};
  const Alphabet& a = alphabet_of(alphabet);
  const std::size_t size = text.size(), body = body_digits(mode);
  std::uint8_t d[kMaxPublicIdSize];
  for (std::size_t i = 0; i < size; ++i) {
    const int v = a.digit[static_cast<unsigned char>(text[i])];
    if (v < 0) return {MaskFault::bad_character, i};
    d[i] = static_cast<std::uint8_t>(v);
  }
  if (!a.check.valid(d, size)) return {MaskFault::mistyped, size - 1};

  PublicIdInfo info;
  info.mode = mode;
  u128 n = 0;
  const u128 limit = ~u128{0};
  for (std::size_t i = 0; i < body; ++i) {
    if (n > (limit - d[i]) / a.size) return {MaskFault::not_ours, 0};  // beyond 128 bits
    n = n * a.size + d[i];
  }
  if (!masked_of(mode, n, info.masked)) return {MaskFault::not_ours, 0};
  std::uint64_t t = 0;
  for (std::size_t i = body; i < body + kTagDigits; ++i) t = t * a.size + d[i];
  info.key_id = mod_a(d[size - 2] + a.size - mod_a(t, a.size), a.size);
  out = info;  // mode, key ID and masked value, also for the two faults below
  const MaskKey* key = keys.find(info.key_id);
  if (!key) return {MaskFault::unknown_key, size - 2};
  if (mod_tag(key->tag(mode, info.masked), a.size) != t) return {MaskFault::not_ours, body};
  if (key->unmask(mode, info.masked, out.value) != MaskFault::ok) return {MaskFault::not_ours, 0};
  return {};
}

std::string public_id_message(const PublicIdStatus& status, std::string_view text,
                              PublicAlphabet alphabet, const MaskKeyring& keys,
                              const PublicIdInfo& info) {
  if (to_errc(status.fault) == errc::parse_error)
    return ParseError("public ID", shown(text), status.position,
                      parse_reason(status, text, alphabet))
        .what();
  const std::string key_text = "mask key " + std::to_string(info.key_id);
  switch (status.fault) {
    case MaskFault::unknown_key:
      return "public ID " + quoted(text) + " names " + key_text + ", which the keyring from " +
             keys.source() + " does not hold (it holds " + keys.ids_text() + ")";
    case MaskFault::not_ours:
      return "public ID " + quoted(text) + " was not made with " +
             (keys.find(info.key_id) ? key_text + " of the keyring from " + keys.source()
                                     : std::string("any key")) +
             ": its keyed check does not match (another secret under that key ID, or not one of "
             "ours)";
    default:
      return "public ID " + quoted(text) + ": " + to_string(status.fault);
  }
}

PublicIdInfo parse_public_id(const MaskKeyring& keys, std::string_view text,
                             PublicAlphabet alphabet) {
  PublicIdInfo info;
  const PublicIdStatus s = read_public_id(keys, text, alphabet, info);
  if (s.ok()) return info;
  if (to_errc(s.fault) == errc::parse_error)
    throw ParseError("public ID", shown(text), s.position, parse_reason(s, text, alphabet));
  throw Error(to_errc(s.fault), public_id_message(s, text, alphabet, keys, info));
}

}  // namespace idforge
