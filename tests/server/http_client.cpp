#include "http_client.hpp"

#include <sys/socket.h>
#include <sys/time.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

namespace idforge::test {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

namespace {
bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}
}  // namespace

std::string HttpResult::get_header_value(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (iequals(k, name)) return v;
  return {};
}

bool HttpResult::has_header(std::string_view name) const {
  for (const auto& h : headers)
    if (iequals(h.first, name)) return true;
  return false;
}

struct HttpClient::Impl {
  std::string host;
  int port;
  bool keep_alive = false;
  asio::io_context ctx;
  std::optional<tcp::socket> socket;
  boost::beast::flat_buffer buffer;

  bool connect() {
    socket.emplace(ctx);
    boost::system::error_code ec;
    socket->connect(tcp::endpoint(asio::ip::make_address(host), static_cast<unsigned short>(port)),
                    ec);
    if (ec) return false;
    const timeval tv{5, 0};
    ::setsockopt(socket->native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(socket->native_handle(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    buffer.clear();
    return true;
  }
};

HttpClient::HttpClient(std::string host, int port) : impl_(std::make_unique<Impl>()) {
  impl_->host = std::move(host);
  impl_->port = port;
}
HttpClient::~HttpClient() = default;
HttpClient::HttpClient(HttpClient&&) noexcept = default;
HttpClient& HttpClient::operator=(HttpClient&&) noexcept = default;

void HttpClient::set_keep_alive(bool on) {
  impl_->keep_alive = on;
}

std::optional<HttpResult> HttpClient::send(const std::string& method, const std::string& target,
                                           const Headers& headers, const std::string& body) {
  Impl& c = *impl_;
  for (int attempt = 0; attempt < 2; ++attempt) {  // a kept connection the server closed: once more
    const bool reused = c.socket && c.socket->is_open();
    if (!reused && !c.connect()) return std::nullopt;
    http::request<http::string_body> req;
    req.method_string(method);
    req.target(target);
    req.version(11);
    req.set(http::field::host, c.host + ":" + std::to_string(c.port));
    for (const auto& [k, v] : headers) req.insert(k, v);
    if (!c.keep_alive) req.set(http::field::connection, "close");
    if (!body.empty() || method == "POST" || method == "PUT") {
      req.body() = body;
      req.prepare_payload();
    }
    boost::system::error_code ec;
    http::write(*c.socket, req, ec);
    http::response_parser<http::string_body> parser;
    parser.body_limit(256u * 1024 * 1024);
    parser.header_limit(1024 * 1024);
    if (method == "HEAD") parser.skip(true);
    if (!ec) http::read(*c.socket, c.buffer, parser, ec);
    if (ec) {
      c.socket.reset();
      if (reused) continue;
      return std::nullopt;
    }
    const auto& res = parser.get();
    HttpResult out;
    out.status = static_cast<int>(res.result_int());
    out.body = res.body();
    for (const auto& f : res)
      out.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
    if (!c.keep_alive || !res.keep_alive()) c.socket.reset();
    return out;
  }
  return std::nullopt;
}

std::optional<HttpResult> HttpClient::Get(const std::string& target, const Headers& headers) {
  return send("GET", target, headers, "");
}
std::optional<HttpResult> HttpClient::Head(const std::string& target, const Headers& headers) {
  return send("HEAD", target, headers, "");
}
std::optional<HttpResult> HttpClient::Post(const std::string& target, const std::string& body,
                                           const std::string& content_type) {
  return send("POST", target, {{"Content-Type", content_type}}, body);
}
std::optional<HttpResult> HttpClient::Delete(const std::string& target) {
  return send("DELETE", target, {}, "");
}

}  // namespace idforge::test
