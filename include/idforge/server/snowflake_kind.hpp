// Registers the `snowflake` kind on a Server: batches come from SharedSnowflakeGenerator::
// next_batch (one clock read per tick), and the generator's slow-path counters go to
// /metrics. The kind needs the server's readiness (the node lease) to issue.
#pragma once

#include <functional>
#include <span>

#include "idforge/server/server.hpp"
#include "idforge/snowflake_generator.hpp"

namespace idforge::server {

/// Adds kind "snowflake" issuing from gen (which must outlive server) and its metrics.
void add_snowflake_kind(Server& server, SharedSnowflakeGenerator& gen);
/// Same, but batches come from fill (e.g. a leased generator that turns a fence into a
/// LeaseError); gen supplies the layout, node and slow-path counters.
void add_snowflake_kind(Server& server, const SharedSnowflakeGenerator& gen,
                        std::function<void(std::span<Snowflake>)> fill);

}  // namespace idforge::server
