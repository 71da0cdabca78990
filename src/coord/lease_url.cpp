#include "idforge/coord/lease_url.hpp"

#include <charconv>
#include <string>

#include "idforge/error.hpp"

namespace idforge::coord {
namespace {

constexpr std::string_view kKind = "lease store URL";

[[noreturn]] void fail(std::string_view url, std::size_t pos, std::string_view reason) {
  throw ParseError(kKind, url, pos, reason);
}

Endpoint parse_endpoint(std::string_view url, std::string_view text, std::size_t pos) {
  const auto colon = text.rfind(':');
  if (text.empty()) fail(url, pos, "empty host:port");
  if (colon == std::string_view::npos || colon == 0)
    fail(url, pos, "expected HOST:PORT (a port is required: the servers run on non-default ports)");
  const std::string_view port_text = text.substr(colon + 1);
  unsigned port = 0;
  const auto [end, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc{} || end != port_text.data() + port_text.size() || port == 0 || port > 65535)
    fail(url, pos + colon + 1, "port must be a number in 1..65535");
  return {std::string(text.substr(0, colon)), static_cast<std::uint16_t>(port)};
}

}  // namespace

std::optional<std::string> LeaseUrl::param(const std::string& key) const {
  const auto it = params.find(key);
  if (it == params.end()) return std::nullopt;
  return it->second;
}

std::int64_t LeaseUrl::int_param(const std::string& key, std::int64_t fallback, std::int64_t min,
                                 std::int64_t max) const {
  const auto v = param(key);
  if (!v) return fallback;
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  if (ec != std::errc{} || end != v->data() + v->size() || n < min || n > max)
    throw Error(errc::invalid_argument, "lease store URL '" + text + "': " + key + "=" + *v +
                                            " must be an integer in " + std::to_string(min) + ".." +
                                            std::to_string(max));
  return n;
}

void LeaseUrl::allow_only(std::initializer_list<std::string_view> allowed) const {
  for (const auto& [key, value] : params) {
    bool ok = false;
    for (auto a : allowed) ok = ok || a == key;
    if (!ok) {
      std::string list;
      for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      throw Error(errc::invalid_argument,
                  "lease store URL '" + text + "': unknown parameter '" + key + "' for " + scheme +
                      ": (allowed: " + (list.empty() ? "none" : list) + ")");
    }
  }
}

LeaseUrl parse_lease_url(std::string_view url) {
  LeaseUrl u;
  u.text = std::string(url);
  const auto colon = url.find(':');
  if (colon == std::string_view::npos || colon == 0)
    fail(url, 0, "expected SCHEME:... with scheme static, ordinal, file, redis or etcd");
  u.scheme = std::string(url.substr(0, colon));
  const bool networked = u.scheme == "redis" || u.scheme == "etcd";
  if (!networked && u.scheme != "static" && u.scheme != "ordinal" && u.scheme != "file")
    fail(url, 0, "unknown scheme '" + u.scheme + "' (static, ordinal, file, redis, etcd)");
  std::size_t pos = colon + 1;
  if (networked) {
    if (url.substr(pos, 2) != "//") fail(url, pos, "expected '//' after '" + u.scheme + ":'");
    pos += 2;
  }
  const auto q = url.find('?', pos);
  u.body = std::string(url.substr(pos, q == std::string_view::npos ? url.npos : q - pos));
  if (u.body.empty() && u.scheme != "ordinal")  // ordinal: empty means "this host's name"
    fail(url, pos, "nothing after the scheme");
  if (networked) {
    std::size_t start = 0;
    for (;;) {
      const auto comma = u.body.find(',', start);
      const std::string_view part = std::string_view(u.body).substr(
          start, comma == std::string::npos ? std::string::npos : comma - start);
      u.endpoints.push_back(parse_endpoint(url, part, pos + start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (u.scheme == "redis" && u.endpoints.size() != 1) fail(url, pos, "redis takes one HOST:PORT");
  }
  if (q != std::string_view::npos) {
    std::size_t start = q + 1;
    while (start <= url.size()) {
      auto amp = url.find('&', start);
      if (amp == std::string_view::npos) amp = url.size();
      const std::string_view pair = url.substr(start, amp - start);
      const auto eq = pair.find('=');
      if (eq == std::string_view::npos || eq == 0)
        fail(url, start, "expected key=value in the query");
      // The same key twice is refused, not settled by order: "ttl=1&ttl=99999" is a paste or
      // a merge gone wrong, and either value silently winning hides it.
      if (!u.params.emplace(std::string(pair.substr(0, eq)), std::string(pair.substr(eq + 1)))
               .second)
        fail(url, start,
             "key '" + std::string(pair.substr(0, eq)) + "' is given twice; give it once");
      start = amp + 1;
    }
  }
  return u;
}

std::uint64_t parse_ordinal_hostname(std::string_view hostname) {
  constexpr std::string_view kind = "StatefulSet hostname";
  // Kubernetes may hand over a fully qualified name (order-api-7.order-api.ns.svc...).
  const std::string_view name = hostname.substr(0, hostname.find('.'));
  const auto dash = name.rfind('-');
  if (dash == std::string_view::npos || dash == 0)
    throw ParseError(kind, hostname, 0, "expected NAME-ORDINAL, such as order-api-7");
  // A StatefulSet name is a DNS label: it does not end in '-' ("app--1" is not app's pod 1
  // nor pod -1).
  if (name[dash - 1] == '-')
    throw ParseError(kind, hostname, dash,
                     "the name before the ordinal ends in '-' (a StatefulSet name cannot)");
  const std::string_view digits = name.substr(dash + 1);
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (digits.empty() || ec == std::errc::invalid_argument || end != digits.data() + digits.size())
    throw ParseError(kind, hostname, dash + 1,
                     "the part after the last '-' must be a decimal ordinal");
  if (ec == std::errc::result_out_of_range)
    throw ParseError(kind, hostname, dash + 1, "the ordinal does not fit in 64 bits");
  // Kubernetes writes ordinals without leading zeros; "app-07" and "app-7" must not both
  // become worker 7.
  if (digits.size() > 1 && digits[0] == '0')
    throw ParseError(kind, hostname, dash + 1,
                     "the ordinal has a leading zero (Kubernetes writes none)");
  return n;
}

}  // namespace idforge::coord
