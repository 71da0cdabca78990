// The portable text kernels: the reference every vector path is tested and fuzzed against,
// and the path for CPUs without SSSE3 and for builds other than x86-64.
#include <cstring>

#include "text_kernels.hpp"

namespace idforge::detail {
namespace {

// ---------------------------------------------------------------------------------------
// UUID: hex

struct HexPairs {
  char pairs[256][2];
};
constexpr HexPairs make_hex_pairs() {
  HexPairs t{};
  for (int i = 0; i < 256; ++i) {
    t.pairs[i][0] = kHexDigits[i >> 4];
    t.pairs[i][1] = kHexDigits[i & 15];
  }
  return t;
}
constexpr HexPairs kHexPairs = make_hex_pairs();

// Decodes 2 * n hex digits at p into n bytes. Returns false if any digit is bad.
bool decode_hex(const char* p, std::size_t n, std::uint8_t* out) noexcept {
  std::uint8_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t hi = kHexValues.v[static_cast<unsigned char>(p[2 * i])];
    const std::uint8_t lo = kHexValues.v[static_cast<unsigned char>(p[2 * i + 1])];
    bad |= hi | lo;
    out[i] = static_cast<std::uint8_t>((hi << 4) | lo);
  }
  return (bad & 0xF0) == 0;
}

char* uuid_to_chars(const std::uint8_t* v, char* out) noexcept {
  for (std::size_t i = 0; i < 16; ++i) {
    std::memcpy(out, kHexPairs.pairs[v[i]], 2);
    out += 2;
    if (i == 3 || i == 5 || i == 7 || i == 9) *out++ = '-';
  }
  return out;
}

char* uuid_to_hex(const std::uint8_t* v, char* out) noexcept {
  for (std::size_t i = 0; i < 16; ++i) std::memcpy(out + 2 * i, kHexPairs.pairs[v[i]], 2);
  return out + 32;
}

bool uuid_from_chars(const char* p, std::uint8_t* v) noexcept {
  if (((p[8] ^ '-') | (p[13] ^ '-') | (p[18] ^ '-') | (p[23] ^ '-')) != 0) return false;
  char digits[32];
  std::memcpy(digits, p, 8);
  std::memcpy(digits + 8, p + 9, 4);
  std::memcpy(digits + 12, p + 14, 4);
  std::memcpy(digits + 16, p + 19, 4);
  std::memcpy(digits + 20, p + 24, 12);
  std::uint8_t b[16];
  if (!decode_hex(digits, 16, b)) return false;
  std::memcpy(v, b, 16);
  return true;
}

bool uuid_from_hex(const char* p, std::uint8_t* v) noexcept {
  std::uint8_t b[16];
  if (!decode_hex(p, 16, b)) return false;
  std::memcpy(v, b, 16);
  return true;
}

// ---------------------------------------------------------------------------------------
// ULID: Crockford base32, 10 characters of time (the first holds 3 bits) and 16 of randomness

std::uint64_t load_be64(const std::uint8_t* p) noexcept {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return v;
}

void store_be64(std::uint8_t* p, std::uint64_t v) noexcept {
  for (int i = 7; i >= 0; --i, v >>= 8) p[i] = static_cast<std::uint8_t>(v);
}

// Writes the N low 5-bit groups of v, most significant first. Every character is its own
// shift and lookup (no chain through v), so the CPU works on all of them at once.
template <int N>
void encode_groups(std::uint64_t v, char* out) noexcept {
  for (int i = 0; i < N; ++i) out[i] = kCrockford[(v >> (5 * (N - 1 - i))) & 31];
}

// Reads N characters as 5-bit groups; the OR of all lookups goes to bad.
template <int N>
std::uint64_t decode_groups(const char* p, std::uint8_t& bad) noexcept {
  std::uint64_t v = 0;
  std::uint8_t b = 0;
  for (int i = 0; i < N; ++i) {
    const std::uint8_t d = kBase32Values.v[static_cast<unsigned char>(p[i])];
    b |= d;
    v |= static_cast<std::uint64_t>(d & 31) << (5 * (N - 1 - i));
  }
  bad |= b;
  return v;
}

char* ulid_to_chars(const std::uint8_t* v, char* out) noexcept {
  const std::uint64_t h = load_be64(v), l = load_be64(v + 8);
  encode_groups<10>(h >> 16, out);                               // 48-bit time
  encode_groups<8>(((h & 0xFFFF) << 24) | (l >> 40), out + 10);  // random bits 79..40
  encode_groups<8>(l & 0xFF'FFFF'FFFFull, out + 18);             // random bits 39..0
  return out + 26;
}

bool ulid_from_chars(const char* p, std::uint8_t* v) noexcept {
  std::uint8_t bad = 0;
  // 10 characters of time (50 bits, of which the top 2 must be zero), then 2 x 8 characters
  // of 40 random bits each.
  const std::uint64_t time = decode_groups<10>(p, bad);
  const std::uint64_t r_hi = decode_groups<8>(p + 10, bad);
  const std::uint64_t r_lo = decode_groups<8>(p + 18, bad);
  if ((bad & 0x80) != 0 || (time >> 48) != 0) return false;
  store_be64(v, (time << 16) | (r_hi >> 24));
  store_be64(v + 8, (r_hi << 40) | r_lo);
  return true;
}

// ---------------------------------------------------------------------------------------
// Batches

template <WriteFn Write>
char* write_n(const Bytes16* values, std::size_t n, const char* sep, std::size_t sep_size,
              char* out) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    if (i != 0) {
      std::memcpy(out, sep, sep_size);
      out += sep_size;
    }
    out = Write(values[i].data(), out);
  }
  return out;
}

}  // namespace

const TextKernels kScalarTextKernels = {
    uuid_to_chars,          uuid_to_hex,          uuid_from_chars,
    uuid_from_hex,          ulid_to_chars,        ulid_from_chars,
    write_n<uuid_to_chars>, write_n<uuid_to_hex>, write_n<ulid_to_chars>,
};

}  // namespace idforge::detail
