// A live idforge server on 127.0.0.1 (port 0: a free one), run in this process, plus
// helpers to talk to it through a small HTTP client and through raw sockets.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "http_client.hpp"
#include "idforge/server/server.hpp"
#include "idforge/snowflake_generator.hpp"

namespace idforge::test {

class LiveServer {
 public:
  /// Starts a server with config (port forced to 0, access log off unless set) after
  /// letting customize register more; ready = the readiness flag starts set; fixed = serve
  /// snowflakes from a generator with a fixed node (config.node, default 1).
  explicit LiveServer(server::ServerConfig config = {},
                      std::function<void(server::Server&)> customize = {}, bool ready = true,
                      bool fixed = true);
  ~LiveServer();
  server::Server& server() { return *server_; }
  int port() const { return server_->port(); }
  /// A client for this server with 5 s timeouts.
  HttpClient client() const;

 private:
  std::unique_ptr<SharedSnowflakeGenerator> gen_;
  std::unique_ptr<server::Server> server_;
  std::thread thread_;
};

/// Connects a TCP socket to 127.0.0.1:port; -1 on failure.
int connect_local(int port);
/// Sends all of data; false on error.
bool send_all(int fd, const std::string& data);
/// Reads until the peer closes or timeout_ms passes with nothing new; returns what came.
std::string read_until_close(int fd, int timeout_ms);
/// The status code of a raw HTTP response ("HTTP/1.1 408 ..." -> 408), or 0.
int status_of(const std::string& raw_response);

}  // namespace idforge::test
