// Registers the `snowflake` kind on a Server: batches come from SharedSnowflakeGenerator::
// next_batch (one clock read per tick), and the generator's slow-path counters go to
// /metrics. The kind needs the server's readiness (the node lease) to issue.
#pragma once

#include <functional>
#include <span>
#include <string>

#include "idforge/server/server.hpp"
#include "idforge/snowflake_generator.hpp"

namespace idforge::server {

/// Adds kind "snowflake" issuing from gen (which must outlive server) and its metrics.
void add_snowflake_kind(Server& server, SharedSnowflakeGenerator& gen);
/// Same, but batches come from fill (e.g. a leased generator that turns a fence into a
/// LeaseError); gen supplies the layout, node and slow-path counters.
void add_snowflake_kind(Server& server, const SharedSnowflakeGenerator& gen,
                        std::function<void(std::span<Snowflake>)> fill);
/// Same, for a generator that start-up makes later (after the server serves /healthz):
/// current() returns it, or nullptr while there is none (its metrics are left out, and the
/// kind must not be asked: its readiness is down). node_words describe the node ID.
void add_snowflake_kind(Server& server, const Layout& layout,
                        std::function<const SharedSnowflakeGenerator*()> current,
                        std::function<void(std::span<Snowflake>)> fill,
                        const std::string& node_words);

}  // namespace idforge::server
