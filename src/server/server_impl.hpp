// Server::Impl: the parts behind idforge::server::Server. Private to the server target.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "access_log.hpp"
#include "http_session.hpp"
#include "idforge/server/metrics.hpp"
#include "idforge/server/rate_limiter.hpp"
#include "idforge/server/server.hpp"
#include "listener.hpp"

namespace idforge::server {

struct Server::Impl final : detail::Dispatcher {
  Impl(ServerConfig c, Clock& clk);
  ~Impl() override;

  ServerConfig config;
  Clock& clock;
  Router router;
  KindRegistry kinds;
  std::shared_ptr<Readiness> readiness = std::make_shared<Readiness>("starting");
  std::vector<std::function<void(std::string&)>> metric_sources;
  std::unique_ptr<Metrics> metrics;
  std::optional<RateLimiter> rate_limiter;
  std::unique_ptr<detail::AccessLog> access_log;
  std::string web_root;
  std::unique_ptr<detail::Listener> listener;
  std::mutex life_mu;                 // bind() and stop() from different threads
  bool stop_requested = false;        // stop() came before bind()
  std::atomic<bool> stopping{false};  // ends the waits of handlers (WaitBound)
  int port = 0;
  bool bound = false;
  std::once_flag frozen;
  // Route numbers beyond the router's: files under the web root, and requests that never
  // reached routing (malformed, timed out).
  std::size_t static_route = 0, no_route = 0;
  std::size_t ids_route = static_cast<std::size_t>(-1);  // GET /v1/ids/{kind}

  void add_builtin_routes();
  /// Builds the metrics tables from the routes and kinds; afterwards both are fixed.
  void freeze();

  // detail::Dispatcher
  void route(const detail::RequestHead& head, detail::Exchange& x) override;
  void run_handler(const detail::RequestHead& head, detail::Exchange& x) noexcept override;
  void answered(const detail::Exchange& x, std::string_view request_line,
                std::string_view remote_ip, std::int64_t end_ns) noexcept override;
  std::size_t unrouted_index() const noexcept override { return no_route; }
  std::uint64_t max_body_bytes() const noexcept override { return config.max_body_bytes; }
};

}  // namespace idforge::server
