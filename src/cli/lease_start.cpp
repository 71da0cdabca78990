#include "lease_start.hpp"

#ifdef IDFORGE_HAVE_COORD
#include <fmt/core.h>

#include <algorithm>
#include <limits>

#include "cli_support.hpp"
#include "idforge/coord/lease_url.hpp"
#include "idforge/time_format.hpp"
#include "output.hpp"

namespace idforge::cli {

bool keeps_no_state(const std::string& store_url) {
  const coord::LeaseUrl url = coord::parse_lease_url(store_url);
  return (url.scheme == "static" || url.scheme == "ordinal") && !url.param("state") &&
         !url.param("register");
}

std::string with_local_state(const std::string& store_url, const std::string& state_dir,
                             std::optional<std::int64_t> ttl_ms) {
  if (!keeps_no_state(store_url)) return store_url;
  const coord::LeaseUrl url = coord::parse_lease_url(store_url);
  // The query is split at '&': a folder holding one would be read as two parameters.
  if (state_dir.find('&') != std::string::npos)
    throw CommandFailure{"lease store '" + store_url + "': the folder '" + state_dir +
                         "' for its lock and high-water mark contains '&', which a store URL "
                         "cannot carry; give state=DIR in the URL with another folder"};
  std::string out = store_url + (store_url.find('?') == std::string::npos ? "?" : "&");
  out += "state=" + state_dir;
  if (ttl_ms && !url.param("ttl")) out += "&ttl=" + std::to_string(*ttl_ms);
  return out;
}

std::int64_t retry_start_ms(const std::string& store_url) {
  const coord::LeaseUrl url = coord::parse_lease_url(store_url);
  const std::int64_t ttl = url.int_param("ttl", 10000, 1, std::numeric_limits<std::int64_t>::max());
  return std::clamp<std::int64_t>(ttl / 6, 100, 1000);
}

std::unique_ptr<coord::SharedLeasedSnowflakeGenerator> start_leased(const std::string& store_url,
                                                                    const Layout& layout,
                                                                    Clock& clock,
                                                                    const LeasedStart& how) {
  coord::LeasedOptions options;
  options.keeper.node = how.node;
  options.stop = how.stop;
  options.on_start_wait = [&how](const coord::StartWait& w) {
    const std::string words = fmt::format(
        "node {}: waiting {} ms for the clock to pass its high-water mark {} in {} (an "
        "earlier holder may have issued up to it)",
        w.node, w.wait_ms, format_iso8601_ms(w.high_water_unix_ms), w.store);
    note(fmt::format("{}: {}; SIGINT or SIGTERM stops without issuing", how.who, words));
    if (how.on_wait) how.on_wait(words);
  };
  auto gen = std::make_unique<coord::SharedLeasedSnowflakeGenerator>(
      coord::open_lease_store(store_url, clock), layout, clock, SnowflakePolicy{}, options);
  for (const coord::SkippedNode& s : gen->keeper().skipped())
    note(fmt::format(
        "{}: node {} passed over: its high-water mark {} is {} ms ahead of the clock, "
        "longer than start-up waits; took node {}",
        how.who, s.node, format_iso8601_ms(s.high_water_unix_ms), s.ahead_ms, gen->node()));
  return gen;
}

}  // namespace idforge::cli
#endif
