// UUIDv4, UUIDv7 (process-wide, per handle, and of a given time), UUID and TypeID text (the
// checks of text and handles are id128_face.hpp's, shared with ULID).
#include <cstring>
#include <string>
#include <string_view>

#include "id128_face.hpp"
#include "idforge/random.hpp"
#include "idforge/typeid.hpp"
#include "idforge/uuid.hpp"
#include "idforge/uuid_fields.hpp"
#include "idforge/uuid_generator.hpp"

struct idforge_uuid7_gen {
  idforge::SharedUuidV7Generator gen;
};

namespace idforge::c {
namespace {

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
  return c::format_text<Uuid>("idforge_uuid_format", id, out, size, IDFORGE_UUID_TEXT_SIZE);
}

idforge_status idforge_uuid_parse(const char* text, size_t len, idforge_uuid* out) {
  return c::parse_text<Uuid>("idforge_uuid_parse", text, len, out);
}

idforge_status idforge_uuid7_gen_new(idforge_uuid7_gen** out) {
  return c::gen_new("idforge_uuid7_gen_new", out);
}

idforge_status idforge_uuid7_gen_next(idforge_uuid7_gen* gen, idforge_uuid* out) {
  return c::gen_next("idforge_uuid7_gen_next", gen, out);
}

idforge_status idforge_uuid7_gen_next_batch(idforge_uuid7_gen* gen, idforge_uuid* out, size_t n) {
  return c::gen_next_batch("idforge_uuid7_gen_next_batch", gen, out, n);
}

void idforge_uuid7_gen_free(idforge_uuid7_gen* gen) {
  delete gen;
}

}  // extern "C"

// UUIDv7 of a given time and TypeID text: for a face that keeps its own clock reading
// (PostgreSQL's statement time) or its own generator state.
extern "C" {

idforge_status idforge_uuid7_at(int64_t unix_ms, int32_t sub_ms_ns, idforge_uuid* out) {
  if (!out) return null_argument("idforge_uuid7_at", "out");
  if (unix_ms < 0 || unix_ms > static_cast<std::int64_t>(kMaxUnixMs48))
    return c::fail(IDFORGE_E_INVALID_ARGUMENT,
                   "timestamp " + std::to_string(unix_ms) +
                       " ms is outside UUIDv7's 48-bit Unix millisecond field (0 .. " +
                       std::to_string(kMaxUnixMs48) + ", 1970-01-01 .. 10889-08-02)");
  if (sub_ms_ns < 0 || sub_ms_ns > 999'999)
    return c::fail(IDFORGE_E_INVALID_ARGUMENT, "sub_ms_ns " + std::to_string(sub_ms_ns) +
                                                   " is outside 0..999999 (ns within the ms)");
  return guard([&] {
    const auto fraction = static_cast<std::uint16_t>((std::int64_t{sub_ms_ns} * 4096) / 1'000'000);
    c::put(compose_v7(static_cast<std::uint64_t>(unix_ms), fraction, random_u64()), out);
    return IDFORGE_OK;
  });
}

idforge_status idforge_typeid_format(const char* prefix, size_t len, const idforge_uuid* uuid,
                                     char* out, size_t size) {
  if (!prefix && len) return null_argument("idforge_typeid_format", "prefix");
  if (!uuid) return null_argument("idforge_typeid_format", "uuid");
  if (!out) return null_argument("idforge_typeid_format", "out");
  if (const idforge_status s = c::check_length("idforge_typeid_format", len)) return s;
  return guard([&] {
    const TypeId t(std::string_view(prefix ? prefix : "", len), c::get<Uuid>(uuid));
    const std::string text = t.to_string();
    if (text.size() + 1 > size)
      return c::fail(IDFORGE_E_BUFFER_TOO_SMALL, "idforge_typeid_format: the buffer must hold " +
                                                     std::to_string(text.size() + 1) +
                                                     " bytes (IDFORGE_TYPEID_TEXT_SIZE "
                                                     "always suffices)");
    std::memcpy(out, text.c_str(), text.size() + 1);
    return IDFORGE_OK;
  });
}

}  // extern "C"
