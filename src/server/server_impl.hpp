// Server::Impl: the parts behind idforge::server::Server. Private to the server target.
#pragma once

#include <httplib.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "access_log.hpp"
#include "idforge/server/metrics.hpp"
#include "idforge/server/rate_limiter.hpp"
#include "idforge/server/server.hpp"

namespace idforge::server {

/// cpp-httplib's Server with our connection loop (see connection.hpp): httplib parses and
/// routes, we own reading (deadlines), keep-alive and the connection bound.
class HttpServer final : public httplib::Server {
 public:
  explicit HttpServer(idforge::server::Server::Impl& owner) : owner_(owner) {}
  /// True once stop() closed the listening socket.
  bool stopping() const noexcept { return svr_sock_ == INVALID_SOCKET; }
  /// Remembers the listening socket when httplib creates it (see Impl::bind).
  int listen_fd = -1;

 private:
  bool process_and_close_socket(socket_t sock) override;
  idforge::server::Server::Impl& owner_;
};

struct Server::Impl {
  explicit Impl(ServerConfig c);

  ServerConfig config;
  Router router;
  KindRegistry kinds;
  std::shared_ptr<Readiness> readiness = std::make_shared<Readiness>("starting");
  std::vector<std::function<void(std::string&)>> metric_sources;
  std::unique_ptr<Metrics> metrics;
  std::optional<RateLimiter> rate_limiter;
  std::unique_ptr<detail::AccessLog> access_log;
  std::string web_root;
  HttpServer http{*this};
  int port = 0;
  bool bound = false;
  // stop() may come before run() has started listening (a signal right after start-up);
  // httplib's stop() ignores a server not yet running, so the two meet here.
  std::mutex run_mu;
  bool stop_requested = false, run_entered = false;
  std::atomic<bool> run_done{false};
  // Route numbers beyond the router's: files under the web root, and requests that never
  // reached routing (malformed, timed out).
  std::size_t static_route = 0, no_route = 0;

  void add_builtin_routes();
  void install_http_handlers();
  // The pre-routing step: auth, rate limit, body limit, then the route's handler.
  httplib::Server::HandlerResponse dispatch(const httplib::Request& req, httplib::Response& res);
  void log_and_count(const httplib::Request& req, const httplib::Response& res);
};

namespace detail {
/// Per-thread state of the request being served (the connection loop and httplib's
/// callbacks run on the same thread).
class ConnectionStream;
struct RequestState {
  ConnectionStream* stream = nullptr;  ///< flushed before the latency is taken
  std::int64_t start_ns = 0;
  std::size_t route = 0;
  bool close = false;  ///< close the connection after this response
};
RequestState& request_state() noexcept;
}  // namespace detail

}  // namespace idforge::server
