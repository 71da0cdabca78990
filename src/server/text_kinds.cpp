#include "idforge/server/text_kinds.hpp"

#include <memory>
#include <vector>

#include "idforge/ulid_generator.hpp"
#include "idforge/uuid_generator.hpp"

namespace idforge::server {
namespace {

// Writes each ID's canonical text into out.texts.
template <typename Id>
void append_texts(const std::vector<Id>& ids, IdBatch& out) {
  out.texts.reserve(out.texts.size() + ids.size());
  for (const Id& id : ids) {
    std::string& s = out.texts.emplace_back(Id::kTextSize, '\0');
    id.to_chars(s.data());
  }
}

}  // namespace

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
                        uuid_v4_batch(buf);
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
