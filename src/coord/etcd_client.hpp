// A minimal client for etcd v3's JSON gateway (POST /v3/...), over libcurl, with failover:
// each call goes to the member that answered last, and on a transport error or an
// "unavailable" answer (no leader, leader changed, timed out) moves on to the next listed
// member. A call therefore takes at most members x timeout. Internal to idforge::coord.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "idforge/coord/lease_url.hpp"

namespace idforge::coord::detail {

class EtcdClient {
 public:
  /// timeout_ms bounds each request (and connecting, at most 1 s of it).
  EtcdClient(std::vector<Endpoint> endpoints, std::int64_t timeout_ms, std::string store_url);
  ~EtcdClient();
  EtcdClient(const EtcdClient&) = delete;
  EtcdClient& operator=(const EtcdClient&) = delete;

  /// POSTs body to path (such as "/v3/kv/txn") and returns the parsed answer. Throws
  /// LeaseError: unreachable when no member answered, rejected for a non-retryable error.
  nlohmann::json call(const std::string& path, const nlohmann::json& body);
  /// The member that answered last, "host:port".
  std::string current() const;

  /// Standard base64 (RFC 4648 section 4), as the gateway encodes keys and values.
  static std::string encode64(std::string_view bytes);
  /// The inverse; throws LeaseError(rejected) on invalid input.
  std::string decode64(std::string_view text) const;
  /// An int64 field that protobuf's JSON mapping writes as a string; 0 if absent.
  static std::int64_t int_field(const nlohmann::json& j, const char* key);

 private:
  // One attempt at one member. Returns true with out set, or false with why set (retryable).
  bool attempt(std::size_t member, const std::string& path, const std::string& body,
               nlohmann::json& out, std::string& why);

  std::vector<Endpoint> endpoints_;
  std::int64_t timeout_ms_;
  std::string store_url_;
  std::size_t current_ = 0;
  void* curl_ = nullptr;  // CURL*, reused so keep-alive saves a connect per call
};

}  // namespace idforge::coord::detail
