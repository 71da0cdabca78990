#include "idforge/ticket/store_url.hpp"

#include <algorithm>
#include <cctype>
#include <utility>
#include <vector>

#include "idforge/error.hpp"
#include "idforge/ticket/db_timeouts.hpp"

namespace idforge::ticket {

StoreUrl parse_store_url(std::string_view text) {
  const auto starts = [&](std::string_view p) { return text.substr(0, p.size()) == p; };
  if (starts("sqlite:")) {
    std::string_view path = text.substr(7);
    if (path.substr(0, 2) == "//") path.remove_prefix(2);  // sqlite://PATH as well
    if (path.empty())
      throw Error(errc::invalid_argument,
                  "store '" + std::string(text) + "' names no file: use sqlite:PATH");
    // SQLite's special name: a private database that vanishes when the process exits, so
    // every process (and every later run) would count from the start again.
    if (path == ":memory:")
      throw Error(errc::invalid_argument,
                  "store '" + std::string(text) +
                      "' is an in-memory database: it vanishes when the process exits and "
                      "each process gets its own, so values would repeat; use sqlite:PATH");
    return {StoreKind::sqlite, std::string(text), std::string(path)};
  }
  if (starts("postgres://") || starts("postgresql://"))
    return {StoreKind::postgres, std::string(text), {}};
  if (starts("mysql://") || starts("mariadb://"))
    return {StoreKind::mariadb, std::string(text), {}};
  throw Error(errc::invalid_argument,
              "store '" + redact_url(text) +
                  "' is not a known URL: use sqlite:PATH, postgres://USER@HOST:PORT/DB or "
                  "mysql://USER@HOST:PORT/DB");
}

namespace {

// Where the password of url lies: [first, last) of the user part's password, or first ==
// last when there is none. libpq ends the user part at the FIRST '@' (and sees none when a
// '/' comes before it); a user who wrote a password holding '@', '/', '?' or '#' meant it to
// end at the LAST '@'. Everything either reading could take for the password is covered, so
// whatever part libpq then prints as a host, port or database is a part of this span.
std::pair<std::size_t, std::size_t> password_span(std::string_view url) {
  const auto scheme = url.find("://");
  if (scheme == std::string_view::npos) return {0, 0};
  const std::size_t auth = scheme + 3;
  const auto first_at = url.find('@', auth);
  const auto colon = url.find(':', auth);
  // A ':' after the first '@' is a port: no password in the user part.
  if (first_at == std::string_view::npos || colon == std::string_view::npos || colon > first_at)
    return {0, 0};
  return {colon + 1, url.rfind('@')};
}

void replace_all(std::string& text, std::string_view what, bool whole_word) {
  if (what.empty()) return;
  const auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (std::size_t pos = text.find(what); pos != std::string::npos;
       pos = text.find(what, pos + 1)) {
    const std::size_t end = pos + what.size();
    if (whole_word &&
        ((pos > 0 && word_char(text[pos - 1])) || (end < text.size() && word_char(text[end]))))
      continue;
    text.replace(pos, what.size(), "***");
    pos += 2;
  }
}

std::string percent_decoded(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

std::string redact_url(std::string_view url) {
  // scheme://user:password@host/db?password=... -> scheme://user:***@host/db?password=***
  std::string out(url);
  if (const auto [from, to] = password_span(url); from < to)
    out = out.substr(0, from) + "***" + out.substr(to);
  // libpq also takes the password as a query parameter (after the host: the user part's
  // password is already hidden, so a '?' in it is gone).
  for (std::size_t pos = out.find('?'); pos != std::string::npos; pos = out.find('&', pos + 1)) {
    static constexpr std::string_view kKey = "password=";
    if (out.compare(pos + 1, kKey.size(), kKey) != 0) continue;
    const std::size_t from = pos + 1 + kKey.size();
    const std::size_t to = out.find_first_of("&#", from);
    out = out.substr(0, from) + "***" + (to == std::string::npos ? "" : out.substr(to));
  }
  return out;
}

std::string scrub_password(std::string message, std::string_view url) {
  std::vector<std::string> secrets;
  if (const auto [from, to] = password_span(url); from < to)
    secrets.emplace_back(url.substr(from, to - from));
  for (std::size_t pos = url.find("password="); pos != std::string_view::npos;
       pos = url.find("password=", pos + 1)) {
    const std::size_t from = pos + 9;
    secrets.emplace_back(url.substr(from, url.find_first_of("&#", from) - from));
  }
  // libpq prints what it parsed: pieces of the password as a host, a port or a database,
  // percent-decoded. Longest first, so a piece never leaves a part of a longer one behind.
  std::vector<std::string> pieces;
  for (const auto& s : secrets)
    for (const std::string& whole : {s, percent_decoded(s)}) {
      pieces.push_back(whole);
      std::size_t b = 0;
      for (std::size_t i = 0; i <= whole.size(); ++i)
        if (i == whole.size() ||
            std::string_view("@/:?#&=").find(whole[i]) != std::string_view::npos) {
          if (i > b) pieces.push_back(whole.substr(b, i - b));
          b = i + 1;
        }
    }
  std::sort(pieces.begin(), pieces.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  // Short pieces only where they stand alone: "ab" must not turn every "ab" into "***".
  for (const auto& p : pieces) replace_all(message, p, p.size() < 3);
  return message;
}

void check_timeouts(const DbTimeouts& t) {
  const auto check = [](const char* field, std::int64_t v) {
    if (v < 1 || v > 3'600'000)
      throw Error(errc::invalid_argument, std::string("timeout ") + field + " = " +
                                              std::to_string(v) +
                                              " ms is out of range: 1..3600000");
  };
  check("connect_ms", t.connect_ms);
  check("statement_ms", t.statement_ms);
  check("lock_ms", t.lock_ms);
}

}  // namespace idforge::ticket
