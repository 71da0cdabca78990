// Start-up of a leased Snowflake generator for `gen snowflake` and `serve`: a node ID fixed
// by --node is registered in the lease store (refused while another live process holds
// it), an automatic one may pass over node IDs whose marks are far ahead; either way one
// line on stderr says what start-up waits for and for how long, and a stop request ends
// that wait at once, before anything is issued.
#pragma once

#ifdef IDFORGE_HAVE_COORD
#include <cstdint>
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
};

/// Acquires (fixed or any), reserves, waits (saying so) and returns the generator.
/// Throws what LeasedSnowflakeGenerator throws.
std::unique_ptr<coord::LeasedSnowflakeGenerator> start_leased(const std::string& store_url,
                                                              const Layout& layout, Clock& clock,
                                                              const LeasedStart& how);

}  // namespace idforge::cli
#endif
