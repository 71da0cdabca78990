// A small blocking HTTP/1.1 client for the service tests, on Boost.Beast: one request at a
// time, a new connection per request unless keep-alive is on, 5 s socket timeouts.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace idforge::test {

using Headers = std::vector<std::pair<std::string, std::string>>;

/// A response as received.
struct HttpResult {
  int status = 0;
  std::string body;
  Headers headers;
  /// The first header called name (case-insensitive), or "".
  std::string get_header_value(std::string_view name) const;
  bool has_header(std::string_view name) const;
};

class HttpClient {
 public:
  HttpClient(std::string host, int port);
  ~HttpClient();
  HttpClient(HttpClient&&) noexcept;
  HttpClient& operator=(HttpClient&&) noexcept;
  /// Keeps one connection for the following requests (default: one per request).
  void set_keep_alive(bool on);
  /// nullopt when the connection or the exchange failed.
  std::optional<HttpResult> Get(const std::string& target, const Headers& headers = {});
  std::optional<HttpResult> Head(const std::string& target, const Headers& headers = {});
  std::optional<HttpResult> Post(const std::string& target, const std::string& body,
                                 const std::string& content_type);
  std::optional<HttpResult> Delete(const std::string& target);
  std::optional<HttpResult> send(const std::string& method, const std::string& target,
                                 const Headers& headers, const std::string& body);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace idforge::test
