// The scenarios the explorer runs: two holders of one node ID (the store hands out a single
// node, nodes=1) through the real generator, keeper and store code, with the moves of the
// environment that matter for each: forks, releases, stale readings, fences in ticks, an
// unreadable mark, a power loss, aliased ordinals, lock files and keys deleted by hand,
// crashes, lost replies.
#pragma once

#include <string>
#include <vector>

#include "scenario.hpp"

namespace idforge::explore {

/// Every scenario, for every store it applies to; names are "what/store".
std::vector<Scenario> all_scenarios();

/// The scenario called name (throws if none).
Scenario scenario_named(const std::string& name);

}  // namespace idforge::explore
