#include "boundary.hpp"

#include <cstdint>

namespace idforge::sqlite {
namespace {

// The length of the valid UTF-8 sequence at s[i], or 0 if there is none (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF). Written out because neither core nor
// SQLite offers a validator, and the message must never carry a broken sequence.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  std::size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size() || b(1) < lo || b(1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if ((b(k) & 0xC0) != 0x80) return 0;
  return n;
}

std::string clean_utf8(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
    } else if (const std::size_t n = c >= 0x80 ? utf8_length(s, i) : 0) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
      ++i;
    }
  }
  return out;
}

}  // namespace

void fail(sqlite3_context* ctx, const char* function, std::string_view message) noexcept {
  try {
    const std::string text = std::string(function) + "(): " + clean_utf8(message);
    sqlite3_result_error(ctx, text.data(), static_cast<int>(text.size()));
  } catch (...) {
    sqlite3_result_error_nomem(ctx);
  }
}

std::string describe(sqlite3_value* value) {
  switch (sqlite3_value_type(value)) {
    case SQLITE_NULL:
      return "NULL";
    case SQLITE_INTEGER:
      return "integer " + std::to_string(sqlite3_value_int64(value));
    case SQLITE_FLOAT: {
      // SQLite's own rendering of a REAL (2.0, 1.5), as the shell shows it.
      char* p = sqlite3_mprintf("%!.15g", sqlite3_value_double(value));
      if (!p) throw std::bad_alloc();
      std::string s = "real " + std::string(p);
      sqlite3_free(p);
      return s;
    }
    case SQLITE_BLOB: {
      const int n = sqlite3_value_bytes(value);
      return "blob of " + std::to_string(n) + (n == 1 ? " byte" : " bytes");
    }
    default: {
      constexpr std::size_t kShown = 64;
      const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(value));
      const std::string_view s(p ? p : "",
                               p ? static_cast<std::size_t>(sqlite3_value_bytes(value)) : 0);
      if (s.size() <= kShown) return "text '" + std::string(s) + "'";
      return "text '" + std::string(s.substr(0, kShown)) + "...' (" + std::to_string(s.size()) +
             " bytes)";
    }
  }
}

std::string shown(std::string_view text) {
  constexpr std::size_t kHead = 48;
  if (text.size() <= kHead) return clean_utf8(text);
  std::size_t cut = kHead;  // not inside a UTF-8 sequence
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return clean_utf8(text.substr(0, cut)) + "... (" + std::to_string(text.size()) + " bytes)";
}

std::string_view text_arg(sqlite3_value* value, std::string_view rule) {
  if (sqlite3_value_type(value) != SQLITE_TEXT)
    throw ArgumentError(std::string(rule) + ", got " + describe(value));
  // text before bytes: the order SQLite documents, so the length is that of the UTF-8 form.
  const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(value));
  if (!p) throw std::bad_alloc();  // a UTF-16 database's text could not be converted
  return {p, static_cast<std::size_t>(sqlite3_value_bytes(value))};
}

}  // namespace idforge::sqlite
