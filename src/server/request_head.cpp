#include "request_head.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/rfc7230.hpp>
#include <cctype>
#include <string>

namespace idforge::server::detail {
namespace {

std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

ScanResult error(HttpError& err, int status, std::string type, std::string detail) {
  err = HttpError{status, std::move(type), std::move(detail)};
  return ScanResult::error;
}

// Longest request line worth waiting for: method, target and version at their limits.
constexpr std::size_t kMaxRequestLine = kMaxMethodBytes + 1 + kMaxTargetBytes + 1 + 8;

// A method too long to be one this server implements: 501 when it is a token, else 400.
ScanResult long_method(HttpError& err, std::string_view method) {
  if (is_token(method))
    return error(err, 501, "method-not-implemented",
                 fmt::format("method '{}' is not implemented (longer than {} bytes)",
                             printable(method, 40), kMaxMethodBytes));
  return error(
      err, 400, "bad-request-line",
      fmt::format("the request line does not start with a method: '{}'", printable(method, 40)));
}

ScanResult check_request_line(std::string_view line, HttpError& err) {
  const std::size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos)
    return error(
        err, 400, "bad-request-line",
        fmt::format("the request line '{}' is not 'METHOD TARGET HTTP/1.1'", printable(line)));
  if (sp1 > kMaxMethodBytes) return long_method(err, line.substr(0, sp1));
  const std::size_t sp2 = line.rfind(' ');
  if (sp2 == sp1)
    return error(err, 400, "bad-request-line",
                 fmt::format("the request line '{}' has no HTTP version (HTTP/0.9 is not served)",
                             printable(line)));
  if (sp2 - sp1 - 1 > kMaxTargetBytes)
    return error(err, 414, "uri-too-long",
                 fmt::format("the request target has {} bytes; at most {} are read", sp2 - sp1 - 1,
                             kMaxTargetBytes));
  return ScanResult::complete;
}

// An unfinished request line past kMaxRequestLine: say which part is too long.
ScanResult long_request_line(std::string_view line, HttpError& err) {
  const std::size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos || sp1 > kMaxMethodBytes)
    return long_method(err, line.substr(0, std::min(line.size(), kMaxMethodBytes + 1)));
  return error(
      err, 414, "uri-too-long",
      fmt::format("the request target exceeds {} bytes (more than {} arrived without its end)",
                  kMaxTargetBytes, line.size() - sp1 - 1));
}

}  // namespace

ScanResult scan_head(std::string_view in, HeadScan& s, HttpError& err) {
  while (s.pos < in.size()) {
    if (s.pos >= kMaxHeadBytes)  // one byte more would pass it; empty lines first count too
      return error(err, 431, "head-too-large",
                   fmt::format("the request head exceeds {} bytes", kMaxHeadBytes));
    const auto c = static_cast<unsigned char>(in[s.pos]);
    if (c == '\r') {
      if (s.pos + 1 >= in.size()) return ScanResult::need_more;  // the LF may follow
      if (in[s.pos + 1] != '\n')
        return error(err, 400, "bare-cr",
                     fmt::format("byte {} of the head is a CR not followed by LF (RFC 9112 §2.2)",
                                 s.pos - s.start));
      const std::string_view line = in.substr(s.line_start, s.pos - s.line_start);
      s.pos += 2;
      if (s.in_request_line) {
        if (line.empty()) {  // an empty line before the request line is ignored
          s.line_start = s.start = s.pos;
          continue;
        }
        if (check_request_line(line, err) == ScanResult::error) return ScanResult::error;
        s.in_request_line = false;
      } else if (line.empty()) {
        if (s.pos > kMaxHeadBytes)  // the final CRLF passed the limit
          return error(err, 431, "head-too-large",
                       fmt::format("the request head exceeds {} bytes", kMaxHeadBytes));
        return ScanResult::complete;
      } else {
        if (line.front() == ' ' || line.front() == '\t')
          return error(
              err, 400, "obs-fold",
              fmt::format(
                  "header line {} starts with whitespace (obs-fold or a space before the first "
                  "field); refused as RFC 9112 §5.2 allows",
                  s.fields + 1));
        if (++s.fields > kMaxFields)
          return error(err, 431, "too-many-headers",
                       fmt::format("the request has more than {} header lines", kMaxFields));
      }
      s.line_start = s.pos;
      continue;
    }
    if (c == '\n')
      return error(
          err, 400, "bare-lf",
          fmt::format("byte {} of the head is a LF without CR; lines end in CRLF (RFC 9112 §2.2)",
                      s.pos - s.start));
    if ((c < 0x20 && c != '\t') || c == 0x7f)
      return error(
          err, 400, "control-byte",
          fmt::format("the head holds control byte 0x{:02x} at byte {}", c, s.pos - s.start));
    ++s.pos;
    const std::size_t line_len = s.pos - s.line_start;
    if (s.in_request_line) {
      // No space after the longest method, or a line longer than any served: say which.
      const bool method_too_long =
          line_len == kMaxMethodBytes + 1 &&
          in.substr(s.line_start, line_len).find(' ') == std::string_view::npos;
      if (method_too_long || line_len > kMaxRequestLine)
        return long_request_line(in.substr(s.line_start, line_len), err);
    } else if (line_len > kMaxFieldLineBytes) {
      const std::string_view line = in.substr(s.line_start, line_len);
      return error(err, 431, "header-too-large",
                   fmt::format("header line {} ('{}') exceeds {} bytes", s.fields + 1,
                               printable(line.substr(0, std::min<std::size_t>(line.find(':'), 40))),
                               kMaxFieldLineBytes));
    }
  }
  if (s.pos > kMaxHeadBytes)
    return error(err, 431, "head-too-large",
                 fmt::format("the request head exceeds {} bytes", kMaxHeadBytes));
  return ScanResult::need_more;
}

std::optional<std::string_view> RequestHead::field(std::string_view name) const noexcept {
  for (const auto& [k, v] : fields)
    if (boost::beast::iequals(k, name)) return v;
  return std::nullopt;
}

std::size_t RequestHead::count(std::string_view name) const noexcept {
  std::size_t n = 0;
  for (const auto& f : fields) n += boost::beast::iequals(f.first, name) ? 1 : 0;
  return n;
}

void RequestHead::clear() noexcept {
  request_line = method = target = {};
  version = 11;
  fields.clear();
  keep_alive = true;
  has_body = expect_continue = false;
  content_length = 0;
}

RequestParser::RequestParser(RequestHead& head, std::uint64_t body_limit) : head_(head) {
  // scan_head() enforces the real limits first; Beast's must not be the tighter one.
  header_limit(static_cast<std::uint32_t>(kMaxHeadBytes + 1024));
  this->body_limit(body_limit);
}

void RequestParser::on_chunk_header_impl(std::uint64_t size, string_view ext, error_code& ec) {
  // The whole chunk line, size digits and extension, is held to the limit of a header line,
  // as its bytes still arriving are (pending_line_error in http_session.cpp). Beast hands
  // over the extension; the size's hex digits lie right before it, after the CRLF that
  // ends the line before or at the start of the buffer.
  const char* line = ext.data();
  while (line > buffer_start_ && std::isxdigit(static_cast<unsigned char>(line[-1])) != 0) --line;
  const auto line_bytes = static_cast<std::size_t>(ext.data() + ext.size() - line);
  if (line_bytes > kMaxFieldLineBytes) {
    limit_error_ = fmt::format("a chunk header line of {} bytes exceeds {} bytes", line_bytes,
                               kMaxFieldLineBytes);
    ec = boost::beast::http::error::bad_chunk_extension;
    return;
  }
  if (size != 0) return;
  // The last chunk. Beast calls this once it has found the end of the trailer section
  // (CRLF CRLF) in the same contiguous buffer, right after this line, and parses the
  // trailer fields next, folding obs-fold lines on the way. The head's rules are applied
  // to the raw trailer lines first, so a trailer is held to what a header is.
  const char* p = ext.data() + ext.size() + 2;  // past the CRLF that ends the chunk line
  std::size_t total = 0, lines = 0;
  for (;;) {
    const char* eol = p;
    while (!(eol[0] == '\r' && eol[1] == '\n')) ++eol;
    const std::size_t len = static_cast<std::size_t>(eol - p);
    if (len == 0) return;  // the empty line that ends the trailer section
    total += len + 2;
    const auto fail = [&](std::string detail) {
      limit_error_ = std::move(detail);
      ec = boost::beast::http::error::bad_chunk;
    };
    if (p[0] == ' ' || p[0] == '\t')
      return fail(fmt::format(
          "trailer line {} starts with whitespace (obs-fold); refused as in the head", lines + 1));
    if (len > kMaxFieldLineBytes)
      return fail(fmt::format("trailer line {} exceeds {} bytes", lines + 1, kMaxFieldLineBytes));
    if (++lines > kMaxFields)
      return fail(fmt::format("the trailer has more than {} lines", kMaxFields));
    if (total > kMaxHeadBytes)
      return fail(fmt::format("the trailer exceeds {} bytes", kMaxHeadBytes));
    p = eol + 2;
  }
}

void RequestParser::on_request_impl(boost::beast::http::verb, string_view method,
                                    string_view target, int version, error_code&) {
  head_.method = std::string_view(method.data(), method.size());
  head_.target = std::string_view(target.data(), target.size());
  head_.version = version;
}

void RequestParser::on_field_impl(boost::beast::http::field, string_view name, string_view value,
                                  error_code&) {
  if (is_header_done()) return;  // a trailer after a chunked body: read and dropped
  head_.fields.emplace_back(std::string_view(name.data(), name.size()),
                            std::string_view(value.data(), value.size()));
}

namespace {

// The header lines of a raw head (after the request line), each without its CRLF.
std::vector<std::string_view> field_lines(std::string_view raw_head) {
  std::vector<std::string_view> out;
  std::size_t at = raw_head.find("\r\n");
  while (at != std::string_view::npos) {
    const std::size_t start = at + 2;
    at = raw_head.find("\r\n", start);
    const std::string_view line =
        raw_head.substr(start, (at == std::string_view::npos ? raw_head.size() : at) - start);
    if (line.empty()) break;
    out.push_back(line);
  }
  return out;
}

}  // namespace

HttpError parser_error(const boost::beast::error_code& ec, std::string_view request_line,
                       std::string_view raw_head) {
  namespace http = boost::beast::http;
  if (ec == http::error::header_limit)
    return {431, "head-too-large", fmt::format("the request head exceeds {} bytes", kMaxHeadBytes)};
  if (ec == http::error::body_limit)
    return {413, "body-too-large", "the body exceeds max-body-bytes"};
  if (ec == http::error::bad_version) {
    // 505 only for a request line of three parts ending in a well-formed HTTP/x.y.
    const std::string_view v =
        request_line.substr(std::min(request_line.rfind(' ') + 1, request_line.size()));
    const bool three_parts = std::count(request_line.begin(), request_line.end(), ' ') == 2;
    const bool well_formed = three_parts && v.size() == 8 && v.substr(0, 5) == "HTTP/" &&
                             v[5] >= '0' && v[5] <= '9' && v[6] == '.' && v[7] >= '0' &&
                             v[7] <= '9';
    if (well_formed)
      return {
          505, "http-version-not-supported",
          fmt::format("{} is not served; this server speaks HTTP/1.1 and HTTP/1.0", printable(v))};
    return {400, "bad-request-line",
            fmt::format("the request line '{}' does not end in HTTP/1.1 or HTTP/1.0",
                        printable(request_line))};
  }
  if (ec == http::error::bad_method)
    return {400, "bad-request-line",
            fmt::format("the method of '{}' is not a token", printable(request_line))};
  if (ec == http::error::bad_target)
    return {400, "bad-target",
            fmt::format("the request target of '{}' holds a space, a control byte or nothing",
                        printable(request_line))};
  if (ec == http::error::bad_field) {
    for (const std::string_view line : field_lines(raw_head)) {
      const std::size_t colon = line.find(':');
      const std::string_view name = line.substr(0, colon);
      if (colon == std::string_view::npos || !is_token(name))
        return {400, "bad-header",
                fmt::format("header name '{}' is not a token followed directly by ':' "
                            "(RFC 9112 §5.1)",
                            printable(name, 64))};
    }
    return {400, "bad-header",
            "a header name is not a token or is followed by whitespace before ':' (RFC 9112 §5.1)"};
  }
  if (ec == http::error::bad_value)
    return {400, "bad-header", "a header value holds a control byte"};
  if (ec == http::error::bad_content_length || ec == http::error::multiple_content_length) {
    std::string values;
    std::size_t n = 0;
    for (const std::string_view line : field_lines(raw_head)) {
      const std::size_t colon = line.find(':');
      if (colon == std::string_view::npos ||
          !boost::beast::iequals(line.substr(0, colon), "content-length"))
        continue;
      values += fmt::format("{}'{}'", values.empty() ? "" : " and ",
                            printable(trim(line.substr(colon + 1)), 64));
      ++n;
    }
    if (n > 1)
      return {400, "bad-content-length",
              fmt::format("Content-Length is given {} times ({}); one is expected (RFC 9112 §6.3)",
                          n, values)};
    bool chunked = false;  // Beast refuses Content-Length beside Transfer-Encoding here too
    for (const std::string_view line : field_lines(raw_head)) {
      const std::size_t colon = line.find(':');
      if (colon != std::string_view::npos &&
          boost::beast::iequals(line.substr(0, colon), "transfer-encoding"))
        chunked = true;
    }
    if (n == 1 && chunked)
      return {400, "bad-content-length",
              fmt::format("Content-Length {} comes with Transfer-Encoding: a request gives one "
                          "or the other (RFC 9112 §6.3)",
                          values)};
    if (n == 1)
      return {400, "bad-content-length",
              fmt::format("Content-Length {} is not a decimal number of digits only that fits in "
                          "64 bits (RFC 9112 §6.3)",
                          values)};
    return {400, "bad-content-length",
            "Content-Length is not one decimal number, or conflicts with another Content-Length or "
            "Transfer-Encoding (RFC 9112 §6.3)"};
  }
  if (ec == http::error::bad_transfer_encoding)
    return {
        400, "bad-transfer-encoding",
        "Transfer-Encoding is repeated after chunked or comes with Content-Length (RFC 9112 §6.3)"};
  if (ec == http::error::bad_chunk || ec == http::error::bad_chunk_extension)
    return {400, "bad-chunk", "the chunked body is malformed (RFC 9112 §7.1)"};
  return {400, "bad-request", fmt::format("the request is malformed: {}", ec.message())};
}

namespace {

// Why a Host value is not host[:port] (RFC 9112 §3.2, RFC 3986 §3.2.2), or nullptr. The
// host is a name (letters, digits, '-', '.', '_', '~', %HH escapes: the reg-name of DNS
// names, without the sub-delims no name has), or a bracketed IPv6 address; the port is 1
// to 5 digits up to 65535. An empty value is allowed (RFC 9112 §3.2: no authority).
const char* host_error(std::string_view h) {
  if (h.empty()) return nullptr;
  std::string_view rest;
  if (h.front() == '[') {
    const std::size_t close = h.find(']');
    if (close == std::string_view::npos) return "'[' without ']'";
    const std::string inside(h.substr(1, close - 1));
    in6_addr a{};
    if (inet_pton(AF_INET6, inside.c_str(), &a) != 1)
      return "the bracketed part is not an IPv6 address";
    rest = h.substr(close + 1);
  } else {
    const std::size_t colon = std::min(h.find(':'), h.size());
    const std::string_view name = h.substr(0, colon);
    if (name.empty()) return "the host is empty";
    for (std::size_t i = 0; i < name.size(); ++i) {
      const auto u = static_cast<unsigned char>(name[i]);
      if (u == '%') {
        if (i + 2 >= name.size() || !std::isxdigit(static_cast<unsigned char>(name[i + 1])) ||
            !std::isxdigit(static_cast<unsigned char>(name[i + 2])))
          return "'%' is not followed by two hex digits";
        i += 2;
        continue;
      }
      if (!std::isalnum(u) && std::string_view("-._~").find(name[i]) == std::string_view::npos)
        return "the host holds a byte that is not a letter, digit, '-', '.', '_' or '~'";
    }
    rest = h.substr(colon);
  }
  if (rest.empty()) return nullptr;
  if (rest.front() != ':') return "only ':port' may follow the host";
  const std::string_view port = rest.substr(1);
  if (port.empty() || port.size() > 5) return "the port is not 1 to 5 digits";
  unsigned value = 0;
  for (const char c : port) {
    if (c < '0' || c > '9') return "the port is not 1 to 5 digits";
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value > 65535) return "the port is above 65535";
  return nullptr;
}

}  // namespace

bool check_framing(RequestParser& parser, RequestHead& head, std::uint64_t max_body_bytes,
                   HttpError& err) {
  const auto refuse = [&err](int status, std::string type, std::string detail) {
    err = HttpError{status, std::move(type), std::move(detail)};
    return false;
  };
  // Host (RFC 9112 §3.2): one in an HTTP/1.1 request, never two, a valid authority.
  const std::size_t hosts = head.count("host");
  if (hosts > 1) return refuse(400, "bad-host", "the request has more than one Host header");
  if (hosts == 0 && head.version == 11)
    return refuse(400, "bad-host", "an HTTP/1.1 request needs a Host header (RFC 9112 §3.2)");
  if (hosts == 1) {
    const std::string_view host = *head.field("host");
    if (const char* why = host_error(host))
      return refuse(400, "bad-host",
                    fmt::format("Host '{}' is not host[:port]: {}", printable(host), why));
  }
  // Content-Length: exactly one number. Beast accepts a list of equal values ("5, 5") and
  // repeated lines; both are refused, as RFC 9112 §6.3 allows, so no two readers of this
  // request can disagree about its length.
  const std::size_t lengths = head.count("content-length");
  if (lengths > 1)
    return refuse(400, "bad-content-length", "the request has more than one Content-Length header");
  if (lengths == 1 && head.field("content-length")->find(',') != std::string_view::npos)
    return refuse(400, "bad-content-length",
                  fmt::format("Content-Length '{}' is a list; one number is expected",
                              printable(*head.field("content-length"))));
  // Transfer-Encoding (RFC 9112 §6.1, §6.3): chunked alone, last, once; never with
  // Content-Length or in HTTP/1.0. Any other coding is not implemented here.
  if (head.count("transfer-encoding") > 0) {
    if (head.version == 10)
      return refuse(400, "bad-transfer-encoding",
                    "an HTTP/1.0 request cannot carry Transfer-Encoding (RFC 9112 §6.1)");
    if (lengths > 0)
      return refuse(400, "bad-transfer-encoding",
                    "the request has both Transfer-Encoding and Content-Length (RFC 9112 §6.3)");
    // Beast's opt_token_list reads the list (empty elements skipped, RFC 9110 §5.6.1) and
    // validate_list() its grammar; a coding with parameters is not a token and is refused.
    std::vector<std::string_view> codings;
    for (const auto& [name, value] : head.fields) {
      if (!boost::beast::iequals(name, "transfer-encoding")) continue;
      const boost::beast::http::opt_token_list list(value);
      if (!boost::beast::http::validate_list(list))
        return refuse(400, "bad-transfer-encoding",
                      fmt::format("Transfer-Encoding '{}' is not a list of transfer codings "
                                  "(tokens separated by commas)",
                                  printable(value, 64)));
      for (const auto c : list) codings.emplace_back(c.data(), c.size());
    }
    if (codings.empty())
      return refuse(400, "bad-transfer-encoding", "Transfer-Encoding names no transfer coding");
    for (std::size_t k = 0; k < codings.size(); ++k) {
      const std::string_view c = codings[k];
      if (boost::beast::iequals(c, "chunked")) {
        if (k + 1 != codings.size())
          return refuse(
              400, "bad-transfer-encoding",
              "chunked is not the last transfer coding, so the body has no length (RFC 9112 §6.3)");
      } else if (k + 1 == codings.size()) {
        return refuse(
            400, "bad-transfer-encoding",
            fmt::format("the last transfer coding is '{}', not chunked, so the body has no length "
                        "(RFC 9112 §6.3)",
                        printable(c, 64)));
      } else {
        return refuse(501, "transfer-coding-not-implemented",
                      fmt::format("transfer coding '{}' is not implemented; only chunked is",
                                  printable(c, 64)));
      }
    }
  }
  head.keep_alive = parser.keep_alive();
  head.content_length = parser.content_length().value_or(0);
  head.has_body = parser.chunked() || head.content_length > 0;
  if (head.content_length > max_body_bytes)
    return refuse(413, "body-too-large",
                  fmt::format("Content-Length {} exceeds max-body-bytes={}", head.content_length,
                              max_body_bytes));
  // Expect (RFC 9110 §10.1.1): 100-continue is the only expectation; HTTP/1.0 ignores it.
  for (const auto& [name, value] : head.fields) {
    if (!boost::beast::iequals(name, "expect")) continue;
    if (!boost::beast::iequals(trim(value), "100-continue"))
      return refuse(417, "expectation-failed",
                    fmt::format("Expect '{}' cannot be met; only 100-continue is understood",
                                printable(value, 64)));
    head.expect_continue = head.version == 11 && head.has_body;
  }
  return true;
}

}  // namespace idforge::server::detail
