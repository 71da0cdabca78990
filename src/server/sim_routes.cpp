// The simulation routes: thin handlers that check the query and call the lab's simulation.
#include <fmt/format.h>

#include <charconv>
#include <optional>

#include "idforge/clock.hpp"
#include "idforge/error.hpp"
#include "idforge/lab/page_sim.hpp"
#include "idforge/server/server.hpp"
#include "idforge/server/sim.hpp"

namespace idforge::server {
namespace {

using lab::kSimDemoCount;
using lab::kSimMaxRequests;
using lab::parse_sim_kind;
using lab::sim_demo_json;
using lab::sim_layouts_json;
using lab::sim_max_start_ms;
using lab::sim_min_start_ms;
using lab::sim_run_json;
using lab::SimKind;

// A whole number in [lo, hi] from a query value; nullopt when it is not one.
std::optional<std::int64_t> parse_int(std::string_view text, std::int64_t lo, std::int64_t hi) {
  std::int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc{} || p != end || v < lo || v > hi) return std::nullopt;
  return v;
}

Response json_response(std::string body) {
  Response out;
  out.body = std::move(body);
  out.headers.emplace_back("Cache-Control", "no-store");
  return out;
}

// start_ms from the query, else the server's clock floored to the second (a start in the
// present makes IDs that look like today's; the query makes a run repeatable).
std::optional<std::int64_t> start_of(const Request& r, Clock& clock, Response& error) {
  const auto text = r.query("start_ms");
  if (!text) return clock.now_ns() / 1'000'000'000 * 1000;
  const auto v = parse_int(*text, sim_min_start_ms(), sim_max_start_ms());
  if (!v)
    error = problem(400, "bad-start", "Bad Request",
                    fmt::format("start_ms='{}' must be a whole number of Unix ms from {} to {}",
                                *text, sim_min_start_ms(), sim_max_start_ms()));
  return v;
}

}  // namespace

void add_sim_routes(Server& server) {
  Router& router = server.router();
  router.add("GET", "/v1/sim/layouts",
             [](const Request&) { return json_response(sim_layouts_json()); });

  router.add("GET", "/v1/sim/run", [&clock = server.clock()](const Request& r) -> Response {
    const std::string kind_text = r.query("kind").value_or("snowflake");
    SimKind kind{};
    try {
      kind = parse_sim_kind(kind_text);
    } catch (const Error& e) {
      return problem(400, "unknown-kind", "Bad Request", e.what());
    }
    const std::string count_text = r.query("count").value_or("12");
    const auto count = parse_int(count_text, 1, kSimMaxRequests);
    if (!count)
      return problem(400, "bad-count", "Bad Request",
                     fmt::format("count='{}' must be a whole number from 1 to {}", count_text,
                                 kSimMaxRequests));
    Response error;
    const auto start = start_of(r, clock, error);
    if (!start) return error;
    return json_response(sim_run_json(kind, static_cast<unsigned>(*count), *start));
  });

  router.add("GET", "/v1/sim/demo/{n}", [&clock = server.clock()](const Request& r) -> Response {
    const std::string_view n_text = r.param("n");
    const auto n = parse_int(n_text, 1, kSimDemoCount);
    if (!n)
      return problem(
          404, "no-such-demo", "Not Found",
          fmt::format("demo '{}' does not exist; demos are 1 to {}", n_text, kSimDemoCount));
    Response error;
    const auto start = start_of(r, clock, error);
    if (!start) return error;
    return json_response(sim_demo_json(static_cast<int>(*n), *start));
  });
}

}  // namespace idforge::server
