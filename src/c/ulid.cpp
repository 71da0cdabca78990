// ULIDs: process-wide and per-handle monotonic generators, and ULID text (the checks are
// id128_face.hpp's, shared with UUIDv7).
#include "idforge/ulid.hpp"
#include "id128_face.hpp"
#include "idforge/ulid_generator.hpp"

struct idforge_ulid_gen {
  idforge::SharedUlidGenerator gen;
};

namespace idforge::c {
namespace {

// As process_v7() in uuid.cpp: one increasing sequence for the handle-less call, never
// destroyed.
SharedUlidGenerator& process_ulid() {
  static auto* gen = new SharedUlidGenerator();
  return *gen;
}

}  // namespace
}  // namespace idforge::c

using namespace idforge;

extern "C" {

idforge_status idforge_make_ulid(idforge_ulid* out) {
  if (!out) return c::null_argument("idforge_make_ulid", "out");
  return c::guard([&] {
    c::put(c::process_ulid().next(), out);
    return IDFORGE_OK;
  });
}

idforge_status idforge_ulid_format(const idforge_ulid* id, char* out, size_t size) {
  return c::format_text<Ulid>("idforge_ulid_format", id, out, size, IDFORGE_ULID_TEXT_SIZE);
}

idforge_status idforge_ulid_parse(const char* text, size_t len, idforge_ulid* out) {
  return c::parse_text<Ulid>("idforge_ulid_parse", text, len, out);
}

idforge_status idforge_ulid_gen_new(idforge_ulid_gen** out) {
  return c::gen_new("idforge_ulid_gen_new", out);
}

idforge_status idforge_ulid_gen_next(idforge_ulid_gen* gen, idforge_ulid* out) {
  return c::gen_next("idforge_ulid_gen_next", gen, out);
}

idforge_status idforge_ulid_gen_next_batch(idforge_ulid_gen* gen, idforge_ulid* out, size_t n) {
  return c::gen_next_batch("idforge_ulid_gen_next_batch", gen, out, n);
}

void idforge_ulid_gen_free(idforge_ulid_gen* gen) {
  delete gen;
}

}  // extern "C"
