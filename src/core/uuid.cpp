#include "idforge/uuid.hpp"

#include <cstring>

#include "idforge/error.hpp"
#include "text_kernels.hpp"

namespace idforge {
namespace {

using detail::kHexValues;
using detail::kUuidHyphens;

constexpr char kUrnPrefix[] = "urn:uuid:";
constexpr std::size_t kUrnPrefixSize = sizeof kUrnPrefix - 1;

// A Uuid is its 16 bytes and nothing else, so a span of them is the kernels' array of bytes.
static_assert(sizeof(Uuid) == 16 && alignof(Uuid) == 1);

inline bool is_hex(char c) noexcept {
  return kHexValues.v[static_cast<unsigned char>(c)] < 16;
}

// Why the kernel refused the canonical 36 characters at text[at]; positions count from text[0].
ParseStatus canonical_error(std::string_view text, std::size_t at) noexcept {
  const char* p = text.data() + at;
  for (std::size_t h : kUuidHyphens)
    if (p[h] != '-') return {at + h, "expected '-' between the 8-4-4-4-12 groups"};
  for (std::size_t i = 0; i < Uuid::kTextSize; ++i)
    if (i != 8 && i != 13 && i != 18 && i != 23 && !is_hex(p[i]))
      return {at + i, "expected a hex digit (0-9, a-f, A-F)"};
  return {at, "expected a hex digit"};  // unreachable: the kernel found a bad character
}

// The canonical 36 characters starting at text[at].
ParseStatus parse_canonical(std::string_view text, std::size_t at, Uuid::Bytes& b) noexcept {
  if (IDFORGE_TEXT_KERNEL(uuid_from_chars)(text.data() + at, b.data())) [[likely]]
    return {};
  return canonical_error(text, at);
}

bool iequal_prefix(std::string_view text, std::string_view lower_prefix) noexcept {
  if (text.size() < lower_prefix.size()) return false;
  for (std::size_t i = 0; i < lower_prefix.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower_prefix[i]) return false;
  }
  return true;
}

}  // namespace

const char* to_string(UuidVariant v) noexcept {
  switch (v) {
    case UuidVariant::ncs:
      return "NCS";
    case UuidVariant::rfc9562:
      return "RFC 9562";
    case UuidVariant::microsoft:
      return "Microsoft";
    case UuidVariant::future:
      return "future";
  }
  return "unknown";
}

ParseStatus detail::parse_uuid_any(std::string_view text, Uuid& out) noexcept {
  Uuid::Bytes b;
  ParseStatus st;
  const std::size_t n = text.size();
  if (n == Uuid::kTextSize) [[likely]] {
    st = parse_canonical(text, 0, b);
  } else if (n == Uuid::kHexSize) {
    if (!IDFORGE_TEXT_KERNEL(uuid_from_hex)(text.data(), b.data())) {
      for (std::size_t i = 0; i < n; ++i)
        if (!is_hex(text[i])) return {i, "expected a hex digit (0-9, a-f, A-F)"};
      return {0, "expected a hex digit"};  // unreachable: the kernel found a bad digit
    }
  } else if (!text.empty() && text[0] == '{') {
    if (n != Uuid::kTextSize + 2)
      return {n < Uuid::kTextSize + 2 ? n : Uuid::kTextSize + 2,
              "braced form is '{' + 36 characters (8-4-4-4-12) + '}', 38 in all"};
    st = parse_canonical(text, 1, b);
    if (st.ok() && text[n - 1] != '}') return {n - 1, "expected '}' closing the braced form"};
  } else if (iequal_prefix(text, kUrnPrefix)) {
    if (n != kUrnPrefixSize + Uuid::kTextSize)
      return {n < kUrnPrefixSize + Uuid::kTextSize ? n : kUrnPrefixSize + Uuid::kTextSize,
              "URN form is 'urn:uuid:' + 36 characters (8-4-4-4-12), 45 in all"};
    st = parse_canonical(text, kUrnPrefixSize, b);
  } else if (n == Uuid::kTextSize + 2) {
    // The braced form's length with something else first: the opening is what is wrong.
    return {0, "expected '{' opening the braced form ('{' + 8-4-4-4-12 + '}', 38 characters)"};
  } else if (n == kUrnPrefixSize + Uuid::kTextSize) {
    std::size_t i = 0;  // the first character where the prefix, in either case, differs
    while (i < kUrnPrefixSize && iequal_prefix(text.substr(i, 1), {kUrnPrefix + i, 1})) ++i;
    return {i,
            "expected 'urn:uuid:' opening the URN form ('urn:uuid:' + 8-4-4-4-12, 45 "
            "characters)"};
  } else {
    // Point at where the text stops matching every form: its end if it is a prefix of a
    // longer form, else the first character past 36.
    return {n < Uuid::kTextSize ? n : Uuid::kTextSize,
            "expected 36 characters (8-4-4-4-12), 32 hex digits, {braced} or urn:uuid:"};
  }
  if (!st.ok()) return st;
  out = Uuid(b);
  return {};
}

Uuid Uuid::parse(std::string_view text) {
  Uuid u;
  const ParseStatus st = parse_uuid(text, u);
  if (!st.ok()) throw ParseError("UUID", text, st.position, st.reason);
  return u;
}

std::optional<Uuid> Uuid::try_parse(std::string_view text) noexcept {
  Uuid u;
  if (!parse_uuid(text, u).ok()) return std::nullopt;
  return u;
}

std::string Uuid::to_string() const {
  std::string s(kTextSize, '\0');
  to_chars(s.data());
  return s;
}

std::string Uuid::to_hex() const {
  std::string s(kHexSize, '\0');
  to_hex_chars(s.data());
  return s;
}

std::string Uuid::to_urn() const {
  return kUrnPrefix + to_string();
}

}  // namespace idforge

namespace idforge {

char* to_chars(std::span<const Uuid> ids, char* out, std::string_view separator) noexcept {
  return IDFORGE_TEXT_KERNEL(uuid_to_chars_n)(reinterpret_cast<const detail::Bytes16*>(ids.data()),
                                              ids.size(), separator.empty() ? "" : separator.data(),
                                              separator.size(), out);
}

char* to_hex_chars(std::span<const Uuid> ids, char* out, std::string_view separator) noexcept {
  return IDFORGE_TEXT_KERNEL(uuid_to_hex_n)(reinterpret_cast<const detail::Bytes16*>(ids.data()),
                                            ids.size(), separator.empty() ? "" : separator.data(),
                                            separator.size(), out);
}

}  // namespace idforge
