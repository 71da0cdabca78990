// ULIDs: process-wide and per-handle monotonic generators, and ULID text.
#include <cstring>
#include <string_view>

#include "c_support.hpp"
#include "idforge/ulid.hpp"
#include "idforge/ulid_generator.hpp"

struct idforge_ulid_gen {
  idforge::SharedUlidGenerator gen;
};

namespace idforge::c {
namespace {

static_assert(sizeof(idforge_ulid) == sizeof(Ulid) && sizeof(Ulid::Bytes) == 16);

void put(const Ulid& u, idforge_ulid* out) noexcept {
  std::memcpy(out->bytes, u.bytes().data(), 16);
}

Ulid get(const idforge_ulid* in) noexcept {
  Ulid::Bytes b;
  std::memcpy(b.data(), in->bytes, 16);
  return Ulid(b);
}

// As process_v7() in uuid.cpp: one increasing sequence for the handle-less call, never
// destroyed.
SharedUlidGenerator& process_ulid() {
  static auto* gen = new SharedUlidGenerator();
  return *gen;
}

}  // namespace
}  // namespace idforge::c

using namespace idforge;
using idforge::c::guard;
using idforge::c::null_argument;

extern "C" {

idforge_status idforge_make_ulid(idforge_ulid* out) {
  if (!out) return null_argument("idforge_make_ulid", "out");
  return guard([&] {
    c::put(c::process_ulid().next(), out);
    return IDFORGE_OK;
  });
}

idforge_status idforge_ulid_format(const idforge_ulid* id, char* out, size_t size) {
  if (!id) return null_argument("idforge_ulid_format", "id");
  if (!out) return null_argument("idforge_ulid_format", "out");
  if (size < IDFORGE_ULID_TEXT_SIZE)
    return c::fail(IDFORGE_E_BUFFER_TOO_SMALL,
                   "idforge_ulid_format: the buffer must hold 27 bytes (26 characters and a NUL)");
  char* end = c::get(id).to_chars(out);
  *end = '\0';
  return IDFORGE_OK;
}

idforge_status idforge_ulid_parse(const char* text, size_t len, idforge_ulid* out) {
  if (!text && len) return null_argument("idforge_ulid_parse", "text");
  if (!out) return null_argument("idforge_ulid_parse", "out");
  if (const idforge_status s = c::check_length("idforge_ulid_parse", len)) return s;
  return guard([&] {
    const std::string_view s(text ? text : "", len);
    Ulid u;
    if (!parse_ulid(s, u).ok()) u = Ulid::parse(s);  // throws ParseError: position and rule
    c::put(u, out);
    return IDFORGE_OK;
  });
}

idforge_status idforge_ulid_gen_new(idforge_ulid_gen** out) {
  if (!out) return null_argument("idforge_ulid_gen_new", "out");
  *out = nullptr;
  return guard([&] {
    *out = new idforge_ulid_gen{};
    return IDFORGE_OK;
  });
}

idforge_status idforge_ulid_gen_next(idforge_ulid_gen* gen, idforge_ulid* out) {
  if (!gen) return null_argument("idforge_ulid_gen_next", "gen");
  if (!out) return null_argument("idforge_ulid_gen_next", "out");
  return guard([&] {
    c::put(gen->gen.next(), out);
    return IDFORGE_OK;
  });
}

idforge_status idforge_ulid_gen_next_batch(idforge_ulid_gen* gen, idforge_ulid* out, size_t n) {
  if (!gen) return null_argument("idforge_ulid_gen_next_batch", "gen");
  if (!out && n) return null_argument("idforge_ulid_gen_next_batch", "out");
  return guard([&] {
    gen->gen.next_batch(std::span<Ulid>(reinterpret_cast<Ulid*>(out), n));
    return IDFORGE_OK;
  });
}

void idforge_ulid_gen_free(idforge_ulid_gen* gen) {
  delete gen;
}

}  // extern "C"
