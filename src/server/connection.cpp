#include "connection.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string_view>

namespace idforge::server::detail {
namespace {

thread_local bool tl_rejecting = false;
// Buffered response bytes are sent once this many are waiting (and at the end of each response).
constexpr std::size_t kFlushAt = 64 * 1024;

// poll() for one event, retrying on EINTR; >0 ready, 0 timeout, <0 error.
int wait_for(int fd, short events, int timeout_ms) noexcept {
  for (;;) {
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r > 0 && (p.revents & (POLLERR | POLLNVAL))) return -1;
    return r;
  }
}

void address_of(const sockaddr_storage& ss, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = {0};
  if (ss.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
    inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
    port = ntohs(a->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
    inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
    port = ntohs(a->sin6_port);
  }
  ip = text;
}

}  // namespace

std::int64_t steady_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

ssize_t ConnectionStream::fill(int timeout_ms) {
  if (off_ == buf_.size()) {
    buf_.clear();
    off_ = 0;
  }
  const std::size_t old = buf_.size();
  buf_.resize(old + 16384);
  // Try first, wait only if nothing is there: one syscall in the common case.
  ssize_t n;
  do n = ::recv(fd_, buf_.data() + old, 16384, MSG_DONTWAIT);
  while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && wait_for(fd_, POLLIN, timeout_ms) > 0) {
    do n = ::recv(fd_, buf_.data() + old, 16384, MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
  }
  buf_.resize(old + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
  return n;
}

ConnectionStream::Head ConnectionStream::wait_for_head(int idle_ms, int head_ms, std::size_t max_head,
                                                       const std::function<bool()>& stop) {
  // Idle (keep-alive) wait, in slices so a shutdown is noticed within 50 ms.
  const std::int64_t idle_end = steady_ns() + std::int64_t{idle_ms} * 1'000'000;
  while (off_ == buf_.size()) {
    if (stop()) return Head::stopped;
    const std::int64_t left = idle_end - steady_ns();
    if (left <= 0) return Head::closed;
    const int slice = static_cast<int>(std::min<std::int64_t>(50, (left + 999'999) / 1'000'000));
    const int r = wait_for(fd_, POLLIN, slice);
    if (r < 0) return Head::closed;
    if (r > 0 && fill(0) <= 0) return Head::closed;
  }
  // The head must be complete within head_ms of its first byte, however slowly it trickles.
  const std::int64_t deadline = steady_ns() + std::int64_t{head_ms} * 1'000'000;
  std::size_t scanned = off_;
  for (;;) {
    const std::string_view pending(buf_.data() + off_, buf_.size() - off_);
    const std::size_t from = scanned > off_ + 3 ? scanned - off_ - 3 : 0;
    if (pending.find("\n\r\n", from) != std::string_view::npos ||
        pending.find("\n\n", from) != std::string_view::npos)
      return Head::complete;
    if (pending.size() > max_head) return Head::too_large;
    scanned = buf_.size();
    const std::int64_t left = deadline - steady_ns();
    if (left <= 0) return Head::timed_out;
    const int wait_ms = static_cast<int>(std::min<std::int64_t>(read_timeout_ms_, (left + 999'999) / 1'000'000));
    const int r = wait_for(fd_, POLLIN, wait_ms);
    if (r < 0) return Head::closed;
    if (r == 0) return Head::timed_out;  // deadline passed, or one read waited read_timeout_ms
    if (fill(0) <= 0) return Head::closed;
  }
}

bool ConnectionStream::is_readable() const {
  return off_ < buf_.size() || wait_for(fd_, POLLIN, read_timeout_ms_) > 0;
}

bool ConnectionStream::is_writable() const {
  return out_.size() < kFlushAt || wait_for(fd_, POLLOUT, write_timeout_ms_) > 0;
}

ssize_t ConnectionStream::read(char* ptr, size_t size) {
  if (off_ == buf_.size()) {
    // The client may be waiting for what we wrote (100-continue) before it sends more.
    if (!out_.empty() && !flush()) return -1;
    if (fill(read_timeout_ms_) <= 0) return -1;
  }
  const std::size_t n = std::min(size, buf_.size() - off_);
  std::memcpy(ptr, buf_.data() + off_, n);
  off_ += n;
  return static_cast<ssize_t>(n);
}

ssize_t ConnectionStream::write(const char* ptr, size_t size) {
  out_.append(ptr, size);
  if (out_.size() >= kFlushAt && !flush()) return -1;
  return static_cast<ssize_t>(size);
}

bool ConnectionStream::flush() {
  std::size_t done = 0;
  while (done < out_.size()) {
    const ssize_t n = ::send(fd_, out_.data() + done, out_.size() - done, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) || wait_for(fd_, POLLOUT, write_timeout_ms_) <= 0) {
      out_.clear();
      return false;
    }
  }
  out_.clear();
  return true;
}

void ConnectionStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  if (remote_port_ < 0) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&ss), &len) == 0) address_of(ss, remote_ip_, remote_port_);
  }
  ip = remote_ip_;
  port = remote_port_;
}

void ConnectionStream::get_local_ip_and_port(std::string& ip, int& port) const {
  if (local_port_ < 0) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&ss), &len) == 0) address_of(ss, local_ip_, local_port_);
  }
  ip = local_ip_;
  port = local_port_;
}

void reject_socket(int fd, int status, const std::string& body) noexcept {
  const std::string reason = status == 503 ? "Service Unavailable" : status == 408 ? "Request Timeout"
                             : status == 431                       ? "Request Header Fields Too Large"
                                                                   : "Error";
  const std::string msg = "HTTP/1.1 " + std::to_string(status) + " " + reason +
                          "\r\nContent-Type: application/problem+json\r\nContent-Length: " +
                          std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  // The socket buffer of a fresh connection takes a short answer whole; never block on it.
  (void)::send(fd, msg.data(), msg.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(fd, SHUT_WR);
  // Drain what the client already sent, so close() sends FIN rather than a reset that
  // could destroy the answer before the client reads it.
  char sink[4096];
  while (::recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0) {
  }
  ::close(fd);
}

BoundedTaskQueue::BoundedTaskQueue(std::size_t max_connections, std::function<void()> on_reject)
    : pool_(max_connections), max_(max_connections), on_reject_(std::move(on_reject)) {}

void BoundedTaskQueue::enqueue(std::function<void()> fn) {
  if (active_.fetch_add(1, std::memory_order_acq_rel) >= max_) {
    active_.fetch_sub(1, std::memory_order_acq_rel);
    if (on_reject_) on_reject_();
    tl_rejecting = true;
    fn();
    tl_rejecting = false;
    return;
  }
  pool_.enqueue([this, fn = std::move(fn)] {
    fn();
    active_.fetch_sub(1, std::memory_order_acq_rel);
  });
}

bool BoundedTaskQueue::rejecting() noexcept { return tl_rejecting; }

}  // namespace idforge::server::detail
