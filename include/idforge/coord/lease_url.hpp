// Lease-store URLs: "scheme:body?key=value&..." or "scheme://host:port[,host:port]?...".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace idforge::coord {

/// One host:port of a networked store.
struct Endpoint {
  std::string host;
  std::uint16_t port = 0;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

/// A parsed store URL. Only syntax is checked here; each store checks its own keys.
struct LeaseUrl {
  std::string text;                           ///< the URL as given
  std::string scheme;                         ///< static, ordinal, file, redis, etcd
  std::string body;                           ///< between "scheme:" or "scheme://" and '?'
  std::vector<Endpoint> endpoints;            ///< redis/etcd: body split at ','
  std::map<std::string, std::string> params;  ///< the query, decoded as key=value pairs

  /// The value of key, if present.
  std::optional<std::string> param(const std::string& key) const;
  /// key as a non-negative integer in [min, max]; fallback if absent. Throws Error
  /// (errc::invalid_argument) naming the key, the value and the range.
  std::int64_t int_param(const std::string& key, std::int64_t fallback, std::int64_t min,
                         std::int64_t max) const;
  /// Throws Error(errc::invalid_argument) if a key outside allowed is present.
  void allow_only(std::initializer_list<std::string_view> allowed) const;
};

/// Throws Error(errc::invalid_argument) when url names its node itself (static:, ordinal:) and
/// locks it nowhere (neither state=DIR nor register=URL): two processes given it would issue
/// the same IDs unseen. For programs that, unlike the CLI (which keeps that lock under
/// .data/leases), have no lock folder of their own to add: the database extensions.
void require_node_lock(const LeaseUrl& url);

/// Splits a store URL. Throws ParseError (position and rule) for an unknown scheme, an
/// empty body, a bad host:port or a query pair without '='.
LeaseUrl parse_lease_url(std::string_view url);

/// The ordinal at the end of a StatefulSet pod name: "order-api-7" -> 7. Throws ParseError
/// when the name does not end in "-<digits>".
std::uint64_t parse_ordinal_hostname(std::string_view hostname);

}  // namespace idforge::coord
