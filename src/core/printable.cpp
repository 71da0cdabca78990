#include "idforge/detail/printable.hpp"

#include <cstdint>

namespace idforge::detail {
namespace {

// Length of the valid UTF-8 sequence at s[i] and its code point, or 0 when the bytes there
// are not one (overlong forms, surrogates and values above U+10FFFF included), per RFC 3629.
std::size_t utf8_sequence(std::string_view s, std::size_t i, char32_t& cp) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char lead = b(0);
  std::size_t n = 0;
  char32_t min = 0;
  if (lead >= 0xC2 && lead <= 0xDF)
    n = 2, cp = lead & 0x1F, min = 0x80;
  else if (lead >= 0xE0 && lead <= 0xEF)
    n = 3, cp = lead & 0x0F, min = 0x800;
  else if (lead >= 0xF0 && lead <= 0xF4)
    n = 4, cp = lead & 0x07, min = 0x10000;
  else
    return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

// "\\x" or "\\u" and the value in `digits` lowercase hex digits (core does not link {fmt}).
void append_escape(std::string& out, const char* prefix, std::uint32_t value, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += prefix;
  for (int d = digits - 1; d >= 0; --d) out += kHex[(value >> (4 * d)) & 0xF];
}

bool hidden(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
    } else if (c == '\n') {
      out += "\\n", ++i;
    } else if (c == '\t') {
      out += "\\t", ++i;
    } else if (c == '\r') {
      out += "\\r", ++i;
    } else if (c < 0x80) {
      append_escape(out, "\\x", c, 2), ++i;
    } else {
      char32_t cp = 0;
      const std::size_t n = utf8_sequence(text, i, cp);
      if (n == 0) {
        append_escape(out, "\\x", c, 2), ++i;
      } else {
        if (hidden(cp))
          append_escape(out, "\\u", static_cast<std::uint32_t>(cp), 4);
        else
          out.append(text.substr(i, n));
        i += n;
      }
    }
  }
  return out;
}

std::string shortened(std::string_view message, std::size_t max) {
  if (message.size() <= max) return std::string(message);
  const auto continuation = [](char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; };
  constexpr std::string_view kJoin = "...";
  std::size_t head = max * 2 / 5;
  while (head > 0 && continuation(message[head])) --head;
  std::size_t tail_from = message.size() - (max - max * 2 / 5 - kJoin.size());
  while (tail_from < message.size() && continuation(message[tail_from])) ++tail_from;
  std::string out(message.substr(0, head));
  out += kJoin;
  out += message.substr(tail_from);
  return out;
}

}  // namespace idforge::detail
