#include "http_session.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "response_writer.hpp"

namespace idforge::server::detail {

std::int64_t steady_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void Exchange::clear() noexcept {
  target.path.clear();
  target.query.clear();
  route = nullptr;
  blocking = false;
  requeue = false;
  params.clear();
  route_index = 0;
  response = Response{};
  head_only = false;
  start_ns = 0;
}

HttpSession::HttpSession(Dispatcher& server, std::string remote_ip)
    : server_(server), remote_ip_(std::move(remote_ip)) {}

HttpSession::Phase HttpSession::phase() const noexcept {
  switch (state_) {
    case State::head:
      return in_.empty() ? Phase::idle : Phase::head;
    case State::body:
      return Phase::body;
    case State::route:
    case State::handler:
      return Phase::handler;
    case State::write:
      return Phase::write;
    case State::closed:
      return Phase::closed;
  }
  return Phase::closed;
}

std::string_view HttpSession::first_line() const noexcept {
  const std::string_view pending = std::string_view(in_).substr(std::min(scan_.start, in_.size()));
  return pending.substr(0, std::min(pending.find_first_of("\r\n"), std::size_t{1024}));
}

void HttpSession::refuse(const HttpError& err, std::string_view request_line) {
  log_line_ = request_line;
  x_.clear();
  x_.route_index = server_.unrouted_index();
  x_.start_ns = steady_ns();
  x_.response = problem(err.status, err.type, reason_phrase(err.status), err.detail);
  closing_ = true;  // the rest of the input cannot be trusted to start a request
  respond();
}

void HttpSession::respond(bool interim) {
  out_.clear();
  interim_ = interim;
  if (interim) {
    out_ = kContinue;
  } else {
    if (stopping_ || !head_.keep_alive || served_ + 1 >= kMaxRequestsPerConnection) closing_ = true;
    ResponseFraming f;
    f.head_only = x_.head_only;
    f.close = closing_;
    f.keep_alive_10 = !closing_ && head_.version == 10;
    write_response(x_.response, f, out_);
    file_sent_ = 0;
    const int s = x_.response.status;
    file_left_ = x_.response.file && !f.head_only && s != 204 && s != 304 && s >= 200
                     ? x_.response.file->size
                     : 0;
  }
  state_ = State::write;
}

namespace {

// Why bytes of a chunk header or trailer still arriving already break a limit; "" if not.
std::string pending_line_error(std::string_view pending) {
  if (pending.size() > kMaxHeadBytes)
    return fmt::format("a chunk header or trailer exceeds {} bytes", kMaxHeadBytes);
  std::size_t start = 0;
  for (;;) {
    const std::size_t eol = pending.find("\r\n", start);
    std::size_t len = (eol == std::string_view::npos ? pending.size() : eol) - start;
    // A CR at the very end may be the start of the line's CRLF: not counted, as a line
    // complete in one read does not count it.
    if (eol == std::string_view::npos && len > 0 && pending.back() == '\r') --len;
    if (len > kMaxFieldLineBytes)
      return fmt::format("a chunk header or trailer line exceeds {} bytes", kMaxFieldLineBytes);
    if (eol == std::string_view::npos) return {};
    start = eol + 2;
  }
}

}  // namespace

HttpError HttpSession::body_error(const boost::beast::error_code& ec) const {
  HttpError e = parser_error(ec, head_.request_line, head_buf_);
  if (!parser_->limit_error().empty())
    e.detail = parser_->limit_error();
  else if (e.type == "bad-chunk" && state_ == State::body)  // say where: the bytes refused
    e.detail += fmt::format(" at '{}'", printable(std::string_view(in_).substr(0, 40)));
  if (e.status == 413)
    e.detail = fmt::format("the body exceeds max-body-bytes={}", server_.max_body_bytes());
  return e;
}

void HttpSession::begin_request() noexcept {
  timed_out_ = false;
  scan_ = HeadScan{};
  head_.clear();
  parser_.reset();
  x_.clear();
  log_line_.clear();
  state_ = State::head;
}

HttpSession::Step HttpSession::advance() {
  for (;;) {
    switch (state_) {
      case State::head: {
        if (in_.empty() && (eof_ || stopping_)) {
          state_ = State::closed;
          continue;
        }
        HttpError err;
        const ScanResult r = scan_head(in_, scan_, err);
        if (r == ScanResult::error) {
          refuse(err, first_line());
          continue;
        }
        if (r == ScanResult::need_more) {
          if (eof_) {  // the client gave up in the middle of a head: nobody to answer
            state_ = State::closed;
            continue;
          }
          if (timed_out_) {
            timed_out_ = false;
            refuse({408, "request-timeout",
                    "the request head did not arrive within request-timeout-ms, or stalled for "
                    "read-timeout-ms"},
                   first_line());
            continue;
          }
          return Step::read;
        }
        head_buf_.assign(in_, scan_.start, scan_.pos - scan_.start);
        in_.erase(0, scan_.pos);
        head_.clear();
        head_.request_line = std::string_view(head_buf_).substr(0, head_buf_.find('\r'));
        parser_.emplace(head_, server_.max_body_bytes());
        parser_->eager(true);
        boost::beast::error_code ec;
        parser_->buffer_start(head_buf_.data());
        const std::size_t used = parser_->put(boost::asio::buffer(head_buf_), ec);
        x_.clear();
        x_.start_ns = steady_ns();
        if (!ec && (used != head_buf_.size() || !parser_->is_header_done()))
          ec = boost::beast::http::error::partial_message;  // cannot happen after scan_head: refuse
                                                            // anyway
        if (ec) {
          refuse(body_error(ec), head_.request_line);
          continue;
        }
        if (!check_framing(*parser_, head_, server_.max_body_bytes(), err)) {
          refuse(err, head_.request_line);
          continue;
        }
        if (head_.has_body) {
          state_ = State::body;
          // Ask for the body only when none of it is here yet (RFC 9110 §10.1.1).
          if (head_.expect_continue && in_.empty() && !stopping_) {
            respond(/*interim=*/true);
            return Step::write;
          }
          continue;
        }
        state_ = State::route;
        continue;
      }
      case State::body: {
        if (!in_.empty()) {
          boost::beast::error_code ec;
          parser_->buffer_start(in_.data());
          const std::size_t used = parser_->put(boost::asio::buffer(in_), ec);
          in_.erase(0, used);
          if (ec && ec != boost::beast::http::error::need_more) {
            refuse(body_error(ec), head_.request_line);
            continue;
          }
        }
        if (parser_->is_done()) {
          state_ = State::route;
          continue;
        }
        // What Beast leaves unconsumed is line material: a chunk header or a trailer
        // section still arriving. Its lines and its whole are held to the head's limits
        // now, before it is complete (complete ones are checked by RequestParser).
        if (const std::string why = pending_line_error(in_); !why.empty()) {
          refuse({400, "bad-chunk", why}, head_.request_line);
          continue;
        }
        if (eof_) {
          state_ = State::closed;
          continue;
        }
        if (timed_out_) {
          timed_out_ = false;
          refuse({408, "request-timeout",
                  "the request body did not arrive within request-timeout-ms, or stalled for "
                  "read-timeout-ms"},
                 head_.request_line);
          continue;
        }
        return Step::read;
      }
      case State::route:
        x_.head_only = head_.method == "HEAD";
        server_.route(head_, x_);
        if (x_.route) {
          state_ = State::handler;
          return Step::dispatch;
        }
        respond();
        continue;
      case State::handler:
        if (x_.route) return Step::dispatch;
        // The handler has run. Its answer is framed here, on the connection's thread, not
        // where the handler ran: a stop() that came meanwhile closes this answer's connection.
        try {
          respond();
        } catch (...) {  // out of memory while writing the answer: give up on this connection
          closing_ = true;
          out_.clear();
          state_ = State::closed;
        }
        continue;
      case State::write:
        return Step::write;
      case State::closed:
        return Step::close;
    }
  }
}

void HttpSession::run_handler() noexcept {
  server_.run_handler(head_, x_);
  if (x_.requeue) {  // still State::handler: advance() dispatches it again, now blocking
    x_.requeue = false;
    return;
  }
  x_.route = nullptr;  // advance() frames the answer
}

void HttpSession::output_sent() noexcept {
  out_.clear();
  if (file_left_ > 0) {  // the next piece of the file; the state stays write
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(file_left_, kFileChunk));
    ssize_t n;
    try {
      out_.resize(want);
      do n = ::pread(x_.response.file->fd, out_.data(), want, static_cast<off_t>(file_sent_));
      while (n < 0 && errno == EINTR);
    } catch (...) {  // out of memory
      n = -1;
    }
    if (n > 0) {
      out_.resize(static_cast<std::size_t>(n));
      file_sent_ += static_cast<std::uint64_t>(n);
      file_left_ -= static_cast<std::uint64_t>(n);
      return;
    }
    // The file shrank (or failed) after its length was sent: the only honest end is to
    // close the connection, so the client sees the body is short.
    out_.clear();
    file_left_ = 0;
    closing_ = true;
    state_ = State::closed;
    return;
  }
  if (interim_) {
    interim_ = false;
    state_ = State::body;
    return;
  }
  ++served_;
  server_.answered(x_, log_line_.empty() ? head_.request_line : std::string_view(log_line_),
                   remote_ip_, steady_ns());
  if (closing_) {
    state_ = State::closed;
    return;
  }
  begin_request();
}

void HttpSession::timed_out() noexcept {
  switch (phase()) {
    case Phase::head:
    case Phase::body:
      timed_out_ = true;
      break;
    default:
      state_ = State::closed;
  }
}

}  // namespace idforge::server::detail
