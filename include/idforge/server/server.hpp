// Server: the HTTP face of idforge. It owns the route table, the kind registry, the
// readiness flag and the metrics, and serves them over HTTP/1.1 on one listening socket
// (Boost.Beast's parser, Boost.Asio's sockets on a few I/O threads; docs/SERVICE.md).
// It issues nothing itself: the caller registers kinds (add_snowflake_kind, ...) and drives
// readiness (a fixed node, or a lease), so the business logic stays in core and the wings.
//
// Life cycle: construct, register, bind() (the port is known now; 0 picks a free one),
// run() on some thread until stop() (from any thread) lets in-flight requests finish.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "idforge/clock.hpp"
#include "idforge/server/config.hpp"
#include "idforge/server/kinds.hpp"
#include "idforge/server/readiness.hpp"
#include "idforge/server/router.hpp"

namespace idforge::server {

class Metrics;

class Server {
 public:
  /// Checks config (validate()) and registers the built-in routes: /v1/ids/{kind},
  /// /v1/inspect/{id}, /healthz, /readyz, /metrics and, without a web root, an index at /.
  /// clock is what the server's own time rules read (the rate limiter, the layout check,
  /// a simulation's default start, a lease's fence); it must outlive the server. Tests pass
  /// a ManualClock.
  explicit Server(ServerConfig config, Clock& clock = SystemClock::instance());
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Routes: add more before bind().
  Router& router() noexcept;
  /// ID kinds: add before bind().
  KindRegistry& kinds() noexcept;
  /// The readiness flag /readyz reports and node-bound kinds obey. Starts not ready.
  const std::shared_ptr<Readiness>& readiness() const noexcept;
  /// Adds exposition lines to /metrics (called on each scrape). Before bind().
  void add_metrics_source(std::function<void(std::string& out)> source);

  /// Opens the listening socket on config().bind:config().port; returns the bound port.
  /// Throws Error(errc::invalid_argument) naming the address and port when it cannot be
  /// bound, a port in use included (no two servers ever share a port).
  int bind();
  /// Serves until stop(); then waits for in-flight requests and returns.
  void run();
  /// Stops accepting and makes run() return once open requests are answered. Thread-safe.
  void stop() noexcept;

  /// Serves request_bytes as one connection would that sends them and then closes its
  /// side, and returns every byte the server writes back: the HTTP parser, the router and
  /// the handlers in-process, without a socket or timeouts (for fuzzing and tests). Fixes
  /// the routes and kinds like bind(); may be called from several threads at once.
  std::string exchange(std::string_view request_bytes);

  /// The bound port (after bind()).
  int port() const noexcept;
  /// "http://<bind>:<port>/" (IPv6 addresses in brackets).
  std::string url() const;
  /// The folder served at /, or empty when the built-in index is served.
  const std::string& web_root() const noexcept;
  const ServerConfig& config() const noexcept;
  /// The clock the server was given.
  Clock& clock() const noexcept;
  /// The live metrics (after bind()).
  const Metrics& metrics() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// The folder served at / when config.web_root is empty: the first of <source>/web/dist
/// and <install prefix>/share/idforge/web that exists; empty when neither does.
std::string default_web_root();

}  // namespace idforge::server
