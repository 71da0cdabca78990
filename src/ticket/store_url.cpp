#include "idforge/ticket/store_url.hpp"

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

std::string redact_url(std::string_view url) {
  // scheme://user:password@host/db?password=... -> scheme://user:***@host/db?password=***
  // A password may itself hold '@' (and ':'), so the user part ends at the LAST '@' before
  // the query; the password is everything after the first ':' in it.
  std::string out(url);
  const auto scheme = out.find("://");
  if (scheme == std::string::npos) return out;
  const auto query = out.find_first_of("?#", scheme + 3);
  const std::string_view head = std::string_view(out).substr(0, query);
  const auto at = head.rfind('@');
  if (at != std::string_view::npos && at > scheme + 3) {
    const auto colon = head.find(':', scheme + 3);
    if (colon != std::string_view::npos && colon < at)
      out = out.substr(0, colon + 1) + "***" + out.substr(at);
  }
  // libpq also takes the password as a query parameter.
  for (std::size_t pos = out.find('?'); pos != std::string::npos; pos = out.find('&', pos + 1)) {
    static constexpr std::string_view kKey = "password=";
    if (out.compare(pos + 1, kKey.size(), kKey) != 0) continue;
    const std::size_t from = pos + 1 + kKey.size();
    const std::size_t to = out.find_first_of("&#", from);
    out = out.substr(0, from) + "***" + (to == std::string::npos ? "" : out.substr(to));
  }
  return out;
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
