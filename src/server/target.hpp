// The request target (RFC 9112 §3.2) taken apart and checked: its form, the path
// percent-decoded, and the query as decoded name/value pairs. Everything a handler or the
// static file server later sees is valid UTF-8 without control bytes, and a path holds no
// dot-segment, empty segment, encoded '/' or '\', so no encoding can climb out of the web
// root or confuse the router. Private to the server target.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace idforge::server::detail {

/// Why a target (or a request head) is refused: the HTTP status, a problem slug and a
/// one-line detail naming the offending value (already safe to print: see printable()).
struct HttpError {
  int status = 400;
  std::string type;
  std::string detail;
};

/// A parsed request target.
struct Target {
  enum class Form { origin, absolute, asterisk };
  Form form = Form::origin;
  std::string path;                                        ///< decoded; "*" for the asterisk form
  std::vector<std::pair<std::string, std::string>> query;  ///< decoded, each name once
};

/// Parses raw (the target exactly as received) into out. Returns false and fills err
/// (status 400) when the target is refused; the rules are listed in docs/SERVICE.md.
bool parse_target(std::string_view raw, Target& out, HttpError& err);

/// True when text is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, at
/// most U+10FFFF). bad_at receives the offset of the first byte that breaks it.
bool is_utf8(std::string_view text, std::size_t* bad_at = nullptr) noexcept;

/// True when s is a token (RFC 9110 §5.6.2: one or more tchar): a method, a header name, a
/// transfer coding. The one tchar test of the server, for what it reads and what it sends.
bool is_token(std::string_view s) noexcept;

/// text with every byte outside printable ASCII, and '"' and '\', written as \xHH: safe
/// in a log line, a JSON string and a terminal, whatever a client sent.
std::string printable(std::string_view text, std::size_t max_bytes = 256);

}  // namespace idforge::server::detail
