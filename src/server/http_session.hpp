// HttpSession: one connection's HTTP/1.1 exchange without the socket. Bytes go in
// (input()), advance() says what the connection must do next (read, run a handler, write
// output(), close), and the session keeps the request framing, keep-alive, pipelining,
// 100-continue and the access log. The Asio connection (listener.cpp) only moves bytes and
// watches deadlines; the in-process path (Server::exchange, the request fuzzer) drives the
// very same code. Private to the server target.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "idforge/server/router.hpp"
#include "request_head.hpp"
#include "target.hpp"

namespace idforge::server {
class Server;
}

namespace idforge::server::detail {

/// One request on its way through routing: what the router found and the answer.
struct Exchange {
  Target target;
  const Router::Route* route = nullptr;  ///< set while a handler still has to run
  bool blocking = false;                 ///< run the handler off the I/O threads (it may wait)
  bool requeue = false;  ///< the handler would have waited inline: run it again, blocking
  std::vector<std::pair<std::string, std::string>> params;
  std::size_t route_index = 0;  ///< metrics label
  Response response;
  bool head_only = false;
  std::int64_t start_ns = 0;
  void clear() noexcept;
};

/// What routing and the handlers need from the server (Server::Impl implements it).
class Dispatcher {
 public:
  virtual ~Dispatcher() = default;
  /// Routes a complete request: fills x.response (an answer that needs no handler) or
  /// x.route and x.params (a handler to run with run_handler).
  virtual void route(const RequestHead& head, Exchange& x) = 0;
  /// Runs x.route's handler into x.response; an exception becomes a 500 problem.
  virtual void run_handler(const RequestHead& head, Exchange& x) noexcept = 0;
  /// Counts and logs one answered request.
  virtual void answered(const Exchange& x, std::string_view request_line,
                        std::string_view remote_ip, std::int64_t end_ns) noexcept = 0;
  /// The label index for requests refused before routing.
  virtual std::size_t unrouted_index() const noexcept = 0;
  virtual std::uint64_t max_body_bytes() const noexcept = 0;
};

class HttpSession {
 public:
  /// Where the session waits; the connection picks its deadline from it.
  enum class Phase {
    idle,     ///< no byte of the next request yet (keep-alive-timeout-ms)
    head,     ///< part of a head (request-timeout-ms, read-timeout-ms)
    body,     ///< part of a body (request-timeout-ms, read-timeout-ms)
    handler,  ///< a handler runs
    write,    ///< output() is being sent (write-timeout-ms)
    closed,
  };
  /// What the connection does next.
  enum class Step { read, dispatch, write, close };

  /// Requests served on one connection before it closes (bounds per-connection state).
  static constexpr std::size_t kMaxRequestsPerConnection = 100'000;
  /// A file body goes out in pieces of this size: the memory it costs a connection.
  static constexpr std::size_t kFileChunk = 64 * 1024;
  /// Input buffered at most: a head at its limit plus one read.
  static constexpr std::size_t kMaxInput = kMaxHeadBytes + 16 * 1024;

  HttpSession(Dispatcher& server, std::string remote_ip);

  /// Received bytes are appended here (at most kMaxInput in all).
  std::string& input() noexcept { return in_; }
  /// Processes what is buffered as far as it goes.
  Step advance();
  Phase phase() const noexcept;
  /// In Step::dispatch: true when the handler may wait (on an outside system, or for the
  /// clock): it should run off the I/O thread.
  bool handler_blocks() const noexcept { return x_.route && x_.blocking; }
  /// In Step::dispatch: runs the handler (on any thread); the next advance() frames its
  /// answer and returns Step::write.
  void run_handler() noexcept;
  /// In Step::write: the bytes to send.
  std::string_view output() const noexcept { return out_; }
  /// output() has been sent whole.
  void output_sent() noexcept;
  /// The client closed its side (or the connection failed).
  void input_closed() noexcept { eof_ = true; }
  /// The deadline of phase() passed: a started request is answered 408, an idle one closes.
  void timed_out() noexcept;
  /// The server stops: an idle session closes, a started request is answered with
  /// Connection: close.
  void stop() noexcept { stopping_ = true; }
  /// The output being written ends the connection.
  bool closing() const noexcept { return closing_; }

 private:
  enum class State { head, body, route, handler, write, closed };
  void begin_request() noexcept;
  void respond(bool interim = false);
  void refuse(const HttpError& err, std::string_view request_line);
  HttpError body_error(const boost::beast::error_code& ec) const;
  std::string_view first_line() const noexcept;

  Dispatcher& server_;
  std::string remote_ip_;
  State state_ = State::head;
  std::string in_;        // received, not yet consumed
  std::string head_buf_;  // the current head (RequestHead's views point into it)
  std::string out_;
  HeadScan scan_;
  RequestHead head_;
  std::optional<RequestParser> parser_;
  Exchange x_;
  std::string log_line_;  // request line of a refused head, for the log
  std::size_t served_ = 0;
  std::uint64_t file_sent_ = 0, file_left_ = 0;  // of x_.response.file, while it streams
  bool eof_ = false, stopping_ = false, closing_ = false, interim_ = false, timed_out_ = false;
};

/// Monotonic ns for deadlines and latency.
std::int64_t steady_ns() noexcept;

}  // namespace idforge::server::detail
