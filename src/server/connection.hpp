// The connection layer under cpp-httplib: a Stream that reads the whole request head
// against a deadline (so a client sending a byte now and then cannot hold a thread), and a
// task queue that bounds open connections. Private to the server target.
#pragma once

#include <httplib.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace idforge::server::detail {

/// Monotonic ns for deadlines and latency.
std::int64_t steady_ns() noexcept;

/// A Stream over one accepted socket, kept for the life of the connection so bytes read
/// ahead (a pipelined request) stay buffered between requests.
class ConnectionStream final : public httplib::Stream {
 public:
  /// What wait_for_head() found.
  enum class Head { complete, closed, timed_out, too_large, stopped };

  ConnectionStream(int fd, int read_timeout_ms, int write_timeout_ms) noexcept
      : fd_(fd), read_timeout_ms_(read_timeout_ms), write_timeout_ms_(write_timeout_ms) {}

  /// Waits up to idle_ms for the first byte of the next request, then until the head
  /// ("\r\n\r\n") has arrived, at most head_ms after that first byte and max_head bytes.
  /// stop() is polled every 50 ms while idle.
  Head wait_for_head(int idle_ms, int head_ms, std::size_t max_head, const std::function<bool()>& stop);

  /// Sends what write() buffered; false if the client does not take it within the write
  /// timeout. Responses are buffered so head and body leave in one send().
  bool flush();

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return fd_; }

 private:
  // Reads what is available into buf_, waiting up to timeout_ms if nothing is; <=0 on
  // close/error/timeout.
  ssize_t fill(int timeout_ms);
  int fd_;
  int read_timeout_ms_, write_timeout_ms_;
  std::string buf_;
  std::size_t off_ = 0;
  std::string out_;  // written, not yet sent
  // The addresses do not change for the life of a connection; httplib asks on every request.
  mutable std::string remote_ip_, local_ip_;
  mutable int remote_port_ = -1, local_port_ = -1;
};

/// Writes a complete HTTP response (status, problem+json body, Connection: close) without
/// blocking and closes the socket; for connections turned away before any thread serves them.
void reject_socket(int fd, int status, const std::string& body) noexcept;

/// A thread pool with one thread per allowed connection. Over the bound, enqueue() runs
/// the task at once on the accepting thread with rejecting() true, so the connection is
/// answered 503 and closed instead of waiting in an unbounded queue.
class BoundedTaskQueue final : public httplib::TaskQueue {
 public:
  BoundedTaskQueue(std::size_t max_connections, std::function<void()> on_reject);
  void enqueue(std::function<void()> fn) override;
  void shutdown() override { pool_.shutdown(); }
  /// True on the thread running a task that is being turned away.
  static bool rejecting() noexcept;

 private:
  httplib::ThreadPool pool_;
  std::size_t max_;
  std::atomic<std::size_t> active_{0};
  std::function<void()> on_reject_;
};

}  // namespace idforge::server::detail
