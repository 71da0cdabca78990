// GET /v1/sequences/{name}?count=N: values from the ticket layer's segment allocator
// (hi/lo blocks taken from a SegmentStore, served from memory). Built when idforge::ticket
// is; the server face wires the wing in, the wing knows nothing of HTTP.
#pragma once

#include <memory>
#include <string>

namespace idforge::server {

class Server;

/// Registers the route on server, drawing from the segment store at store_url
/// (sqlite:PATH or postgres://...). One SegmentClient per sequence name, opened on first
/// use; the returned object owns them and must outlive the server's run(). Unknown
/// sequences answer 404, a store that fails answers 503, a bad count 400.
std::shared_ptr<void> add_sequence_routes(Server& server, const std::string& store_url);

}  // namespace idforge::server
