// Whole requests: arbitrary bytes through the service's HTTP parser, router and handlers,
// in-process (Server::exchange drives the same session code a socket does, without one).
// Whatever arrives, the server writes only complete HTTP/1.1 responses with a status it
// documents, never a 500, and each body is as long as its Content-Length says.
#include <charconv>
#include <string>

#include "fuzz_support.hpp"
#include "idforge/server/server.hpp"
#include "idforge/server/snowflake_kind.hpp"
#include "idforge/server/text_kinds.hpp"
#ifdef IDFORGE_SERVER_HAVE_SIM
#include "idforge/server/sim.hpp"
#endif
#include "idforge/snowflake_generator.hpp"

namespace {

using namespace idforge;

server::Server& the_server() {
  // 21 sequence bits: 2 M IDs a millisecond, so no batch waits for the clock and every
  // input runs at full speed.
  static SharedSnowflakeGenerator gen(parse_layout("time=41,dc=0,worker=1,seq=21"), 1);
  static server::Server* s = [] {
    server::ServerConfig c;
    c.access_log = "off";
    c.node = 1;
    c.max_body_bytes = 1024;
    c.token = "";
    auto* srv = new server::Server(c);
    server::add_snowflake_kind(*srv, gen);
    server::add_text_kinds(*srv);
#ifdef IDFORGE_SERVER_HAVE_SIM
    server::add_sim_routes(*srv);
#endif
    srv->readiness()->set_ready();
    return srv;
  }();
  return *s;
}

bool documented(int status) {
  for (int s : {100, 200, 204, 400, 401, 404, 405, 408, 413, 414, 417, 429, 431, 501, 503, 505})
    if (status == s) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::string_view in = as_text(data, size);
  const std::string out = the_server().exchange(in);
  const bool may_be_head = in.find("HEAD") != std::string_view::npos;
  std::size_t pos = 0;
  while (pos < out.size()) {
    const std::string_view rest = std::string_view(out).substr(pos);
    IDFORGE_FUZZ_CHECK(rest.substr(0, 9) == "HTTP/1.1 " && rest.size() >= 12);
    int status = 0;
    std::from_chars(rest.data() + 9, rest.data() + 12, status);
    IDFORGE_FUZZ_CHECK(documented(status));
    const std::size_t end = rest.find("\r\n\r\n");
    IDFORGE_FUZZ_CHECK(end != std::string_view::npos);
    const std::string_view head = rest.substr(0, end);
    // Header lines end in CRLF and hold no control byte: nothing a client sent leaks in raw.
    for (std::size_t i = 0; i < head.size(); ++i) {
      const auto c = static_cast<unsigned char>(head[i]);
      if (c == '\n')
        IDFORGE_FUZZ_CHECK(i > 0 && head[i - 1] == '\r');
      else if (c == '\r')
        IDFORGE_FUZZ_CHECK(i + 1 < head.size() && head[i + 1] == '\n');
      else
        IDFORGE_FUZZ_CHECK(c >= 0x20 && c != 0x7f);
    }
    std::size_t length = 0;
    const std::size_t cl = head.find("\r\nContent-Length: ");
    if (status >= 200 && status != 204) {
      IDFORGE_FUZZ_CHECK(cl != std::string_view::npos);
      const char* p = head.data() + cl + 18;
      std::from_chars(p, head.data() + head.size(), length);
    } else {
      IDFORGE_FUZZ_CHECK(cl == std::string_view::npos || status == 100);
    }
    pos += end + 4;
    // A HEAD answer carries the length without the body: the next response follows at once.
    const bool head_only =
        may_be_head && length > 0 && (pos == out.size() || out.compare(pos, 9, "HTTP/1.1 ") == 0);
    if (!head_only) {
      IDFORGE_FUZZ_CHECK(pos + length <= out.size());
      pos += length;
    }
  }
  return 0;
}
