// The service's request parsing: route matching on any method and path, and ?count. A
// match names a route whose pattern fits the path, a miss never crashes, and a count is
// absent (1), or 1..10,000 exactly when the text is those digits.
#include <charconv>

#include "fuzz_support.hpp"
#include "idforge/server/router.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace idforge::server;
  static const Router router = [] {
    Router r;
    const Handler h = [](const Request&) { return Response{}; };
    for (const char* p : {"/v1/ids/{kind}", "/v1/inspect/{id}", "/v1/sequences/{name}", "/healthz",
                          "/readyz", "/metrics", "/v1/sim/demo/{n}", "/v1/sim/run"})
      r.add("GET", p, h);
    r.add("POST", "/v1/sim/run", h);
    return r;
  }();
  const std::string_view text = as_text(data, size);
  const std::size_t sp = text.find(' ');
  const std::string_view method = text.substr(0, sp),
                         path = sp == std::string_view::npos ? "" : text.substr(sp + 1);
  const Router::Match m = router.match(method, path);
  if (m.route != nullptr) {
    IDFORGE_FUZZ_CHECK(m.route->method == method || (method == "HEAD" && m.route->method == "GET"));
    IDFORGE_FUZZ_CHECK(m.params.size() <= 1);  // no pattern has more than one {param}
  }
  const std::optional<std::size_t> count = parse_count(std::string(text));
  std::size_t v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  const bool digits = !text.empty() && ec == std::errc{} && p == text.data() + text.size();
  IDFORGE_FUZZ_CHECK(count.has_value() == (digits && v >= 1 && v <= kMaxCount));
  if (count) IDFORGE_FUZZ_CHECK(*count == v);
  IDFORGE_FUZZ_CHECK(parse_count(std::nullopt) == std::optional<std::size_t>(1));
  return 0;
}
