#include "response_writer.hpp"

#include <charconv>
#include <chrono>
#include <ctime>

#include "target.hpp"

namespace idforge::server::detail {
namespace {

bool sendable_value(std::string_view s) noexcept {
  for (const char c : s)
    if (c == '\r' || c == '\n' || c == '\0') return false;
  return true;
}

void append_number(std::string& out, std::size_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// The Date header (RFC 9110 §6.6.1), formatted once a second per thread.
std::string_view http_date() {
  thread_local std::time_t cached = -1;
  thread_local char text[40];
  thread_local std::size_t len = 0;
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  if (now != cached) {
    std::tm tm{};
    gmtime_r(&now, &tm);
    len = std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    cached = now;
  }
  return {text, len};
}

bool sendable(const Response& r) noexcept {
  if (r.status < 200 || r.status > 599 || !sendable_value(r.content_type)) return false;
  for (const auto& [k, v] : r.headers)
    if (!is_token(k) || !sendable_value(v)) return false;
  return true;
}

}  // namespace

std::string_view reason_phrase(int status) noexcept {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 204:
      return "No Content";
    case 206:
      return "Partial Content";
    case 304:
      return "Not Modified";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 416:
      return "Range Not Satisfiable";
    case 417:
      return "Expectation Failed";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Unknown";
  }
}

void write_response(const Response& given, const ResponseFraming& f, std::string& out) {
  const bool ok = sendable(given);
  const Response refused =
      ok ? Response{}
         : problem(500, "internal", "Internal Server Error",
                   "a handler returned a status or header that cannot be sent");
  const Response& r = ok ? given : refused;
  out += "HTTP/1.1 ";
  append_number(out, static_cast<std::size_t>(r.status));
  out += ' ';
  out += reason_phrase(r.status);
  out += "\r\nDate: ";
  out += http_date();
  // 204 has neither body nor Content-Length (RFC 9110 §8.6); everything else says its
  // length, also for HEAD, where the body itself stays home.
  if (r.status != 204) {
    out += "\r\nContent-Type: ";
    out += r.content_type;
    out += "\r\nContent-Length: ";
    append_number(out, r.body_size());
  }
  out += "\r\nX-Content-Type-Options: nosniff\r\n";
  if (f.close)
    out += "Connection: close\r\n";
  else if (f.keep_alive_10)
    out += "Connection: keep-alive\r\n";
  for (const auto& [k, v] : r.headers) {
    out += k;
    out += ": ";
    out += v;
    out += "\r\n";
  }
  out += "\r\n";
  // A file body follows in pieces (HttpSession::output_sent).
  if (!f.head_only && r.status != 204 && r.status != 304) out += r.body;
}

}  // namespace idforge::server::detail
