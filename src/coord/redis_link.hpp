// One connection to one Redis, as the Redis lease store uses it: a command in, a reply
// out, both bounded by a timeout. Internal to idforge::coord. redis_link.cpp implements it
// with hiredis; the interleaving explorer links an in-memory double in its place.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "idforge/coord/lease_url.hpp"

namespace idforge::coord::detail {

/// A Redis reply, copied out of the client library's.
struct RedisReply {
  enum class Type : std::uint8_t { nil, integer, string, array, status, error };
  Type type = Type::nil;
  long long integer = 0;
  std::string str;  ///< string, status and error replies
  std::vector<RedisReply> elements;
};

class RedisLink {
 public:
  /// Connects lazily, on the first command. timeout_ms bounds connecting and each reply.
  /// client_name, when given, names every connection (CLIENT SETNAME; an error is ignored).
  RedisLink(Endpoint endpoint, std::int64_t timeout_ms, std::string store_url,
            std::string client_name = "");
  ~RedisLink();
  RedisLink(const RedisLink&) = delete;
  RedisLink& operator=(const RedisLink&) = delete;

  /// Runs one command. Throws LeaseError: unreachable (no connection, no reply within the
  /// timeout; the connection is then dropped, never reused), rejected (an error reply).
  RedisReply command(const std::vector<std::string>& args);

 private:
  Endpoint endpoint_;
  std::int64_t timeout_ms_;
  std::string store_url_;
  std::string client_name_;
  void* ctx_ = nullptr;  // redisContext*
};

}  // namespace idforge::coord::detail
