#include "boundary.hpp"

#include <algorithm>
#include <cstdint>

namespace idforge::sqlite {
namespace {

// text as every message of idforge quotes it (idforge_quote: controls, bytes that are not
// UTF-8 and bidirectional overrides escaped; longer than max bytes: head...tail), so SQLite
// hands on only valid UTF-8 and shows a value in the same words as the other faces.
std::string quoted(std::string_view text, std::size_t max) {
  std::size_t needed = 0;
  max = std::max<std::size_t>(max, 16);
  if (idforge_quote(text.data(), text.size(), max, nullptr, 0, &needed) !=
      IDFORGE_E_BUFFER_TOO_SMALL)
    throw std::bad_alloc();  // the one other failure of a query for the size
  std::string out(needed, '\0');
  ok(idforge_quote(text.data(), text.size(), max, out.data(), out.size(), nullptr));
  out.resize(needed - 1);
  return out;
}

}  // namespace

void fail(sqlite3_context* ctx, const char* function, std::string_view message) noexcept {
  try {
    const std::string text = std::string(function) + "(): " + quoted(message, message.size());
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
      if (s.size() <= kShown) return "text '" + quoted(s, kShown) + "'";
      return "text '" + quoted(s, kShown) + "' (" + std::to_string(s.size()) + " bytes)";
    }
  }
}

std::string shown(std::string_view text) {
  constexpr std::size_t kShown = 48;
  if (text.size() <= kShown) return quoted(text, kShown);
  return quoted(text, kShown) + " (" + std::to_string(text.size()) + " bytes)";
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
