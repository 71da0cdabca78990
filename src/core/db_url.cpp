#include "idforge/db_url.hpp"

#include <charconv>

#include "idforge/error.hpp"

namespace idforge {
namespace {

constexpr std::string_view kForm = "mysql://USER[:PASSWORD]@HOST[:PORT][/DB]";

// %XX escapes decoded; a '%' not followed by two hex digits stays as it is.
std::string percent_decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    unsigned v = 0;
    if (s[i] == '%' && i + 2 < s.size() &&
        std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16).ptr == s.data() + i + 3) {
      out += static_cast<char>(v);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// The scheme's length ("mysql://" or "mariadb://"), or 0 for any other.
std::size_t scheme_size(std::string_view url) {
  for (std::string_view scheme : {std::string_view("mysql://"), std::string_view("mariadb://")})
    if (url.substr(0, scheme.size()) == scheme) return scheme.size();
  return 0;
}

}  // namespace

std::string redact_mariadb_url(std::string_view url) {
  std::string out(url);
  const auto auth = url.find("://");
  if (auth != std::string_view::npos) {
    // The user part runs to the last '@' before any '?'; its password after the first ':'.
    const auto query = url.find('?', auth + 3);
    const std::string_view head = url.substr(0, query);
    const auto at = head.rfind('@');
    const auto colon = at == std::string_view::npos ? at : head.find(':', auth + 3);
    if (at != std::string_view::npos && colon < at)
      out = std::string(url.substr(0, colon + 1)) + "***" + std::string(url.substr(at));
  }
  for (auto pos = out.find("password=", out.find('?')); pos != std::string::npos && pos > 0;
       pos = out.find("password=", pos + 1)) {
    if (out[pos - 1] != '?' && out[pos - 1] != '&') continue;
    const auto from = pos + 9;
    const auto to = out.find('&', from);
    out = out.substr(0, from) + "***" + (to == std::string::npos ? "" : out.substr(to));
  }
  return out;
}

MariaDbUrl parse_mariadb_url(std::string_view url) {
  const auto bad = [&](const std::string& why) {
    return Error(errc::invalid_argument, "MariaDB URL '" + redact_mariadb_url(url) + "' " + why +
                                             " (form: " + std::string(kForm) + ")");
  };
  const std::size_t scheme = scheme_size(url);
  if (scheme == 0) {
    const auto end = url.find("://");
    throw bad(end == std::string_view::npos
                  ? std::string("has no scheme: it must start with mysql:// or mariadb://")
                  : "has scheme '" + std::string(url.substr(0, end)) +
                        "', not mysql:// or mariadb://");
  }
  MariaDbUrl u;
  std::string_view rest = url.substr(scheme);
  rest = rest.substr(0, rest.find('?'));
  if (const auto at = rest.rfind('@'); at != std::string_view::npos) {
    const std::string_view cred = rest.substr(0, at);
    rest = rest.substr(at + 1);
    const auto colon = cred.find(':');
    u.user = percent_decode(cred.substr(0, colon));
    if (colon != std::string_view::npos) u.password = percent_decode(cred.substr(colon + 1));
    if (u.user.empty()) throw bad("names no user before '@'");
  }
  const auto slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) u.database = std::string(rest.substr(slash + 1));
  if (const auto colon = authority.rfind(':'); colon != std::string_view::npos) {
    const std::string_view p = authority.substr(colon + 1);
    unsigned port = 0;
    const auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), port);
    if (p.empty() || ec != std::errc() || end != p.data() + p.size() || port == 0 || port > 65535)
      throw bad("has port '" + std::string(p) + "', not 1..65535");
    u.port = port;
    authority = authority.substr(0, colon);
  }
  if (!authority.empty()) u.host = std::string(authority);
  for (const char c : u.database)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      throw bad("names database '" + u.database + "': use letters, digits and _");
  return u;
}

}  // namespace idforge
