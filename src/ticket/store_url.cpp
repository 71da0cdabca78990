#include "idforge/ticket/store_url.hpp"

#include "idforge/error.hpp"

namespace idforge::ticket {

StoreUrl parse_store_url(std::string_view text) {
  const auto starts = [&](std::string_view p) { return text.substr(0, p.size()) == p; };
  if (starts("sqlite:")) {
    std::string_view path = text.substr(7);
    if (path.substr(0, 2) == "//") path.remove_prefix(2);  // sqlite://PATH as well
    if (path.empty())
      throw Error(errc::invalid_argument,
                  "store '" + std::string(text) + "' names no file: use sqlite:PATH");
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
  // scheme://user:password@host -> scheme://user:***@host
  const auto scheme = url.find("://");
  if (scheme == std::string_view::npos) return std::string(url);
  const auto at = url.find('@', scheme + 3);
  if (at == std::string_view::npos) return std::string(url);
  const auto colon = url.find(':', scheme + 3);
  if (colon == std::string_view::npos || colon > at) return std::string(url);
  return std::string(url.substr(0, colon + 1)) + "***" + std::string(url.substr(at));
}

}  // namespace idforge::ticket
