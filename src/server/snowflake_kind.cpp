#include "idforge/server/snowflake_kind.hpp"

#include <fmt/format.h>

#include <vector>

namespace idforge::server {
namespace {

// fmt::format_to into a string, keeping the compile-time check of the format.
template <typename... T>
void append(std::string& out, fmt::format_string<T...> format, T&&... args) {
  fmt::format_to(std::back_inserter(out), format, std::forward<T>(args)...);
}
}  // namespace

void add_snowflake_kind(Server& server, SharedSnowflakeGenerator& gen) {
  add_snowflake_kind(server, gen, [&gen](std::span<Snowflake> out) { gen.next_batch(out); });
}

void add_snowflake_kind(Server& server, const SharedSnowflakeGenerator& gen,
                        std::function<void(std::span<Snowflake>)> fill) {
  add_snowflake_kind(
      server, gen.layout(), [&gen]() -> const SharedSnowflakeGenerator* { return &gen; },
      std::move(fill), "node " + std::to_string(gen.node()));
}

void add_snowflake_kind(Server& server, const Layout& layout,
                        std::function<const SharedSnowflakeGenerator*()> current,
                        std::function<void(std::span<Snowflake>)> fill,
                        const std::string& node_words) {
  Kind k;
  k.name = "snowflake";
  k.description = "64-bit time-ordered ID, layout " + layout.name() + ", " + node_words;
  k.needs = server.readiness();
  k.generate = [fill = std::move(fill)](std::size_t count, IdBatch& out) {
    thread_local std::vector<Snowflake> buf;
    buf.resize(count);
    fill(buf);
    out.numbers.reserve(out.numbers.size() + count);
    for (const Snowflake s : buf) out.numbers.push_back(s.value());
  };
  server.kinds().add(std::move(k));
  server.add_metrics_source([current = std::move(current)](std::string& out) {
    const SharedSnowflakeGenerator* g = current();
    if (!g) return;  // start-up has no node ID yet
    const SharedSnowflakeGenerator& gen = *g;
    const SnowflakeStats s = gen.stats();
    out +=
        "# HELP idforge_snowflake_clock_backward_waits_total Waits because the clock was behind "
        "the last tick.\n"
        "# TYPE idforge_snowflake_clock_backward_waits_total counter\n";
    append(out, "idforge_snowflake_clock_backward_waits_total {}\n", s.backward_waits);
    out +=
        "# HELP idforge_snowflake_clock_backward_refusals_total Refusals because the clock was too "
        "far behind.\n"
        "# TYPE idforge_snowflake_clock_backward_refusals_total counter\n";
    append(out, "idforge_snowflake_clock_backward_refusals_total {}\n", s.backward_refusals);
    out +=
        "# HELP idforge_snowflake_sequence_exhausted_waits_total Waits because a tick's sequence "
        "ran out.\n"
        "# TYPE idforge_snowflake_sequence_exhausted_waits_total counter\n";
    append(out, "idforge_snowflake_sequence_exhausted_waits_total {}\n", s.exhausted_waits);
    out +=
        "# HELP idforge_snowflake_node Node ID the generator issues with.\n# TYPE "
        "idforge_snowflake_node gauge\n";
    append(out, "idforge_snowflake_node {}\n", gen.node());
  });
}

}  // namespace idforge::server
