// Registers the kinds that need no node ID: uuid7 (RFC 9562 v7, monotonic), uuid4 (random)
// and ulid (monotonic). Each is issued by one generator shared by all request threads
// (SharedUuidV7Generator, SharedUlidGenerator: lock-free), in canonical text: UUIDs as
// 36-character lower-case hex with hyphens, ULIDs as 26 characters of Crockford base32.
#pragma once

#include "idforge/clock.hpp"
#include "idforge/server/server.hpp"

namespace idforge::server {

/// Adds kinds "uuid7", "uuid4" and "ulid" to server, read on the server's clock.
void add_text_kinds(Server& server);
/// The same on another clock; clock must outlive server.
void add_text_kinds(Server& server, Clock& clock);

}  // namespace idforge::server
