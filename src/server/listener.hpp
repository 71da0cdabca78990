// Listener: the Boost.Asio transport under the HTTP sessions. One listening socket, a small
// fixed set of I/O threads (io-threads, each with its own io_context), and per connection
// an asynchronous read/write loop driving an HttpSession. Deadlines are checked by one
// timer per thread rather than one per connection, so a request costs no timer operation.
// Handlers of routes marked blocking run on a separate pool so a slow database cannot
// stall the I/O threads. Private to the server target.
#pragma once

#include <memory>

#include "http_session.hpp"

namespace idforge::server {
struct ServerConfig;
class Metrics;
}  // namespace idforge::server

namespace idforge::server::detail {

class Listener {
 public:
  /// dispatcher, config and metrics must outlive the listener.
  Listener(Dispatcher& dispatcher, const ServerConfig& config, Metrics& metrics);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  /// Opens the listening socket on config.bind:config.port (SO_REUSEADDR, never
  /// SO_REUSEPORT: a port in use is an error naming it). Returns the bound port.
  int bind();
  /// Serves on the I/O threads (this one among them) until stop() and every connection has
  /// finished.
  void run();
  /// Closes the listening socket, closes idle connections and lets started requests finish
  /// (their answers carry Connection: close). Thread-safe; a stop before run() makes run()
  /// return at once.
  void stop() noexcept;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// I/O threads for io_threads = 0: one per core, at most 16.
int default_io_threads() noexcept;

}  // namespace idforge::server::detail
