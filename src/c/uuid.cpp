// UUIDv4, UUIDv7 (process-wide and per handle) and UUID text.
#include <cstring>
#include <string_view>

#include "c_support.hpp"
#include "idforge/uuid.hpp"
#include "idforge/uuid_generator.hpp"

struct idforge_uuid7_gen {
  idforge::SharedUuidV7Generator gen;
};

namespace idforge::c {
namespace {

static_assert(sizeof(idforge_uuid) == sizeof(Uuid) && sizeof(Uuid::Bytes) == 16);

void put(const Uuid& u, idforge_uuid* out) noexcept {
  std::memcpy(out->bytes, u.bytes().data(), 16);
}

Uuid get(const idforge_uuid* in) noexcept {
  Uuid::Bytes b;
  std::memcpy(b.data(), in->bytes, 16);
  return Uuid(b);
}

// The generator behind idforge_make_uuid7(): one for the process, so every UUIDv7 made through
// the handle-less call is increasing across threads. Never destroyed: a thread may still
// call it while static destructors run at exit.
SharedUuidV7Generator& process_v7() {
  static auto* gen = new SharedUuidV7Generator();
  return *gen;
}

}  // namespace
}  // namespace idforge::c

using namespace idforge;
using idforge::c::guard;
using idforge::c::null_argument;

extern "C" {

idforge_status idforge_make_uuid4(idforge_uuid* out) {
  if (!out) return null_argument("idforge_make_uuid4", "out");
  c::put(new_uuid_v4(), out);
  return IDFORGE_OK;
}

idforge_status idforge_make_uuid7(idforge_uuid* out) {
  if (!out) return null_argument("idforge_make_uuid7", "out");
  return guard([&] {
    c::put(c::process_v7().next(), out);
    return IDFORGE_OK;
  });
}

idforge_status idforge_uuid_format(const idforge_uuid* id, char* out, size_t size) {
  if (!id) return null_argument("idforge_uuid_format", "id");
  if (!out) return null_argument("idforge_uuid_format", "out");
  if (size < IDFORGE_UUID_TEXT_SIZE)
    return c::fail(IDFORGE_E_BUFFER_TOO_SMALL,
                   "idforge_uuid_format: the buffer must hold 37 bytes (36 characters and a NUL)");
  char* end = c::get(id).to_chars(out);
  *end = '\0';
  return IDFORGE_OK;
}

idforge_status idforge_uuid_parse(const char* text, size_t len, idforge_uuid* out) {
  if (!text && len) return null_argument("idforge_uuid_parse", "text");
  if (!out) return null_argument("idforge_uuid_parse", "out");
  if (const idforge_status s = c::check_length("idforge_uuid_parse", len)) return s;
  return guard([&] {
    const std::string_view s(text ? text : "", len);
    Uuid u;
    if (!parse_uuid(s, u).ok()) u = Uuid::parse(s);  // throws ParseError: position and rule
    c::put(u, out);
    return IDFORGE_OK;
  });
}

idforge_status idforge_uuid7_gen_new(idforge_uuid7_gen** out) {
  if (!out) return null_argument("idforge_uuid7_gen_new", "out");
  *out = nullptr;
  return guard([&] {
    *out = new idforge_uuid7_gen{};
    return IDFORGE_OK;
  });
}

idforge_status idforge_uuid7_gen_next(idforge_uuid7_gen* gen, idforge_uuid* out) {
  if (!gen) return null_argument("idforge_uuid7_gen_next", "gen");
  if (!out) return null_argument("idforge_uuid7_gen_next", "out");
  return guard([&] {
    c::put(gen->gen.next(), out);
    return IDFORGE_OK;
  });
}

idforge_status idforge_uuid7_gen_next_batch(idforge_uuid7_gen* gen, idforge_uuid* out, size_t n) {
  if (!gen) return null_argument("idforge_uuid7_gen_next_batch", "gen");
  if (!out && n) return null_argument("idforge_uuid7_gen_next_batch", "out");
  return guard([&] {
    // idforge_uuid and Uuid are both 16 bytes of the same meaning: fill in place.
    gen->gen.next_batch(std::span<Uuid>(reinterpret_cast<Uuid*>(out), n));
    return IDFORGE_OK;
  });
}

void idforge_uuid7_gen_free(idforge_uuid7_gen* gen) {
  delete gen;
}

}  // extern "C"
