#include "target.hpp"

#include <fmt/format.h>

#include <array>
#include <boost/beast/core/string.hpp>

namespace idforge::server::detail {
namespace {

// A byte table: letters, digits and the bytes of extra.
constexpr std::array<bool, 256> alnum_and(std::string_view extra) {
  std::array<bool, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[c] = true;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = true;
  for (int c = '0'; c <= '9'; ++c) t[c] = true;
  for (const char c : extra) t[static_cast<unsigned char>(c)] = true;
  return t;
}

// Bytes a request target may hold unencoded (RFC 3986 §3.3, §3.4: pchar, '/', '?').
// Everything else (space, '"', '#', '<', '\', '^', '`', '{', '|', '}', controls, bytes
// above 0x7F) must arrive percent-encoded.
constexpr std::array<bool, 256> kTargetByte = alnum_and("-._~!$&'()*+,;=:@/?%");

// Bytes of an authority (host and port) in the absolute form; '@' (userinfo) is not one
// of them (RFC 9110 §4.2.4: a recipient treats userinfo in an http URI as an error).
constexpr std::array<bool, 256> kAuthorityByte = alnum_and("-._~!$&'()*+,;=:[]%");

// tchar (RFC 9110 §5.6.2).
constexpr std::array<bool, 256> kTokenByte = alnum_and("!#$%&'*+-.^_`|~");

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_control(unsigned char c) noexcept {
  return c < 0x20 || c == 0x7f;
}

bool iequals_prefix(std::string_view s, std::string_view prefix) noexcept {
  return s.size() >= prefix.size() && boost::beast::iequals(s.substr(0, prefix.size()), prefix);
}

// Percent-decodes in into out; plus_is_space for query parts (the form encoding that
// URLSearchParams writes). On a '%' without two hex digits returns false with its offset.
bool decode(std::string_view in, bool plus_is_space, std::string& out, std::size_t& bad_at) {
  out.clear();
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '%') {
      const int hi = i + 1 < in.size() ? hex_value(in[i + 1]) : -1;
      const int lo = i + 2 < in.size() ? hex_value(in[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        bad_at = i;
        return false;
      }
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += plus_is_space && c == '+' ? ' ' : c;
    }
  }
  return true;
}

bool fail(HttpError& err, std::string type, std::string detail) {
  err = HttpError{400, std::move(type), std::move(detail)};
  return false;
}

// Checks and decodes the path (it starts with '/'): no empty segment inside it, no
// dot-segment and no encoded '/' or '\' in any encoding, no control byte, valid UTF-8.
bool decode_path(std::string_view raw, std::string& path, HttpError& err) {
  path.clear();
  std::string segment;
  std::size_t i = 1;
  while (true) {
    const std::size_t j = std::min(raw.find('/', i), raw.size());
    const std::string_view seg = raw.substr(i, j - i);
    std::size_t bad = 0;
    if (!decode(seg, false, segment, bad))
      return fail(err, "bad-path",
                  fmt::format("the path has '%' without two hex digits at byte {}: '{}'", i + bad,
                              printable(raw)));
    const bool last = j == raw.size();
    if (segment.empty() && !last)
      return fail(err, "bad-path",
                  fmt::format("the path has an empty segment ('//'): '{}'", printable(raw)));
    if (segment == "." || segment == "..")
      return fail(err, "bad-path",
                  fmt::format("the path has a dot-segment ('{}'), in any encoding refused: '{}'",
                              segment, printable(raw)));
    for (const char c : segment) {
      const auto u = static_cast<unsigned char>(c);
      if (is_control(u))
        return fail(
            err, "bad-path",
            fmt::format(
                "the path holds control byte 0x{:02x} (NUL and other controls are refused): '{}'",
                u, printable(raw)));
      if (c == '/' || c == '\\')
        return fail(err, "bad-path",
                    fmt::format("the path holds an encoded '{}' inside a segment: '{}'", c,
                                printable(raw)));
    }
    path += '/';
    path += segment;
    if (last) break;
    i = j + 1;
  }
  std::size_t bad = 0;
  if (!is_utf8(path, &bad))
    return fail(err, "bad-path",
                fmt::format("the decoded path is not valid UTF-8 (byte 0x{:02x} at {}): '{}'",
                            static_cast<unsigned char>(path[bad]), bad, printable(raw)));
  return true;
}

bool decode_query(std::string_view raw, std::vector<std::pair<std::string, std::string>>& query,
                  HttpError& err) {
  query.clear();
  std::size_t i = 0;
  while (i <= raw.size()) {
    const std::size_t amp = std::min(raw.find('&', i), raw.size());
    const std::string_view piece = raw.substr(i, amp - i);
    i = amp + 1;
    if (piece.empty()) continue;  // "a=1&&b=2", a trailing '&'
    const std::size_t eq = piece.find('=');
    const std::string_view raw_name = piece.substr(0, eq);
    const std::string_view raw_value =
        eq == std::string_view::npos ? std::string_view{} : piece.substr(eq + 1);
    std::string name, value;
    std::size_t bad = 0;
    if (!decode(raw_name, true, name, bad) || !decode(raw_value, true, value, bad))
      return fail(
          err, "bad-query",
          fmt::format("query parameter '{}' has '%' without two hex digits", printable(raw_name)));
    if (name.empty())
      return fail(err, "bad-query",
                  fmt::format("query part '{}' has no parameter name", printable(piece)));
    for (const std::string* s : {&name, &value}) {
      if (!is_utf8(*s, &bad))
        return fail(
            err, "bad-query",
            fmt::format("query parameter '{}' is not valid UTF-8 (byte 0x{:02x} at {} of its {})",
                        printable(name), static_cast<unsigned char>((*s)[bad]), bad,
                        s == &name ? "name" : "value"));
      for (const char c : *s)
        if (is_control(static_cast<unsigned char>(c)))
          return fail(err, "bad-query",
                      fmt::format("query parameter '{}' holds control byte 0x{:02x}",
                                  printable(name), static_cast<unsigned char>(c)));
    }
    // One value per name: a second one is a client error, not something to pick from.
    for (const auto& [k, v] : query)
      if (k == name)
        return fail(err, "bad-query",
                    fmt::format("query parameter '{}' is given more than once", printable(name)));
    query.emplace_back(std::move(name), std::move(value));
  }
  return true;
}

}  // namespace

bool is_utf8(std::string_view s, std::size_t* bad_at) noexcept {
  std::size_t i = 0;
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  while (i < s.size()) {
    const unsigned char c = byte(i);
    std::size_t n = 0;
    unsigned lo = 0x80, hi = 0xbf;  // range of the first continuation byte
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xc2 && c <= 0xdf) {
      n = 1;
    } else if (c == 0xe0) {
      n = 2, lo = 0xa0;  // no overlong 3-byte forms
    } else if (c >= 0xe1 && c <= 0xec) {
      n = 2;
    } else if (c == 0xed) {
      n = 2, hi = 0x9f;  // no surrogates
    } else if (c >= 0xee && c <= 0xef) {
      n = 2;
    } else if (c == 0xf0) {
      n = 3, lo = 0x90;  // no overlong 4-byte forms
    } else if (c >= 0xf1 && c <= 0xf3) {
      n = 3;
    } else if (c == 0xf4) {
      n = 3, hi = 0x8f;  // at most U+10FFFF
    } else {
      if (bad_at) *bad_at = i;
      return false;
    }
    for (std::size_t k = 1; k <= n; ++k) {
      const bool ok = i + k < s.size() && (k == 1 ? byte(i + k) >= lo && byte(i + k) <= hi
                                                  : byte(i + k) >= 0x80 && byte(i + k) <= 0xbf);
      if (!ok) {
        if (bad_at) *bad_at = i;
        return false;
      }
    }
    i += n + 1;
  }
  return true;
}

std::string printable(std::string_view text, std::size_t max_bytes) {
  std::string out;
  const std::size_t n = std::min(text.size(), max_bytes);
  out.reserve(n + 8);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\')
      fmt::format_to(std::back_inserter(out), "\\x{:02x}", c);
    else
      out += static_cast<char>(c);
  }
  if (text.size() > max_bytes)
    fmt::format_to(std::back_inserter(out), "...({} bytes)", text.size());
  return out;
}

bool is_token(std::string_view s) noexcept {
  if (s.empty()) return false;
  for (const char c : s)
    if (!kTokenByte[static_cast<unsigned char>(c)]) return false;
  return true;
}

bool parse_target(std::string_view raw, Target& out, HttpError& err) {
  out.query.clear();
  if (raw == "*") {
    out.form = Target::Form::asterisk;
    out.path = "*";
    return true;
  }
  std::string_view rest = raw;
  out.form = Target::Form::origin;
  if (raw.empty() || raw.front() != '/') {
    // The absolute form (RFC 9112 §3.2.2): a server must accept it; the authority is not
    // checked against anything (this is an origin server, not a proxy).
    std::size_t skip = 0;
    if (iequals_prefix(raw, "http://"))
      skip = 7;
    else if (iequals_prefix(raw, "https://"))
      skip = 8;
    else
      return fail(
          err, "bad-target",
          fmt::format("the request target '{}' is neither '/path', 'http://host/path' nor '*'",
                      printable(raw)));
    const std::size_t end = std::min(raw.find_first_of("/?", skip), raw.size());
    const std::string_view authority = raw.substr(skip, end - skip);
    if (authority.empty())
      return fail(err, "bad-target",
                  fmt::format("the request target '{}' has no host", printable(raw)));
    for (const char c : authority)
      if (!kAuthorityByte[static_cast<unsigned char>(c)])
        return fail(
            err, "bad-target",
            fmt::format(
                "the host of the request target '{}' holds '{}', which it may not (userinfo, "
                "spaces and controls are refused)",
                printable(raw), printable(std::string_view(&c, 1))));
    out.form = Target::Form::absolute;
    rest = raw.substr(end);  // "http://h" and "http://h?q" have the path "/"
  }
  for (std::size_t i = 0; i < rest.size(); ++i) {
    const auto c = static_cast<unsigned char>(rest[i]);
    if (!kTargetByte[c])
      return fail(err, "bad-target",
                  fmt::format("the request target holds byte 0x{:02x} at {} ('{}'), which must be "
                              "percent-encoded{}",
                              c, i, printable(raw), c == '#' ? " (a fragment is never sent)" : ""));
  }
  const std::size_t q = rest.find('?');
  std::string_view path = rest.substr(0, q);
  if (path.empty()) path = "/";
  if (!decode_path(path, out.path, err)) return false;
  if (q != std::string_view::npos && !decode_query(rest.substr(q + 1), out.query, err))
    return false;
  return true;
}

}  // namespace idforge::server::detail
