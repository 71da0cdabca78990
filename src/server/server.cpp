// Server: binding, the connection loop, dispatch, logging. The built-in routes are in
// builtin_routes.cpp.
//
// Why cpp-httplib and not Boost.Beast: httplib 0.11 (Debian) covers every requirement once
// its socket loop is replaced (process_and_close_socket is virtual): request-head deadlines,
// a connection bound that answers 503 at once, keep-alive that notices shutdown.
#include <fmt/format.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "connection.hpp"
#include "idforge/error.hpp"
#include "idforge/time_format.hpp"
#include "server_impl.hpp"

namespace idforge::server {
namespace {

// Requests served on one connection before it is closed (bounds per-connection state).
constexpr std::size_t kMaxRequestsPerConnection = 100'000;
// Largest request head (request line + headers) read before answering 431.
constexpr std::size_t kMaxHeadBytes = 64 * 1024;
// Backlog of the listening socket; httplib's built-in one (5) drops bursts of connects.
constexpr int kListenBacklog = 1024;

bool constant_time_equal(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;  // the length of the token is not the secret
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

bool has_body(const httplib::Request& req) {
  if (req.has_header("Transfer-Encoding")) return true;
  const std::string len = req.get_header_value("Content-Length");
  return !len.empty() && len != "0";
}

std::uint64_t content_length(const httplib::Request& req) {
  const std::string len = req.get_header_value("Content-Length");
  try {
    return len.empty() ? 0 : std::stoull(len);
  } catch (...) {
    return UINT64_MAX;
  }
}

const char* status_title(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 416: return "Range Not Satisfiable";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
    default: return status >= 500 ? "Internal Server Error" : "Error";
  }
}

void apply(httplib::Response& res, Response&& r) {
  res.status = r.status;
  for (auto& [k, v] : r.headers) res.set_header(k, v);
  res.body = std::move(r.body);
  res.set_header("Content-Type", r.content_type);
}

}  // namespace

namespace detail {
RequestState& request_state() noexcept {
  thread_local RequestState state;
  return state;
}
}  // namespace detail

// ---------------------------------------------------------------------------------------
// The connection loop

bool HttpServer::process_and_close_socket(socket_t sock) {
  idforge::server::Server::Impl& o = owner_;
  if (detail::BoundedTaskQueue::rejecting()) {
    detail::reject_socket(sock, 503,
                          problem(503, "too-many-connections", "Service Unavailable",
                                  fmt::format("max-connections={} are open; retry later", o.config.max_connections))
                              .body);
    return true;
  }
  o.metrics->connection_opened();
  detail::ConnectionStream strm(sock, o.config.read_timeout_ms, o.config.write_timeout_ms);
  bool ret = true;
  bool closed_by_reject = false;
  for (std::size_t served = 0; served < kMaxRequestsPerConnection; ++served) {
    using Head = detail::ConnectionStream::Head;
    const Head head = strm.wait_for_head(o.config.keep_alive_timeout_ms, o.config.request_timeout_ms,
                                         kMaxHeadBytes, [this] { return stopping(); });
    if (head == Head::closed || head == Head::stopped) break;
    if (head == Head::timed_out || head == Head::too_large) {
      const bool slow = head == Head::timed_out;
      const int status = slow ? 408 : 431;
      const std::string detail =
          slow ? fmt::format("the request head did not arrive within {} ms (request-timeout-ms) or stalled for {} ms "
                             "(read-timeout-ms)",
                             o.config.request_timeout_ms, o.config.read_timeout_ms)
               : fmt::format("the request head exceeds {} bytes", kMaxHeadBytes);
      std::string ip;
      int port = 0;
      strm.get_remote_ip_and_port(ip, port);
      detail::reject_socket(sock, status, problem(status, slow ? "request-timeout" : "head-too-large",
                                                  status_title(status), detail)
                                              .body);
      closed_by_reject = true;
      o.metrics->record_request(o.no_route, status, 0);
      if (o.access_log->enabled())
        o.access_log->write(fmt::format("{} {} \"-\" {} 0 -\n", format_iso8601_ms(std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count()), ip, status));
      break;
    }
    detail::RequestState& st = detail::request_state();
    st = detail::RequestState{&strm, detail::steady_ns(), o.no_route, false};
    bool connection_closed = false;
    const bool last = stopping() || served + 1 == kMaxRequestsPerConnection;
    ret = process_request(strm, last, connection_closed, nullptr) && strm.flush();
    st.stream = nullptr;
    if (!ret || connection_closed || st.close || last) break;
  }
  if (!closed_by_reject) {
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
  }
  o.metrics->connection_closed();
  return ret;
}

// ---------------------------------------------------------------------------------------
// Server::Impl

Server::Impl::Impl(ServerConfig c) : config(std::move(c)) {
  validate(config);
  web_root = config.web_root.empty() ? default_web_root() : config.web_root;
  if (!config.web_root.empty() && !std::filesystem::is_directory(config.web_root))
    throw Error(errc::invalid_argument, "web-root='" + config.web_root + "': not a folder");
  if (config.rate_limit > 0) rate_limiter.emplace(config.rate_limit, config.rate_burst, SystemClock::instance());
  access_log = std::make_unique<detail::AccessLog>(config.access_log);
}

httplib::Server::HandlerResponse Server::Impl::dispatch(const httplib::Request& req, httplib::Response& res) {
  detail::RequestState& st = detail::request_state();
  using HR = httplib::Server::HandlerResponse;
  // The body of a GET is never read: close after answering so it cannot be taken for
  // the next request.
  if (has_body(req)) {
    st.close = true;
    res.set_header("Connection", "close");
    if (content_length(req) > config.max_body_bytes) {
      apply(res, problem(413, "body-too-large", status_title(413),
                         fmt::format("Content-Length {} exceeds max-body-bytes={}", req.get_header_value("Content-Length"),
                                     config.max_body_bytes)));
      return HR::Handled;
    }
  }
  Router::Match m = router.match(req.method, req.path);
  const bool api = req.path == "/v1" || req.path.rfind("/v1/", 0) == 0;
  if (!m.route) {
    if (!m.allow.empty()) {
      Response r = problem(405, "method-not-allowed", status_title(405),
                           fmt::format("{} {} is not served; allowed: {}", req.method, req.path, m.allow));
      r.headers.emplace_back("Allow", m.allow);
      apply(res, std::move(r));
      return HR::Handled;
    }
    if (api || web_root.empty()) {
      apply(res, problem(404, "not-found", status_title(404), fmt::format("no resource at {}", req.path)));
      return HR::Handled;
    }
    st.route = static_route;
    return HR::Unhandled;
  }
  st.route = m.index;
  const std::string& pattern = m.route->pattern;
  const bool guarded = pattern.rfind("/v1/", 0) == 0 || pattern == "/metrics";
  if (guarded && !config.token.empty()) {
    const std::string auth = req.get_header_value("Authorization");
    const std::string want = "Bearer " + config.token;
    if (!constant_time_equal(auth, want)) {
      Response r = problem(401, "unauthorized", status_title(401),
                           auth.empty() ? "this server requires Authorization: Bearer <token>"
                                        : "the bearer token does not match");
      r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"idforge\"");
      apply(res, std::move(r));
      return HR::Handled;
    }
  }
  if (api && rate_limiter && !rate_limiter->try_acquire()) {
    Response r = problem(429, "rate-limited", status_title(429),
                         fmt::format("over rate-limit={}/s (burst {})", config.rate_limit,
                                     config.rate_burst > 0 ? config.rate_burst : config.rate_limit));
    r.headers.emplace_back("Retry-After", std::to_string(rate_limiter->retry_after_s()));
    apply(res, std::move(r));
    return HR::Handled;
  }
  const Request::Source source{
      [&req](std::string_view name) -> std::optional<std::string> {
        const std::string key(name);
        if (!req.has_header(key)) return std::nullopt;
        return req.get_header_value(key);
      },
      [&req](std::string_view name) -> std::optional<std::string> {
        const std::string key(name);
        if (!req.has_param(key)) return std::nullopt;
        return req.get_param_value(key);
      }};
  const Request request(req.method, req.path, std::move(m.params), source);
  apply(res, m.route->handler(request));
  return HR::Handled;
}

void Server::Impl::log_and_count(const httplib::Request& req, const httplib::Response& res) {
  detail::RequestState& st = detail::request_state();
  // A request that failed before routing (malformed, URI too long) leaves the stream in an
  // unknown place: close rather than parse the rest as another request.
  if (st.route == no_route && res.status >= 400) st.close = true;
  // The response is complete in the stream's buffer: send it, then take the time.
  if (st.stream) st.stream->flush();
  const std::int64_t took = detail::steady_ns() - st.start_ns;
  metrics->record_request(st.route, res.status, took);
  if (!access_log->enabled()) return;
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  access_log->write(fmt::format("{} {} \"{} {} {}\" {} {} {:.3f}ms\n", format_iso8601_ms(now_ms), req.remote_addr,
                                req.method, req.target.empty() ? req.path : req.target, req.version, res.status,
                                res.body.size(), static_cast<double>(took) * 1e-6));
}

void Server::Impl::install_http_handlers() {
  http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) { return dispatch(req, res); });
  http.set_error_handler(httplib::Server::HandlerWithResponse(
      [](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        const int status = res.status;
        std::string detail;
        switch (status) {
          case 400: detail = "the request line or a header is malformed"; break;
          case 404: detail = "no resource at " + req.path; break;
          case 413: detail = "the body is too large"; break;
          case 414: detail = "the request target exceeds 8192 bytes"; break;
          default: detail = status_title(status);
        }
        Response r = problem(status, status == 404 ? "not-found" : "http-" + std::to_string(status), status_title(status), detail);
        apply(res, std::move(r));
        return httplib::Server::HandlerResponse::Handled;
      }));
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    apply(res, problem(500, "internal", status_title(500), what));
  });
  http.set_logger([this](const httplib::Request& req, const httplib::Response& res) { log_and_count(req, res); });
  http.set_payload_max_length(config.max_body_bytes);
  http.set_keep_alive_max_count(kMaxRequestsPerConnection);
  http.set_keep_alive_timeout(std::max<time_t>(1, config.keep_alive_timeout_ms / 1000));
  http.set_read_timeout(std::chrono::milliseconds(config.read_timeout_ms));
  http.set_write_timeout(std::chrono::milliseconds(config.write_timeout_ms));
  http.set_tcp_nodelay(true);
  http.set_socket_options([this](socket_t s) {
    httplib::default_socket_options(s);
    http.listen_fd = s;
  });
  http.new_task_queue = [this] {
    return new detail::BoundedTaskQueue(static_cast<std::size_t>(config.max_connections),
                                        [this] { metrics->connection_rejected(); });
  };
  if (!web_root.empty()) http.set_mount_point("/", web_root);
}

// ---------------------------------------------------------------------------------------
// Server

Server::Server(ServerConfig config) : impl_(std::make_unique<Impl>(std::move(config))) { impl_->add_builtin_routes(); }

Server::~Server() {
  if (impl_->bound) stop();
}

Router& Server::router() noexcept { return impl_->router; }
KindRegistry& Server::kinds() noexcept { return impl_->kinds; }
const std::shared_ptr<Readiness>& Server::readiness() const noexcept { return impl_->readiness; }
void Server::add_metrics_source(std::function<void(std::string&)> source) {
  impl_->metric_sources.push_back(std::move(source));
}
int Server::port() const noexcept { return impl_->port; }
const std::string& Server::web_root() const noexcept { return impl_->web_root; }
const ServerConfig& Server::config() const noexcept { return impl_->config; }
const Metrics& Server::metrics() const {
  if (!impl_->metrics) throw Error(errc::invalid_argument, "metrics exist once the server is bound");
  return *impl_->metrics;
}

std::string Server::url() const {
  const std::string& host = impl_->config.bind;
  const bool v6 = host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(impl_->port) + "/";
}

int Server::bind() {
  Impl& o = *impl_;
  if (o.bound) throw Error(errc::invalid_argument, "server already bound to port " + std::to_string(o.port));
  std::vector<std::string> labels;
  for (const auto& r : o.router.routes()) labels.push_back(r.pattern);
  o.static_route = labels.size();
  labels.emplace_back("static");
  o.no_route = labels.size();
  labels.emplace_back("none");
  std::vector<std::string> kinds;
  for (const auto& k : o.kinds.kinds()) kinds.push_back(k.name);
  o.metrics = std::make_unique<Metrics>(std::move(labels), std::move(kinds));
  for (auto& s : o.metric_sources) o.metrics->add_source(std::move(s));
  o.metric_sources.clear();
  o.install_http_handlers();
  const int port = o.config.port == 0 ? o.http.bind_to_any_port(o.config.bind)
                                      : (o.http.bind_to_port(o.config.bind, o.config.port) ? o.config.port : -1);
  if (port <= 0)
    throw Error(errc::invalid_argument, fmt::format("cannot listen on {}:{}: {}", o.config.bind, o.config.port,
                                                    "address in use, not local, or not permitted"));
  // Linux lets listen() be called again to raise the backlog of a listening socket.
  if (o.http.listen_fd >= 0) ::listen(o.http.listen_fd, kListenBacklog);
  o.port = port;
  o.bound = true;
  return port;
}

void Server::run() {
  if (!impl_->bound) bind();
  {
    std::lock_guard lock(impl_->run_mu);
    if (impl_->stop_requested) return;
    impl_->run_entered = true;
  }
  impl_->http.listen_after_bind();
  impl_->run_done = true;
}

void Server::stop() noexcept {
  Impl& o = *impl_;
  {
    std::lock_guard lock(o.run_mu);
    o.stop_requested = true;
    if (!o.run_entered) return;  // run() will not start listening
  }
  // run() is entering listen: wait the few microseconds until httplib marks it running.
  while (!o.http.is_running() && !o.run_done) std::this_thread::sleep_for(std::chrono::microseconds(100));
  o.http.stop();
}

std::string default_web_root() {
  for (const char* dir : {IDFORGE_SOURCE_WEB_DIR, IDFORGE_INSTALL_WEB_DIR}) {
    std::error_code ec;
    if (std::filesystem::is_directory(dir, ec)) return dir;
  }
  return {};
}

}  // namespace idforge::server
