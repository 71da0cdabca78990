// Server: routing before the handlers (target, method, auth, rate limit, static files),
// logging, and the life cycle. The built-in routes are in builtin_routes.cpp, the HTTP
// framing in http_session.cpp, the sockets in listener.cpp.
#include <fmt/format.h>

#include <boost/beast/core/string.hpp>
#include <chrono>
#include <filesystem>

#include "idforge/clock.hpp"
#include "idforge/error.hpp"
#include "idforge/server/bounded_clock.hpp"
#include "idforge/time_format.hpp"
#include "response_writer.hpp"
#include "server_impl.hpp"
#include "static_files.hpp"

namespace idforge::server {
namespace {

bool constant_time_equal(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;  // the length of the token is not the secret
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// Methods of RFC 9110 §9 this server routes (answering 405 where a resource exists with
// another method). CONNECT and methods it does not know get 501 (RFC 9110 §15.6.2).
bool is_routed_method(std::string_view m) noexcept {
  for (const char* known : {"GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH", "TRACE"})
    if (m == known) return true;
  return false;
}

Response with_header(Response r, std::string name, std::string value) {
  r.headers.emplace_back(std::move(name), std::move(value));
  return r;
}

Response no_content_allow(std::string allow) {
  Response r;
  r.status = 204;
  r.headers.emplace_back("Allow", std::move(allow));
  return r;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Server::Impl

Server::Impl::Impl(ServerConfig c, Clock& clk) : config(std::move(c)), clock(clk) {
  validate(config, clock);
  web_root = config.web_root.empty() ? default_web_root() : config.web_root;
  if (!config.web_root.empty() && !std::filesystem::is_directory(config.web_root))
    throw Error(errc::invalid_argument, "web-root='" + config.web_root + "': not a folder");
  if (config.rate_limit > 0) rate_limiter.emplace(config.rate_limit, config.rate_burst, clock);
  access_log = std::make_unique<detail::AccessLog>(config.access_log);
}

Server::Impl::~Impl() = default;

void Server::Impl::freeze() {
  std::call_once(frozen, [this] {
    std::vector<std::string> labels;
    for (const auto& r : router.routes()) labels.push_back(r.pattern);
    static_route = labels.size();
    labels.emplace_back("static");
    no_route = labels.size();
    labels.emplace_back("none");
    std::vector<std::string> kind_names;
    for (const auto& k : kinds.kinds()) kind_names.push_back(k.name);
    metrics = std::make_unique<Metrics>(std::move(labels), std::move(kind_names));
    for (auto& s : metric_sources) metrics->add_source(std::move(s));
    metric_sources.clear();
  });
}

void Server::Impl::route(const detail::RequestHead& head, detail::Exchange& x) {
  x.route_index = no_route;
  const auto answer = [&x](int status, std::string_view type, std::string_view detail) {
    x.response = problem(status, type, detail::reason_phrase(status), detail);
  };
  // The method first: CONNECT's authority-form target is not worth a 400.
  const std::string_view method = head.method;
  if (!is_routed_method(method))
    return answer(
        501, "method-not-implemented",
        fmt::format("method '{}' is not implemented; this server answers GET, HEAD and OPTIONS",
                    detail::printable(method, 40)));
  detail::HttpError err;
  if (!detail::parse_target(head.target, x.target, err))
    return answer(err.status, err.type, err.detail);
  const std::string& path = x.target.path;
  if (x.target.form == detail::Target::Form::asterisk) {
    if (method == "OPTIONS") {
      x.response = no_content_allow("GET, HEAD, OPTIONS");
      return;
    }
    return answer(400, "bad-target",
                  fmt::format("'*' is a request target only for OPTIONS, not {}", method));
  }
  const bool api = path == "/v1" || path.rfind("/v1/", 0) == 0;
  Router::Match m = router.match(method, path);
  if (m.route) x.route_index = m.index;
  // Auth comes before 404 and 405: without the token nothing about /v1 is revealed.
  if ((api || path == "/metrics") && !config.token.empty()) {
    if (head.count("authorization") > 1)
      return answer(400, "bad-authorization", "more than one Authorization header");
    const std::optional<std::string_view> auth = head.field("authorization");
    std::string_view credentials;
    bool bearer = false;
    if (auth) {
      // credentials = auth-scheme 1*SP token68 (RFC 9110 §11.4); the scheme is
      // case-insensitive (§11.1).
      const std::size_t sp = auth->find(' ');
      bearer = sp != std::string_view::npos && boost::beast::iequals(auth->substr(0, sp), "bearer");
      if (bearer)
        credentials = auth->substr(auth->find_first_not_of(' ', sp) == std::string_view::npos
                                       ? auth->size()
                                       : auth->find_first_not_of(' ', sp));
    }
    if (!bearer || !constant_time_equal(credentials, config.token)) {
      x.response = with_header(problem(401, "unauthorized", "Unauthorized",
                                       !auth ? "this server requires Authorization: Bearer <token>"
                                       : !bearer ? "the Authorization scheme is not Bearer"
                                                 : "the bearer token does not match"),
                               "WWW-Authenticate", "Bearer realm=\"idforge\"");
      return;
    }
  }
  if (!m.route) {
    if (!m.allow.empty()) {
      if (method == "OPTIONS") {
        x.response = no_content_allow(m.allow + ", OPTIONS");
        return;
      }
      // OPTIONS is answered on every resource, so Allow names it, as OPTIONS's own does.
      x.response = with_header(
          problem(405, "method-not-allowed", "Method Not Allowed",
                  fmt::format("{} {} is not served; allowed: {}, OPTIONS", method, path, m.allow)),
          "Allow", m.allow + ", OPTIONS");
      return;
    }
    if (api || web_root.empty())
      return answer(404, "not-found", fmt::format("no resource at {}", path));
    x.route_index = static_route;
    if (method == "OPTIONS") {
      if (detail::static_exists(web_root, path))
        x.response = no_content_allow("GET, HEAD, OPTIONS");
      else
        answer(404, "not-found", fmt::format("no resource at {}", path));
      return;
    }
    x.response = detail::serve_static(web_root, method, path);
    return;
  }
  if (api && rate_limiter && !rate_limiter->try_acquire()) {
    x.response = with_header(
        problem(429, "rate-limited", "Too Many Requests",
                fmt::format("over rate-limit={}/s (burst {})", config.rate_limit,
                            config.rate_burst > 0 ? config.rate_burst : config.rate_limit)),
        "Retry-After", std::to_string(rate_limiter->retry_after_s()));
    return;
  }
  x.route = m.route;
  x.params = std::move(m.params);
  // A batch of IDs may wait for the clock (a Snowflake tick's sequence runs out every 4,096
  // IDs) and takes a while to encode: off the I/O thread, so the thread's other
  // connections are not held up meanwhile. One ID stays inline: the hot path.
  const bool batch = m.index == ids_route && [&x] {
    for (const auto& [k, v] : x.target.query)
      if (k == "count") return v != "1";
    return false;
  }();
  x.blocking = m.route->blocking || batch;
}

void Server::Impl::run_handler(const detail::RequestHead& head, detail::Exchange& x) noexcept {
  std::string failure;
  try {
    const Request::Source source{[&head](std::string_view name) -> std::optional<std::string> {
                                   const auto v = head.field(name);
                                   return v ? std::optional<std::string>(std::string(*v))
                                            : std::nullopt;
                                 },
                                 [&x](std::string_view name) -> std::optional<std::string> {
                                   for (const auto& [k, v] : x.target.query)
                                     if (k == name) return v;
                                   return std::nullopt;
                                 },
                                 [&x] {
                                   std::vector<std::string> names;
                                   for (const auto& kv : x.target.query) names.push_back(kv.first);
                                   return names;
                                 }};
    if (x.route_index != ids_route) {
      const Request request(head.method, x.target.path, std::move(x.params), source);
      x.response = x.route->handler(request);
      return;
    }
    // Issuing IDs may wait for the clock (the sequence of a tick ran out, a step back, a
    // coarse tick). On an I/O thread no wait is allowed: the request is run again on the
    // blocking pool, so the thread's other connections are not held up. There a wait may
    // last until batch-timeout-ms after the handler started, and ends when the server
    // stops.
    const bool inline_try = !x.blocking;
    const std::int64_t deadline =
        inline_try ? 0 : realtime_ns() + std::int64_t{config.batch_timeout_ms} * 1'000'000;
    WaitBound bound(deadline, &stopping);
    const Request request(head.method, x.target.path, x.params, source);
    x.response = x.route->handler(request);
    if (inline_try && bound.gave_up() && !bound.stopped()) {
      x.blocking = true;
      x.requeue = true;
    }
    return;
  } catch (const std::exception& e) {
    failure = e.what();
  } catch (...) {
    failure = "unknown error";
  }
  try {
    x.response = problem(500, "internal", "Internal Server Error", failure);
  } catch (...) {  // out of memory even for the problem: a bare 500
    x.response = Response{500, "text/plain", {}, {}, {}};
  }
}

void Server::Impl::answered(const detail::Exchange& x, std::string_view request_line,
                            std::string_view remote_ip, std::int64_t end_ns) noexcept {
  const std::int64_t took = end_ns - x.start_ns;
  metrics->record_request(x.route_index, x.response.status, took);
  if (!access_log->enabled()) return;
  try {
    const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    // The request line is escaped: a client's bytes cannot forge a line or a field.
    access_log->write(fmt::format("{} {} \"{}\" {} {} {:.3f}ms\n", format_iso8601_ms(now_ms),
                                  remote_ip, detail::printable(request_line, 1024),
                                  x.response.status, x.response.body_size(),
                                  static_cast<double>(took) * 1e-6));
  } catch (...) {  // out of memory: the line is lost, the answer is not
  }
}

// ---------------------------------------------------------------------------------------
// Server

Server::Server(ServerConfig config, Clock& clock)
    : impl_(std::make_unique<Impl>(std::move(config), clock)) {
  impl_->add_builtin_routes();
}

Server::~Server() {
  if (impl_->bound) stop();
}

Router& Server::router() noexcept {
  return impl_->router;
}
KindRegistry& Server::kinds() noexcept {
  return impl_->kinds;
}
const std::shared_ptr<Readiness>& Server::readiness() const noexcept {
  return impl_->readiness;
}
void Server::add_metrics_source(std::function<void(std::string&)> source) {
  impl_->metric_sources.push_back(std::move(source));
}
int Server::port() const noexcept {
  return impl_->port;
}
const std::string& Server::web_root() const noexcept {
  return impl_->web_root;
}
const ServerConfig& Server::config() const noexcept {
  return impl_->config;
}
Clock& Server::clock() const noexcept {
  return impl_->clock;
}
const Metrics& Server::metrics() const {
  if (!impl_->metrics)
    throw Error(errc::invalid_argument, "metrics exist once the server is bound");
  return *impl_->metrics;
}

std::string Server::url() const {
  const std::string& host = impl_->config.bind;
  const bool v6 = host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(impl_->port) + "/";
}

int Server::bind() {
  Impl& o = *impl_;
  if (o.bound)
    throw Error(errc::invalid_argument, "server already bound to port " + std::to_string(o.port));
  o.freeze();
  auto listener = std::make_unique<detail::Listener>(o, o.config, *o.metrics);
  const int port = listener->bind();
  std::lock_guard lock(o.life_mu);
  if (o.stop_requested)
    listener->stop();  // a signal before the server was up: run() returns at once
  o.listener = std::move(listener);
  o.port = port;
  o.bound = true;
  return port;
}

void Server::run() {
  if (!impl_->bound) bind();
  impl_->listener->run();
}

void Server::stop() noexcept {
  impl_->stopping = true;  // handlers waiting for the clock give up (503) at once
  std::lock_guard lock(impl_->life_mu);
  impl_->stop_requested = true;
  if (impl_->listener) impl_->listener->stop();
}

std::string Server::exchange(std::string_view request_bytes) {
  impl_->freeze();
  detail::HttpSession session(*impl_, "in-process");
  std::string out;
  std::size_t fed = 0;
  for (;;) {
    switch (session.advance()) {
      case detail::HttpSession::Step::read: {
        std::string& in = session.input();
        const std::size_t room =
            detail::HttpSession::kMaxInput - std::min(detail::HttpSession::kMaxInput, in.size());
        const std::size_t take =
            std::min({request_bytes.size() - fed, room, std::size_t{16 * 1024}});
        if (take == 0) {
          session.input_closed();
          break;
        }
        in.append(request_bytes.substr(fed, take));
        fed += take;
        break;
      }
      case detail::HttpSession::Step::dispatch:
        session.run_handler();
        break;
      case detail::HttpSession::Step::write:
        out += session.output();
        session.output_sent();
        break;
      case detail::HttpSession::Step::close:
        return out;
    }
  }
}

std::string default_web_root() {
  for (const char* dir : {IDFORGE_SOURCE_WEB_DIR, IDFORGE_INSTALL_WEB_DIR}) {
    std::error_code ec;
    if (std::filesystem::is_directory(dir, ec)) return dir;
  }
  return {};
}

}  // namespace idforge::server
