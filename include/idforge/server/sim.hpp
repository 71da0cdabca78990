// The web page's simulation routes. The simulation itself (two machines, their clocks, the
// demos) is the index lab's (idforge/lab/page_sim.hpp); these routes check the query and
// pass its JSON on.
#pragma once

namespace idforge::server {

class Server;

/// Adds GET /v1/sim/layouts, GET /v1/sim/run?kind=&count=&start_ms= and
/// GET /v1/sim/demo/{n}?start_ms= to server's route table. Without start_ms a run starts
/// at the server's clock, floored to the second.
void add_sim_routes(Server& server);

}  // namespace idforge::server
