#include "listener.hpp"

#include <fmt/format.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/write.hpp>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "idforge/error.hpp"
#include "idforge/server/config.hpp"
#include "idforge/server/metrics.hpp"
#include "response_writer.hpp"

namespace idforge::server::detail {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;
using Phase = HttpSession::Phase;
using Step = HttpSession::Step;

// How often each I/O thread checks its connections' deadlines: timeouts fire at most this
// much late.
constexpr auto kTick = std::chrono::milliseconds(20);
// Bytes one read takes from a socket.
constexpr std::size_t kReadChunk = 16 * 1024;
// Bytes the asynchronous read that waits for a request takes: a typical request whole.
constexpr std::size_t kFirstRead = 1024;
// After an answer that closes the connection, what the client still sends is read and
// dropped for at most this long and this much, so close() does not reset the connection
// and destroy the answer before the client reads it (RFC 9112 §9.6).
constexpr std::int64_t kLingerNs = 1'000'000'000;
constexpr std::size_t kMaxLingerBytes = 1 << 20;
// Listen backlog: bursts of connects wait in the kernel rather than being dropped.
constexpr int kListenBacklog = 1024;
// Handlers that may wait (Route::blocking, batches of IDs) run on this many threads. More
// measured worse for batches: every waiter wakes at each tick and most find it spent
// (2-core machine, 16 clients: 4 threads 2.0-2.5 k batches/s, 8 or 16 threads 1.2-1.4 k).
constexpr int kBlockingThreads = 4;

class Connection;

struct Worker {
  asio::io_context ctx{1};
  asio::steady_timer ticker{ctx};
  std::vector<Connection*> conns;  // touched only on this worker's thread
  bool stopping = false;
  // Where this worker's connections read (each copies what it got at once): one buffer per
  // connection would cost 16 KiB each.
  std::unique_ptr<char[]> read_buf = std::make_unique<char[]>(kReadChunk);
};

}  // namespace

struct Listener::Impl {
  Impl(Dispatcher& d, const ServerConfig& c, Metrics& m);

  void accept();
  void reject(tcp::socket& s) noexcept;
  // Closes w's connection that has waited longest for its request; false if none waits.
  // On w's thread.
  bool shed_slowest(Worker& w);
  // A connection accepted but not yet handed to its worker.
  struct Pending {
    tcp::socket socket;
    std::string ip;
  };
  void open_on(Worker& target, std::shared_ptr<Pending> p);
  void shed_then_open(Worker& target, std::size_t first, std::size_t tried,
                      std::shared_ptr<Pending> p);
  std::size_t workers_index(const Worker& w) const;
  void tick(Worker& w);

  Dispatcher& dispatcher;
  const ServerConfig& config;
  Metrics& metrics;
  std::vector<std::unique_ptr<Worker>> workers;
  tcp::acceptor acceptor;
  asio::steady_timer accept_pause;
  std::size_t next_worker = 0;
  std::atomic<int> open{0};
  std::optional<asio::thread_pool> blocking;
  std::mutex stop_mu;
  bool stop_requested = false;
  std::string reject_body;
};

namespace {

std::int64_t ms_to_ns(int ms) {
  return std::int64_t{ms} * 1'000'000;
}

class Connection final : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Listener::Impl& l, Worker& w, tcp::socket s, std::string ip)
      : l_(l), w_(w), socket_(std::move(s)), session_(l.dispatcher, std::move(ip)) {
    slot_ = w_.conns.size();
    w_.conns.push_back(this);
  }

  ~Connection() {
    Connection* last = w_.conns.back();
    w_.conns[slot_] = last;
    last->slot_ = slot_;
    w_.conns.pop_back();
    if (!slot_released_) l_.open.fetch_sub(1, std::memory_order_relaxed);
    l_.metrics.connection_closed();
  }

  void start() {
    error_code ec;
    socket_.set_option(tcp::no_delay(true), ec);
    socket_.non_blocking(true, ec);
    if (w_.stopping) stopping_ = true;
    advance();
  }

  // The deadline of the current wait passed: the read is cancelled (its handler answers
  // 408 or closes), a write or a lingering close ends the connection.
  void check(std::int64_t now) noexcept {
    if (closed_ || deadline_ == 0 || now < deadline_) return;
    deadline_ = 0;
    if (writing_ || lingering_) {
      close();
      return;
    }
    timer_fired_ = true;
    error_code ec;
    socket_.cancel(ec);
  }

  void stop() noexcept {
    stopping_ = true;
    if (in_handler_ || closed_) return;  // applied when the handler is done
    if (reading_ && session_.phase() == Phase::idle) {
      error_code ec;
      socket_.cancel(ec);  // the read handler finds the session stopped and closes
    }
  }

  // While it waits for (the rest of) a request and no handler runs: how sheddable it is,
  // lowest first: {0, since} for a request begun and not complete (a head or body still
  // arriving: a trickler), {1, since} for no byte of one yet (idle keep-alive, or a new
  // connection whose request the worker has not read yet: a prompt client must not lose
  // to a trickler for being young); nullopt otherwise.
  std::optional<std::pair<int, std::int64_t>> waiting_since() const noexcept {
    if (closed_ || lingering_ || writing_ || in_handler_ || !reading_) return std::nullopt;
    const Phase p = session_.phase();
    if (p == Phase::head || p == Phase::body) return std::pair{0, phase_start_};
    if (p == Phase::idle) return std::pair{1, phase_start_};
    return std::nullopt;
  }

  // Closed without an answer to make room for a new connection (Worker::shed_slowest). Its
  // slot goes back now, not when the closed socket's handler has run, so a burst of
  // connections does not find the server full of connections already closed.
  void shed() noexcept {
    l_.metrics.connection_shed();
    release_slot();
    close();
  }

  std::size_t slot_ = 0;

 private:
  void advance() {
    if (closed_) return;
    if (stopping_) session_.stop();
    for (;;) {
      switch (session_.advance()) {
        case Step::read:
          if (!read()) return;
          continue;
        case Step::dispatch:
          if (session_.handler_blocks() && l_.blocking) {
            deadline_ = 0;
            in_handler_ = true;
            asio::post(*l_.blocking, [self = shared_from_this()]() mutable {
              self->session_.run_handler();
              Worker& w = self->w_;
              asio::post(w.ctx, [self = std::move(self)] {
                self->in_handler_ = false;
                self->advance();
              });
            });
            return;
          }
          session_.run_handler();
          continue;
        case Step::write:
          if (!write_now()) return;
          continue;
        case Step::close:
          return close();
      }
    }
  }

  // Reads at once if the socket holds something (true: advance() goes on), else starts an
  // asynchronous wait and returns false.
  bool read() {
    const std::int64_t now = steady_ns();
    const Phase p = session_.phase();
    if (p != waiting_) {
      waiting_ = p;
      phase_start_ = now;
    }
    timer_fired_ = false;
    if (p == Phase::idle) {
      deadline_ = now + ms_to_ns(l_.config.keep_alive_timeout_ms);
    } else {
      deadline_ = std::min(phase_start_ + ms_to_ns(l_.config.request_timeout_ms),
                           now + ms_to_ns(l_.config.read_timeout_ms));
    }
    // A read that filled the buffer may have left more behind: read again at once. Else
    // an asynchronous read into this connection's own small buffer. Not async_wait: Asio
    // starts a wait without trying the socket first and re-arms it (EPOLL_CTL_MOD) every
    // time, one system call per request; a read is registered once (edge-triggered) and
    // performed by the reactor when the socket turns readable.
    if (more_ && try_read()) return true;
    const std::size_t want = std::min(room(), first_.size());
    if (want == 0) {  // cannot happen: the session refuses before its input fills
      session_.input_closed();
      return true;
    }
    reading_ = true;
    socket_.async_read_some(asio::buffer(first_.data(), want),
                            [self = shared_from_this(), want](const error_code& ec, std::size_t n) {
                              self->on_read(ec, n, want);
                            });
    return false;
  }

  // How many more bytes the session's input takes (HttpSession::kMaxInput in all).
  std::size_t room() {
    return HttpSession::kMaxInput - std::min(HttpSession::kMaxInput, session_.input().size());
  }

  // Reads what the socket holds without waiting. False when it held nothing; true when
  // bytes, the end of the input, or an error arrived.
  bool try_read() {
    const std::size_t want = std::min(room(), kReadChunk);
    if (want == 0) {  // cannot happen: the session refuses before its input fills
      session_.input_closed();
      return true;
    }
    error_code ec;
    const std::size_t n = socket_.read_some(asio::buffer(w_.read_buf.get(), want), ec);
    if (ec == asio::error::would_block || ec == asio::error::try_again) {
      more_ = false;
      return false;
    }
    if (ec) {
      session_.input_closed();
      return true;
    }
    // Copied at once: the buffer is the worker's, shared by its connections.
    session_.input().append(w_.read_buf.get(), n);
    more_ = n == want;
    return true;
  }

  void on_read(const error_code& ec, std::size_t n, std::size_t want) {
    reading_ = false;
    if (closed_) return;
    if (!ec) {
      session_.input().append(first_.data(), n);
      more_ = n == want;  // the socket may hold more: the next read() takes it at once
    } else if (ec == asio::error::operation_aborted) {
      if (timer_fired_) session_.timed_out();  // otherwise stop() cancelled an idle wait
    } else {
      session_.input_closed();
    }
    timer_fired_ = false;
    advance();
  }

  // Sends what the session wrote, at once if the socket takes it (the common case: no
  // handler round trip), else asynchronously. True when done and advance() may go on.
  bool write_now() {
    const std::string_view out = session_.output();
    waiting_ = Phase::write;
    error_code ec;
    const std::size_t n = socket_.write_some(asio::buffer(out.data(), out.size()), ec);
    if (!ec && n == out.size()) return written();
    if (ec && ec != asio::error::would_block && ec != asio::error::try_again) {
      close();
      return false;
    }
    const std::size_t done = ec ? 0 : n;
    writing_ = true;
    deadline_ = steady_ns() + ms_to_ns(l_.config.write_timeout_ms);
    asio::async_write(socket_, asio::buffer(out.data() + done, out.size() - done),
                      [self = shared_from_this()](const error_code& wec, std::size_t) {
                        self->writing_ = false;
                        if (self->closed_) return;
                        if (wec) return self->close();
                        if (self->written()) self->advance();
                      });
    return false;
  }

  // After a complete write: true when the session goes on, false when it lingers to close.
  bool written() {
    deadline_ = 0;
    const bool closing = session_.closing();
    session_.output_sent();
    // A file body still streaming keeps the session writing, also on a closing connection.
    if (!closing || session_.phase() == Phase::write) return true;
    linger();
    return false;
  }

  // The answer is out: the slot under max-connections goes back now, not after the linger
  // (up to 1 s), so a busy server is not refused by clients it already answered. Lingering
  // sockets stay bounded by time and by the accept loop's pause when descriptors run out.
  void linger() {
    lingering_ = true;
    release_slot();
    error_code ec;
    socket_.shutdown(tcp::socket::shutdown_send, ec);
    deadline_ = steady_ns() + std::min(kLingerNs, ms_to_ns(l_.config.read_timeout_ms));
    linger_read();
  }

  void linger_read() {
    socket_.async_read_some(asio::buffer(w_.read_buf.get(), kReadChunk),
                            [self = shared_from_this()](const error_code& ec, std::size_t n) {
                              if (self->closed_) return;
                              self->lingered_ += n;
                              if (ec || self->lingered_ > kMaxLingerBytes) return self->close();
                              self->linger_read();
                            });
  }

  void release_slot() noexcept {
    if (slot_released_) return;
    slot_released_ = true;
    l_.open.fetch_sub(1, std::memory_order_relaxed);
  }

  void close() noexcept {
    if (closed_) return;
    closed_ = true;
    deadline_ = 0;
    error_code ec;
    socket_.shutdown(tcp::socket::shutdown_both, ec);
    socket_.close(ec);
  }

  Listener::Impl& l_;
  Worker& w_;
  tcp::socket socket_;
  HttpSession session_;
  std::int64_t deadline_ = 0;     // 0: no deadline (a handler runs)
  std::int64_t phase_start_ = 0;  // when the current head or body began
  Phase waiting_ = Phase::closed;
  std::size_t lingered_ = 0;
  bool reading_ = false, writing_ = false, lingering_ = false, closed_ = false;
  bool timer_fired_ = false, stopping_ = false, in_handler_ = false;
  bool more_ = false;  // the last read filled the buffer: the socket may hold more
  // Where the asynchronous read lands; the rest of a larger request is read at once into
  // the worker's buffer (try_read). Small, since every waiting connection holds one.
  std::array<char, kFirstRead> first_{};
  bool slot_released_ = false;  // its max-connections slot was given back (linger, shed)
};

}  // namespace

Listener::Impl::Impl(Dispatcher& d, const ServerConfig& c, Metrics& m)
    : dispatcher(d),
      config(c),
      metrics(m),
      workers([&c] {
        std::vector<std::unique_ptr<Worker>> w;
        const int n = c.io_threads > 0 ? c.io_threads : default_io_threads();
        for (int i = 0; i < n; ++i) w.push_back(std::make_unique<Worker>());
        return w;
      }()),
      acceptor(workers[0]->ctx),
      accept_pause(workers[0]->ctx) {
  reject_body = problem(503, "too-many-connections", "Service Unavailable",
                        fmt::format("max-connections={} are open; retry later", c.max_connections))
                    .body;
}

void Listener::Impl::reject(tcp::socket& s) noexcept {
  metrics.connection_rejected();
  std::string msg;
  write_response(Response{503, "application/problem+json", reject_body, {{"Retry-After", "1"}}, {}},
                 ResponseFraming{false, true, false}, msg);
  // A fresh connection's socket buffer takes a short answer whole; never block on it.
  (void)::send(s.native_handle(), msg.data(), msg.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(s.native_handle(), SHUT_WR);
  // Drain what the client already sent, so close() sends FIN rather than a reset that
  // could destroy the answer before the client reads it.
  char sink[4096];
  while (::recv(s.native_handle(), sink, sizeof sink, MSG_DONTWAIT) > 0) {
  }
  error_code ec;
  s.close(ec);
}

void Listener::Impl::accept() {
  Worker& target = *workers[next_worker];
  next_worker = (next_worker + 1) % workers.size();
  acceptor.async_accept(target.ctx, [this, &target](const error_code& ec, tcp::socket s) {
    if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
    if (ec) {
      // Out of descriptors or memory: wait a little instead of spinning on accept().
      if (ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space ||
          ec == asio::error::no_memory) {
        accept_pause.expires_after(std::chrono::milliseconds(50));
        accept_pause.async_wait([this](const error_code& wec) {
          if (!wec && acceptor.is_open()) accept();
        });
        return;
      }
      return accept();
    }
    // At max-connections a new connection is taken if the worker it goes to can close the
    // connection that has waited longest for its request (an idle keep-alive, or a client
    // trickling its head): clients that send a request at once are served, and slow ones
    // shed first. Twice the cap bounds the connections whose victims are still closing.
    const int now_open = open.load(std::memory_order_relaxed);
    if (now_open >= 2 * config.max_connections) {
      reject(s);
      return accept();
    }
    const bool must_shed = now_open >= config.max_connections;
    open.fetch_add(1, std::memory_order_relaxed);
    metrics.connection_opened();
    error_code rec;
    const auto remote = s.remote_endpoint(rec);
    std::string ip = rec ? std::string("-") : remote.address().to_string();
    auto conn = std::make_shared<Pending>(Pending{std::move(s), std::move(ip)});
    if (must_shed)
      shed_then_open(target, workers_index(target), 0, std::move(conn));
    else
      open_on(target, std::move(conn));
    accept();
  });
}

std::size_t Listener::Impl::workers_index(const Worker& w) const {
  for (std::size_t i = 0; i < workers.size(); ++i)
    if (workers[i].get() == &w) return i;
  return 0;
}

void Listener::Impl::open_on(Worker& target, std::shared_ptr<Pending> p) {
  asio::post(target.ctx, [this, &target, p = std::move(p)]() mutable {
    std::make_shared<Connection>(*this, target, std::move(p->socket), std::move(p->ip))->start();
  });
}

// Each worker's connections are its own thread's: the shed request goes from worker to
// worker (the new connection's first), and the first that closes one opens the new
// connection on its target; if none can, the new one is refused.
void Listener::Impl::shed_then_open(Worker& target, std::size_t first, std::size_t tried,
                                    std::shared_ptr<Pending> p) {
  Worker& w = *workers[(first + tried) % workers.size()];
  asio::post(w.ctx, [this, &target, &w, first, tried, p = std::move(p)]() mutable {
    if (shed_slowest(w)) return open_on(target, std::move(p));
    if (tried + 1 < workers.size()) return shed_then_open(target, first, tried + 1, std::move(p));
    open.fetch_sub(1, std::memory_order_relaxed);
    metrics.connection_closed();
    reject(p->socket);
  });
}

bool Listener::Impl::shed_slowest(Worker& w) {
  Connection* victim = nullptr;
  std::pair<int, std::int64_t> rank{};
  for (Connection* c : w.conns) {
    const auto r = c->waiting_since();
    if (r && (!victim || *r < rank)) victim = c, rank = *r;
  }
  if (!victim) return false;
  victim->shed();
  return true;
}

void Listener::Impl::tick(Worker& w) {
  const std::int64_t now = steady_ns();
  // check() never destroys a connection (its pending operation holds it), so the list
  // does not change under this loop.
  for (Connection* c : w.conns) c->check(now);
  if (w.stopping && w.conns.empty()) return;  // nothing left: let this thread's run() end
  w.ticker.expires_after(kTick);
  w.ticker.async_wait([this, &w](const error_code&) { tick(w); });
}

Listener::Listener(Dispatcher& dispatcher, const ServerConfig& config, Metrics& metrics)
    : impl_(std::make_unique<Impl>(dispatcher, config, metrics)) {}

Listener::~Listener() {
  stop();
  if (impl_->blocking) impl_->blocking->join();
}

int Listener::bind() {
  Impl& l = *impl_;
  const ServerConfig& c = l.config;
  const auto fail = [&c](const std::string& why) -> int {
    throw Error(errc::invalid_argument,
                fmt::format("cannot listen on {}:{}: {}", c.bind, c.port, why));
  };
  error_code ec;
  asio::ip::address address =
      asio::ip::make_address(c.bind == "localhost" ? "127.0.0.1" : c.bind, ec);
  if (ec) return fail("bind='" + c.bind + "' is not an IP address (or localhost)");
  const tcp::endpoint endpoint(address, static_cast<unsigned short>(c.port));
  l.acceptor.open(endpoint.protocol(), ec);
  if (ec) return fail(ec.message());
  // SO_REUSEADDR lets a restarted server bind while its old connections sit in TIME_WAIT;
  // on Linux it never lets a second socket listen on the port. SO_REUSEPORT, which would
  // (and would split the clients between two servers), is never set.
  l.acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  l.acceptor.bind(endpoint, ec);
  if (ec == asio::error::address_in_use)
    return fail(fmt::format("port {} is in use (another process listens on it)", c.port));
  if (ec == boost::system::errc::address_not_available)
    return fail(fmt::format("{} is not an address of this host", c.bind));
  if (ec == asio::error::access_denied)
    return fail(fmt::format("port {} needs privileges", c.port));
  if (ec) return fail(ec.message());
  l.acceptor.listen(kListenBacklog, ec);
  if (ec) return fail(ec.message());
  return l.acceptor.local_endpoint().port();
}

void Listener::run() {
  Impl& l = *impl_;
  if (!l.blocking) l.blocking.emplace(kBlockingThreads);
  for (auto& w : l.workers) {
    Worker& worker = *w;
    asio::post(worker.ctx, [&l, &worker] { l.tick(worker); });
  }
  asio::post(l.workers[0]->ctx, [&l] {
    if (l.acceptor.is_open()) l.accept();
  });
  std::vector<std::thread> threads;
  for (std::size_t i = 1; i < l.workers.size(); ++i)
    threads.emplace_back([&l, i] { l.workers[i]->ctx.run(); });
  l.workers[0]->ctx.run();
  for (auto& t : threads) t.join();
  for (auto& w : l.workers) w->ctx.restart();
}

void Listener::stop() noexcept {
  Impl& l = *impl_;
  {
    std::lock_guard lock(l.stop_mu);
    if (l.stop_requested) return;
    l.stop_requested = true;
  }
  asio::post(l.workers[0]->ctx, [&l] {
    error_code ec;
    l.acceptor.close(ec);
    l.accept_pause.cancel();
  });
  for (auto& w : l.workers) {
    Worker& worker = *w;
    asio::post(worker.ctx, [&worker] {
      worker.stopping = true;
      for (Connection* c : worker.conns) c->stop();
    });
  }
}

int default_io_threads() noexcept {
  const unsigned n = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp<unsigned>(n == 0 ? 2 : n, 1, 16));
}

}  // namespace idforge::server::detail
