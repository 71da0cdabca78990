// Start-up of a leased Snowflake generator for `gen snowflake` and `serve`: a node ID fixed
// by --node is registered in the lease store (refused while another live process holds
// it), an automatic one may pass over node IDs whose marks are far ahead; either way one
// line on stderr says what start-up waits for and for how long, and a stop request ends
// that wait at once, before anything is issued.
#pragma once

#ifdef IDFORGE_HAVE_COORD
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

#include "idforge/clock.hpp"
#include "idforge/coord/leased_generator.hpp"

namespace idforge::cli {

struct LeasedStart {
  std::string who;                    ///< what the lines begin with: "idforge", "idforge serve"
  std::optional<std::uint64_t> node;  ///< a fixed node ID, or any free one
  std::stop_token stop;               ///< ends the start-up wait
  /// Also told the wait's line (serve shows it on /readyz); may be empty.
  std::function<void(const std::string& words)> on_wait;
};

/// True for a static: or ordinal: store with neither state= nor register=: alone it keeps no
/// lock and no high-water mark. with_local_state returns store_url as given, except that
/// such a store gets state=STATE_DIR (and ttl=TTL_MS when it names no ttl): its node then takes
/// the same lock and keeps the same high-water mark in STATE_DIR as a fixed --node, so a
/// restart with the clock behind waits or refuses instead of issuing again, and the node
/// configured twice is refused. Throws CommandFailure for a STATE_DIR the URL cannot carry.
bool keeps_no_state(const std::string& store_url);

/// See keeps_no_state.
std::string with_local_state(const std::string& store_url, const std::string& state_dir,
                             std::optional<std::int64_t> ttl_ms = std::nullopt);

/// How often `serve` tries again to take a node ID while none is free or the store does not
/// answer at start: a sixth of the URL's ttl (default 10000), within 100..1000 ms, so a node
/// freed by another holder is back in service well inside one TTL.
std::int64_t retry_start_ms(const std::string& store_url);

/// Acquires (fixed or any), reserves, waits (saying so) and returns the generator.
/// Throws what SharedLeasedSnowflakeGenerator throws.
std::unique_ptr<coord::SharedLeasedSnowflakeGenerator> start_leased(const std::string& store_url,
                                                                    const Layout& layout,
                                                                    Clock& clock,
                                                                    const LeasedStart& how);

}  // namespace idforge::cli
#endif
