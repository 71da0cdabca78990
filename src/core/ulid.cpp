#include "idforge/ulid.hpp"

#include "idforge/error.hpp"
#include "text_kernels.hpp"

namespace idforge {
namespace {

using detail::kBase32Values;

static_assert(sizeof(Ulid) == 16 && alignof(Ulid) == 1);

}  // namespace

ParseStatus detail::ulid_parse_error(std::string_view text) noexcept {
  if (text.size() != Ulid::kTextSize)
    return {text.size() < Ulid::kTextSize ? text.size() : Ulid::kTextSize,
            "a ULID is exactly 26 Crockford base32 characters"};
  // The kernel refused the text: the first character outside the alphabet, else the first
  // character is above '7'.
  for (std::size_t i = 0; i < Ulid::kTextSize; ++i) {
    const std::uint8_t d = kBase32Values.v[static_cast<unsigned char>(text[i])];
    if (d == 0x80) return {i, "'U' is not in Crockford's base32 alphabet"};
    if (d == 0xFF) return {i, "expected a Crockford base32 character (0-9, A-Z except U)"};
  }
  return {0, "first character above '7': the value would exceed 128 bits"};
}

Ulid Ulid::parse(std::string_view text) {
  Ulid u;
  const ParseStatus st = parse_ulid(text, u);
  if (!st.ok()) throw ParseError("ULID", text, st.position, st.reason);
  return u;
}

std::optional<Ulid> Ulid::try_parse(std::string_view text) noexcept {
  Ulid u;
  if (!parse_ulid(text, u).ok()) return std::nullopt;
  return u;
}

std::string Ulid::to_string() const {
  std::string s(kTextSize, '\0');
  to_chars(s.data());
  return s;
}

char* to_chars(std::span<const Ulid> ids, char* out, std::string_view separator) noexcept {
  return IDFORGE_TEXT_KERNEL(ulid_to_chars_n)(reinterpret_cast<const detail::Bytes16*>(ids.data()),
                                              ids.size(), separator.empty() ? "" : separator.data(),
                                              separator.size(), out);
}

}  // namespace idforge
