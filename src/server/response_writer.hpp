// Writing a Response as HTTP/1.1 bytes: status line, framing and the handler's headers in
// one contiguous buffer, so a response leaves with one send(). Private to the server target.
//
// Written by hand rather than with Beast's serializer: an answer is a status line, four
// fixed headers and a few of the handler's, and a reused std::string keeps the hot path
// free of allocation (Beast's fields allocate a node per header per response).
#pragma once

#include <string>
#include <string_view>

#include "idforge/server/router.hpp"

namespace idforge::server::detail {

struct ResponseFraming {
  bool head_only = false;      ///< a HEAD request: headers only, Content-Length of the body
  bool close = false;          ///< Connection: close, and the connection ends after it
  bool keep_alive_10 = false;  ///< an HTTP/1.0 client asked to keep the connection
};

/// Appends r to out. A header name that is not a token, or a value holding CR, LF or NUL,
/// never reaches the wire: the response becomes a 500 problem instead.
void write_response(const Response& r, const ResponseFraming& framing, std::string& out);

/// The interim answer to Expect: 100-continue.
inline constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

/// The reason phrase of status ("Not Found"), or "Unknown".
std::string_view reason_phrase(int status) noexcept;

}  // namespace idforge::server::detail
