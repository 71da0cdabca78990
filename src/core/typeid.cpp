#include "idforge/typeid.hpp"

#include <cstring>

#include "idforge/error.hpp"

namespace idforge {
namespace {

constexpr char kAlphabet[] = "0123456789abcdefghjkmnpqrstvwxyz";

// Value of a suffix character, 0xFF outside the strict lowercase alphabet. OR-ing lookups
// and testing 0x80 finds any bad character without a branch per character.
struct SuffixValues {
  std::uint8_t v[256];
};
constexpr SuffixValues make_values() {
  SuffixValues t{};
  for (int i = 0; i < 256; ++i) t.v[i] = 0xFF;
  for (int i = 0; i < 32; ++i)
    t.v[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::uint8_t>(i);
  return t;
}
constexpr SuffixValues kValues = make_values();

inline void encode_groups(std::uint64_t v, int n, char* out) noexcept {
  for (int i = n - 1; i >= 0; --i) {
    out[i] = kAlphabet[v & 31];
    v >>= 5;
  }
}

inline std::uint64_t decode_groups(const char* p, int n, std::uint8_t& bad) noexcept {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) {
    const std::uint8_t d = kValues.v[static_cast<unsigned char>(p[i])];
    bad |= d;
    v = (v << 5) | (d & 31);
  }
  return v;
}

const char* bad_suffix_char(char c) noexcept {
  if (c >= 'A' && c <= 'Z') return "the suffix is lowercase only (0-9, a-z except i, l, o, u)";
  if (c == 'i' || c == 'l' || c == 'o' || c == 'u')
    return "'i', 'l', 'o' and 'u' are not in the suffix alphabet (no Crockford aliases)";
  return "expected a suffix character (0-9, a-z except i, l, o, u)";
}

}  // namespace

ParseStatus check_typeid_prefix(std::string_view prefix) noexcept {
  if (prefix.size() > TypeId::kMaxPrefixSize)
    return {TypeId::kMaxPrefixSize, "a prefix has at most 63 characters"};
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    const char c = prefix[i];
    if (c == '_') continue;
    if (c < 'a' || c > 'z') return {i, "a prefix has only lowercase letters a-z and '_'"};
  }
  if (!prefix.empty() && prefix.front() == '_') return {0, "a prefix must not start with '_'"};
  if (!prefix.empty() && prefix.back() == '_')
    return {prefix.size() - 1, "a prefix must not end with '_'"};
  return {};
}

char* encode_typeid_suffix(const Uuid& u, char* out) noexcept {
  const std::uint64_t h = u.high(), l = u.low();
  // 130 bits = 2 zero bits + 128, in groups of 10, 8 and 8 characters (50, 40, 40 bits).
  encode_groups(h >> 16, 10, out);
  encode_groups(((h & 0xFFFF) << 24) | (l >> 40), 8, out + 10);
  encode_groups(l & 0xFF'FFFF'FFFFull, 8, out + 18);
  return out + TypeId::kSuffixSize;
}

ParseStatus decode_typeid_suffix(std::string_view s, Uuid& out) noexcept {
  if (s.size() != TypeId::kSuffixSize)
    return {s.size() < TypeId::kSuffixSize ? s.size() : TypeId::kSuffixSize,
            "the suffix is exactly 26 base32 characters"};
  std::uint8_t bad = 0;
  const std::uint64_t a = decode_groups(s.data(), 10, bad);
  const std::uint64_t b = decode_groups(s.data() + 10, 8, bad);
  const std::uint64_t c = decode_groups(s.data() + 18, 8, bad);
  if (bad & 0x80) [[unlikely]] {
    for (std::size_t i = 0; i < s.size(); ++i)
      if (kValues.v[static_cast<unsigned char>(s[i])] & 0x80) return {i, bad_suffix_char(s[i])};
  }
  if (a >> 48) return {0, "the suffix starts above '7': the value would exceed 128 bits"};
  out = Uuid::from_u64((a << 16) | (b >> 24), (b << 40) | c);
  return {};
}

TypeId::TypeId(std::string_view prefix, const Uuid& uuid) {
  const ParseStatus st = check_typeid_prefix(prefix);
  if (!st.ok()) throw ParseError("TypeID prefix", prefix, st.position, st.reason);
  set_unchecked(prefix, uuid);
}

void TypeId::set_unchecked(std::string_view prefix, const Uuid& uuid) noexcept {
  // An empty prefix may come with a null data pointer, which memcpy must never see.
  if (!prefix.empty()) std::memcpy(prefix_.data(), prefix.data(), prefix.size());
  prefix_size_ = static_cast<std::uint8_t>(prefix.size());
  uuid_ = uuid;
}

ParseStatus parse_typeid(std::string_view text, TypeId& out) noexcept {
  const std::size_t sep = text.rfind('_');
  std::string_view prefix, suffix = text;
  std::size_t suffix_at = 0;
  if (sep != std::string_view::npos) {
    if (sep == 0) return {0, "a TypeID with an empty prefix has no '_' separator"};
    prefix = text.substr(0, sep);
    suffix = text.substr(sep + 1);
    suffix_at = sep + 1;
    const ParseStatus st = check_typeid_prefix(prefix);
    if (!st.ok()) return st;
  }
  Uuid u;
  ParseStatus st = decode_typeid_suffix(suffix, u);
  if (!st.ok()) return {suffix_at + st.position, st.reason};
  out.set_unchecked(prefix, u);
  return {};
}

TypeId TypeId::parse(std::string_view text) {
  TypeId t;
  const ParseStatus st = parse_typeid(text, t);
  if (!st.ok()) throw ParseError("TypeID", text, st.position, st.reason);
  return t;
}

std::optional<TypeId> TypeId::try_parse(std::string_view text) noexcept {
  TypeId t;
  if (!parse_typeid(text, t).ok()) return std::nullopt;
  return t;
}

char* TypeId::to_chars(char* out) const noexcept {
  if (prefix_size_ != 0) {
    std::memcpy(out, prefix_.data(), prefix_size_);
    out += prefix_size_;
    *out++ = '_';
  }
  return encode_typeid_suffix(uuid_, out);
}

std::string TypeId::to_string() const {
  std::string s(text_size(), '\0');
  to_chars(s.data());
  return s;
}

template <bool Shared>
BasicTypeIdGenerator<Shared>::BasicTypeIdGenerator(std::string_view prefix, Clock& clock)
    : template_(prefix, Uuid::nil()), uuids_(clock) {}

template <bool Shared>
TypeId BasicTypeIdGenerator<Shared>::next() {
  TypeId t = template_;
  t.uuid_ = uuids_.next();
  return t;
}

template class BasicTypeIdGenerator<false>;
template class BasicTypeIdGenerator<true>;

}  // namespace idforge
