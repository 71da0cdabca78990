// Reading a request head (RFC 9112 §2-§7): a scan of the raw bytes for the limits and the
// rules Boost.Beast's parser leaves open, then Beast's parser for the grammar and the
// message framing. Private to the server target.
//
// Beast's basic_parser parses tokens, the version, Content-Length and chunked framing, but
// it folds obs-fold into spaces, accepts "Content-Length: 5, 5", frames a request with
// "Transfer-Encoding: gzip" as if it had no body, has one limit for the whole head and
// none per line, and cannot tell an overlong target (414) from an overlong head (431).
// scan_head() and check_framing() close those gaps before anything is routed.
#pragma once

#include <boost/beast/http/basic_parser.hpp>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "target.hpp"

namespace idforge::server::detail {

// The limits of a request head. Each is answered with its own status (docs/SERVICE.md).
inline constexpr std::size_t kMaxTargetBytes = 8192;     ///< request target; over: 414
inline constexpr std::size_t kMaxFieldLineBytes = 8192;  ///< one header line; over: 431
inline constexpr std::size_t kMaxHeadBytes = 64 * 1024;  ///< request line + headers; over: 431
inline constexpr std::size_t kMaxFields = 100;           ///< header lines; over: 431
inline constexpr std::size_t kMaxMethodBytes = 32;       ///< method token; over: 501

/// Progress of scan_head() over a head that arrives in pieces, so each byte is looked at
/// once however slowly the head trickles in.
struct HeadScan {
  std::size_t pos = 0;         ///< bytes examined
  std::size_t line_start = 0;  ///< first byte of the line being examined
  std::size_t start = 0;       ///< first byte of the request line (after empty lines)
  bool in_request_line = true;
  std::size_t fields = 0;
};

enum class ScanResult { need_more, complete, error };

/// Examines in (the bytes of one head so far, from its first byte) from s.pos on. complete:
/// in[s.start, s.pos) is the head, ending with the empty line. error: err says why.
/// Empty lines before the request line are skipped (RFC 9112 §2.2).
ScanResult scan_head(std::string_view in, HeadScan& s, HttpError& err);

/// What the head says, as views into the bytes scan_head() accepted.
struct RequestHead {
  std::string_view request_line;  ///< for the access log
  std::string_view method, target;
  int version = 11;  ///< 10 or 11
  std::vector<std::pair<std::string_view, std::string_view>> fields;
  bool keep_alive = true;        ///< from version and Connection
  bool has_body = false;         ///< Content-Length above 0 or chunked
  bool expect_continue = false;  ///< Expect: 100-continue on an HTTP/1.1 request with a body
  std::uint64_t content_length = 0;

  /// The value of the first field called name (case-insensitive), if any.
  std::optional<std::string_view> field(std::string_view name) const noexcept;
  /// How many field lines are called name.
  std::size_t count(std::string_view name) const noexcept;
  void clear() noexcept;
};

/// Boost.Beast's request parser, keeping the head as views into the input and dropping the
/// body (no route reads one; it is parsed only to find where the next request starts).
class RequestParser final : public boost::beast::http::basic_parser<true> {
 public:
  RequestParser(RequestHead& head, std::uint64_t body_limit);

 private:
  using error_code = boost::beast::error_code;
  using string_view = boost::beast::string_view;
  void on_request_impl(boost::beast::http::verb, string_view method, string_view target,
                       int version, error_code&) override;
  void on_response_impl(int, string_view, int, error_code&) override {}
  void on_field_impl(boost::beast::http::field, string_view name, string_view value,
                     error_code&) override;
  void on_header_impl(error_code&) override {}
  void on_body_init_impl(const boost::optional<std::uint64_t>&, error_code&) override {}
  std::size_t on_body_impl(string_view body, error_code&) override { return body.size(); }
  // Holds chunk extensions and trailer lines to the head's limits (limit_error()).
  void on_chunk_header_impl(std::uint64_t size, string_view ext, error_code& ec) override;
  std::size_t on_chunk_body_impl(std::uint64_t, string_view body, error_code&) override {
    return body.size();
  }
  void on_finish_impl(error_code&) override {}

  RequestHead& head_;
  std::string limit_error_;
  const char* buffer_start_ = nullptr;

 public:
  /// The first byte of the buffer the next put() parses: a chunk header line is measured
  /// from its start, which may be that byte.
  void buffer_start(const char* p) noexcept { buffer_start_ = p; }
  /// Why a chunk header or trailer broke a limit of the head (with bad_chunk or
  /// bad_chunk_extension); empty otherwise.
  const std::string& limit_error() const noexcept { return limit_error_; }
};

/// The answer for an error Beast's parser reported on a head or a body; raw_head (the
/// head's bytes) lets it name the offending header and value.
HttpError parser_error(const boost::beast::error_code& ec, std::string_view request_line,
                       std::string_view raw_head = {});

/// Checks what Beast leaves open once the head is parsed (Host, Content-Length, Transfer-
/// Encoding, Expect; RFC 9112 §3.2, §6.1, §6.3, RFC 9110 §10.1.1) and fills the framing
/// fields of head. False with err when the request must be refused and the connection
/// closed.
bool check_framing(RequestParser& parser, RequestHead& head, std::uint64_t max_body_bytes,
                   HttpError& err);

}  // namespace idforge::server::detail
