// The C face of a 128-bit ID family with text and a monotonic generator (UUIDv7, ULID):
// the argument checks, the copy to and from the C struct, text both ways and the generator
// handle, written once. uuid.cpp and ulid.cpp name their functions and call these; each
// message names the function it came from.
#pragma once

#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "c_support.hpp"
#include "idforge/ulid.hpp"
#include "idforge/uuid.hpp"

namespace idforge::c {

/// Copies an ID into its C struct (16 bytes, the same order).
template <class Id, class CId>
void put(const Id& id, CId* out) noexcept {
  static_assert(sizeof(CId) == sizeof(Id) && sizeof(typename Id::Bytes) == 16);
  std::memcpy(out->bytes, id.bytes().data(), 16);
}

/// The ID in a C struct.
template <class Id, class CId>
Id get(const CId* in) noexcept {
  typename Id::Bytes b;
  std::memcpy(b.data(), in->bytes, 16);
  return Id(b);
}

// The parser that does not throw, per family: valid text takes no exception path.
inline ParseStatus parse_quietly(std::string_view s, Uuid& out) noexcept {
  return parse_uuid(s, out);
}
inline ParseStatus parse_quietly(std::string_view s, Ulid& out) noexcept {
  return parse_ulid(s, out);
}

/// Writes the ID's canonical text and a NUL into out, which holds text_size bytes or more.
template <class Id, class CId>
idforge_status format_text(const char* fn, const CId* id, char* out, std::size_t size,
                           std::size_t text_size) {
  if (!id) return null_argument(fn, "id");
  if (!out) return null_argument(fn, "out");
  if (size < text_size)
    return fail(IDFORGE_E_BUFFER_TOO_SMALL,
                std::string(fn) + ": the buffer must hold " + std::to_string(text_size) +
                    " bytes (" + std::to_string(text_size - 1) + " characters and a NUL)");
  char* end = get<Id>(id).to_chars(out);
  *end = '\0';
  return IDFORGE_OK;
}

/// Parses len bytes of text; a failure names the position and the rule (Id::parse's error).
template <class Id, class CId>
idforge_status parse_text(const char* fn, const char* text, std::size_t len, CId* out) {
  if (!text && len) return null_argument(fn, "text");
  if (!out) return null_argument(fn, "out");
  if (const idforge_status s = check_length(fn, len)) return s;
  return guard([&] {
    const std::string_view s(text ? text : "", len);
    Id id;
    if (!parse_quietly(s, id).ok()) id = Id::parse(s);  // throws ParseError: position and rule
    put(id, out);
    return IDFORGE_OK;
  });
}

/// A new generator handle (a struct holding `gen`).
template <class Handle>
idforge_status gen_new(const char* fn, Handle** out) {
  if (!out) return null_argument(fn, "out");
  *out = nullptr;
  return guard([&] {
    *out = new Handle{};
    return IDFORGE_OK;
  });
}

/// The handle's next ID.
template <class Handle, class CId>
idforge_status gen_next(const char* fn, Handle* gen, CId* out) {
  if (!gen) return null_argument(fn, "gen");
  if (!out) return null_argument(fn, "out");
  return guard([&] {
    put(gen->gen.next(), out);
    return IDFORGE_OK;
  });
}

/// n increasing IDs from the handle, written in place (the C struct and the ID are 16 bytes
/// of the same meaning).
template <class Handle, class CId>
idforge_status gen_next_batch(const char* fn, Handle* gen, CId* out, std::size_t n) {
  using Id = typename decltype(gen->gen)::Id;
  static_assert(sizeof(CId) == sizeof(Id));
  if (!gen) return null_argument(fn, "gen");
  if (!out && n) return null_argument(fn, "out");
  return guard([&] {
    gen->gen.next_batch(std::span<Id>(reinterpret_cast<Id*>(out), n));
    return IDFORGE_OK;
  });
}

}  // namespace idforge::c
