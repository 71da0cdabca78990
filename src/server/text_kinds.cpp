#include "idforge/server/text_kinds.hpp"

#include <memory>
#include <vector>

#include "idforge/ulid_generator.hpp"
#include "idforge/uuid_generator.hpp"

namespace idforge::server {
namespace {

// Writes every ID's canonical text into out.packed with one batch call (the vector code
// path is chosen once per batch, and no ID gets a string of its own).
template <typename Id>
void append_texts(const std::vector<Id>& ids, IdBatch& out) {
  const std::size_t at = out.packed.size();
  out.packed_width = Id::kTextSize;
  out.packed.resize(at + ids.size() * Id::kTextSize);
  to_chars(std::span<const Id>(ids), out.packed.data() + at);
}

}  // namespace

void add_text_kinds(Server& server) {
  add_text_kinds(server, server.clock());
}

void add_text_kinds(Server& server, Clock& clock) {
  auto v7 = std::make_shared<SharedUuidV7Generator>(clock);
  server.kinds().add({"uuid7", "RFC 9562 UUIDv7, time-ordered, monotonic",
                      [v7](std::size_t n, IdBatch& out) {
                        thread_local std::vector<Uuid> buf;
                        buf.resize(n);
                        v7->next_batch(buf);
                        append_texts(buf, out);
                      },
                      nullptr});
  server.kinds().add({"uuid4", "RFC 9562 UUIDv4, 122 random bits",
                      [](std::size_t n, IdBatch& out) {
                        thread_local std::vector<Uuid> buf;
                        buf.resize(n);
                        new_uuid_v4_batch(buf);
                        append_texts(buf, out);
                      },
                      nullptr});
  auto ulid = std::make_shared<SharedUlidGenerator>(clock);
  server.kinds().add({"ulid", "ULID, 48-bit time + 80 random bits, monotonic",
                      [ulid](std::size_t n, IdBatch& out) {
                        thread_local std::vector<Ulid> buf;
                        buf.resize(n);
                        ulid->next_batch(buf);
                        append_texts(buf, out);
                      },
                      nullptr});
}

}  // namespace idforge::server
