// Masking (idforge/mask.hpp, idforge/public_id.hpp) behind the C ABI: a keyring handle, raw
// masks of integers and UUIDs, and the public text form. The core's noexcept faces do the
// work; a fault is turned into a status and a message naming the value and the rule (the
// throwing core functions make that message, on the error path only).
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "c_support.hpp"
#include "idforge/detail/printable.hpp"
#include "idforge/mask_keyring.hpp"
#include "idforge/public_id.hpp"

struct idforge_mask_keyring {
  idforge::MaskKeyring ring;
};

namespace idforge::c {
namespace {

static_assert(static_cast<int>(MaskMode::u63) == IDFORGE_MASK_U63 &&
              static_cast<int>(MaskMode::u128) == IDFORGE_MASK_U128 &&
              static_cast<int>(MaskMode::v7_as_v4) == IDFORGE_MASK_V7);
static_assert(static_cast<int>(PublicAlphabet::base58) == IDFORGE_BASE58 &&
              static_cast<int>(PublicAlphabet::base62) == IDFORGE_BASE62);
static_assert(IDFORGE_PUBLIC_ID_TEXT_SIZE == kMaxPublicIdSize + 1);
static_assert(sizeof(idforge_public_id) == 32);

Uuid get(const idforge_uuid* in) noexcept {
  Uuid::Bytes b;
  std::memcpy(b.data(), in->bytes, 16);
  return Uuid(b);
}

void put(const Uuid& u, idforge_uuid* out) noexcept {
  std::memcpy(out->bytes, u.bytes().data(), 16);
}

bool rfc_version(const Uuid& u, int version) noexcept {
  return u.version() == version && u.variant() == UuidVariant::rfc9562;
}

// The key key_id names: the primary for IDFORGE_MASK_KEY_PRIMARY, else one the keyring holds
// (MaskKeyring::at throws key_error naming the ID and the IDs it holds).
const MaskKey& key_of(const MaskKeyring& ring, const char* function, int key_id) {
  if (key_id == IDFORGE_MASK_KEY_PRIMARY) return ring.primary();
  if (key_id < 0)
    throw Error(errc::invalid_argument,
                std::string(function) + ": key_id " + std::to_string(key_id) +
                    " is neither a key ID (0..57) nor IDFORGE_MASK_KEY_PRIMARY (-1)");
  return ring.at(static_cast<unsigned>(key_id));
}

// A raw int as a mode of the UUID functions; U63 and numbers that are no mode are refused.
idforge_mask_mode uuid_mode_arg(const char* function, int mode) {
  if (mode == IDFORGE_MASK_AUTO || mode == IDFORGE_MASK_U128 || mode == IDFORGE_MASK_V7)
    return static_cast<idforge_mask_mode>(mode);
  throw Error(errc::invalid_argument,
              std::string(function) + ": mode " + std::to_string(mode) +
                  (mode == IDFORGE_MASK_U63 ? " (U63) takes an integer: use the _u63 function"
                                            : " is not a mode for a UUID (AUTO -1, U128 1, V7 2)"));
}

PublicAlphabet alphabet_arg(const char* function, int alphabet) {
  if (alphabet == IDFORGE_BASE58 || alphabet == IDFORGE_BASE62)
    return static_cast<PublicAlphabet>(alphabet);
  throw Error(errc::invalid_argument, std::string(function) + ": alphabet " +
                                          std::to_string(alphabet) +
                                          " is not IDFORGE_BASE58 (0) or IDFORGE_BASE62 (1)");
}

// AUTO: V7 for a UUID of `version` (7 to mask, 4 to unmask) with the RFC 9562 variant.
MaskMode resolve(idforge_mask_mode mode, const Uuid& u, int version) noexcept {
  if (mode == IDFORGE_MASK_AUTO)
    return rfc_version(u, version) ? MaskMode::v7_as_v4 : MaskMode::u128;
  return static_cast<MaskMode>(mode);
}

idforge_status keyring_out(const char* function, idforge_mask_keyring** out) noexcept {
  if (!out) return null_argument(function, "out");
  *out = nullptr;
  return IDFORGE_OK;
}

}  // namespace
}  // namespace idforge::c

using namespace idforge;
using idforge::c::guard;
using idforge::c::null_argument;

extern "C" {

idforge_status idforge_mask_keyring_from_file(const char* path, idforge_mask_keyring** out) {
  if (const idforge_status s = c::keyring_out("idforge_mask_keyring_from_file", out)) return s;
  if (!path) return null_argument("idforge_mask_keyring_from_file", "path");
  return guard([&] {
    *out = new idforge_mask_keyring{MaskKeyring::load_file(path)};
    return IDFORGE_OK;
  });
}

idforge_status idforge_mask_keyring_from_environment(idforge_mask_keyring** out) {
  if (const idforge_status s = c::keyring_out("idforge_mask_keyring_from_environment", out))
    return s;
  return guard([&] {
    *out = new idforge_mask_keyring{MaskKeyring::from_environment()};
    return IDFORGE_OK;
  });
}

idforge_status idforge_mask_keyring_from_text(const char* text, size_t len,
                                              idforge_mask_keyring** out) {
  if (const idforge_status s = c::keyring_out("idforge_mask_keyring_from_text", out)) return s;
  if (!text && len) return null_argument("idforge_mask_keyring_from_text", "text");
  if (const idforge_status s = c::check_length("idforge_mask_keyring_from_text", len)) return s;
  return guard([&] {
    *out = new idforge_mask_keyring{
        MaskKeyring::parse(std::string_view(text ? text : "", len), "keyring text")};
    return IDFORGE_OK;
  });
}

idforge_status idforge_mask_keyring_ids(const idforge_mask_keyring* keyring, unsigned* ids,
                                        size_t size, size_t* count) {
  if (count) *count = 0;
  if (!keyring) return null_argument("idforge_mask_keyring_ids", "keyring");
  if (!ids && size) return null_argument("idforge_mask_keyring_ids", "ids");
  return guard([&] {
    const std::vector<unsigned> all = keyring->ring.ids();
    if (count) *count = all.size();
    if (size < all.size())
      return c::fail(IDFORGE_E_BUFFER_TOO_SMALL,
                     "idforge_mask_keyring_ids: room for " + std::to_string(size) +
                         " key IDs; the keyring holds " + std::to_string(all.size()));
    std::memcpy(ids, all.data(), all.size() * sizeof(unsigned));
    return IDFORGE_OK;
  });
}

void idforge_mask_keyring_free(idforge_mask_keyring* keyring) {
  delete keyring;
}

idforge_status idforge_mask_new_key(unsigned id, char* out, size_t size) {
  if (!out) return null_argument("idforge_mask_new_key", "out");
  if (size < IDFORGE_MASK_KEY_LINE_SIZE)
    return c::fail(IDFORGE_E_BUFFER_TOO_SMALL,
                   "idforge_mask_new_key: the buffer must hold 68 bytes (a key line and a NUL)");
  return guard([&] {
    std::string line = new_mask_key_line(id);
    std::memcpy(out, line.c_str(), line.size() + 1);
    // The line is a secret: overwrite it through volatile, which the compiler cannot drop.
    volatile char* p = line.data();
    for (std::size_t i = 0; i < line.size(); ++i) p[i] = '\0';
    return IDFORGE_OK;
  });
}

idforge_status idforge_mask_u63(const idforge_mask_keyring* keyring, int key_id, uint64_t value,
                                uint64_t* out) {
  if (!keyring) return null_argument("idforge_mask_u63", "keyring");
  if (!out) return null_argument("idforge_mask_u63", "out");
  return guard([&] {
    *out = c::key_of(keyring->ring, "idforge_mask_u63", key_id).mask_u63(value);
    return IDFORGE_OK;
  });
}

idforge_status idforge_unmask_u63(const idforge_mask_keyring* keyring, int key_id, uint64_t masked,
                                  uint64_t* out) {
  if (!keyring) return null_argument("idforge_unmask_u63", "keyring");
  if (!out) return null_argument("idforge_unmask_u63", "out");
  return guard([&] {
    *out = c::key_of(keyring->ring, "idforge_unmask_u63", key_id).unmask_u63(masked);
    return IDFORGE_OK;
  });
}

idforge_status idforge_mask_uuid(const idforge_mask_keyring* keyring, int key_id,
                                 idforge_mask_mode mode, const idforge_uuid* value,
                                 idforge_uuid* out) {
  static constexpr const char* fn = "idforge_mask_uuid";
  if (!keyring) return null_argument(fn, "keyring");
  if (!value) return null_argument(fn, "value");
  if (!out) return null_argument(fn, "out");
  return guard([&] {
    const MaskKey& key = c::key_of(keyring->ring, fn, key_id);
    const Uuid u = c::get(value);
    const MaskMode m = c::resolve(c::uuid_mode_arg(fn, mode), u, 7);
    c::put(m == MaskMode::v7_as_v4 ? key.mask_v7(u) : key.mask_u128(u), out);
    return IDFORGE_OK;
  });
}

idforge_status idforge_unmask_uuid(const idforge_mask_keyring* keyring, int key_id,
                                   idforge_mask_mode mode, const idforge_uuid* masked,
                                   idforge_uuid* out) {
  static constexpr const char* fn = "idforge_unmask_uuid";
  if (!keyring) return null_argument(fn, "keyring");
  if (!masked) return null_argument(fn, "masked");
  if (!out) return null_argument(fn, "out");
  return guard([&] {
    const MaskKey& key = c::key_of(keyring->ring, fn, key_id);
    const Uuid u = c::get(masked);
    const MaskMode m = c::resolve(c::uuid_mode_arg(fn, mode), u, 4);
    c::put(m == MaskMode::v7_as_v4 ? key.unmask_v4(u) : key.unmask_u128(u), out);
    return IDFORGE_OK;
  });
}

idforge_status idforge_mask_public_u63(const idforge_mask_keyring* keyring, int key_id,
                                       uint64_t value, idforge_public_alphabet alphabet, char* out,
                                       size_t size) {
  static constexpr const char* fn = "idforge_mask_public_u63";
  if (!keyring) return null_argument(fn, "keyring");
  if (!out) return null_argument(fn, "out");
  if (size < public_id_size(MaskMode::u63) + 1)
    return c::fail(IDFORGE_E_BUFFER_TOO_SMALL,
                   "idforge_mask_public_u63: the buffer must hold 17 bytes (16 characters and a "
                   "NUL)");
  return guard([&] {
    const MaskKey& key = c::key_of(keyring->ring, fn, key_id);
    const PublicAlphabet a = c::alphabet_arg(fn, alphabet);
    if (write_public_id(key, MaskMode::u63, {0, value}, a, out) != MaskFault::ok)
      to_public_id(key, MaskMode::u63, {0, value}, a);  // throws the message naming the value
    out[public_id_size(MaskMode::u63)] = '\0';
    return IDFORGE_OK;
  });
}

idforge_status idforge_mask_public_uuid(const idforge_mask_keyring* keyring, int key_id,
                                        idforge_mask_mode mode, const idforge_uuid* value,
                                        idforge_public_alphabet alphabet, char* out, size_t size) {
  static constexpr const char* fn = "idforge_mask_public_uuid";
  if (!keyring) return null_argument(fn, "keyring");
  if (!value) return null_argument(fn, "value");
  if (!out) return null_argument(fn, "out");
  return guard([&] {
    const MaskKey& key = c::key_of(keyring->ring, fn, key_id);
    const PublicAlphabet a = c::alphabet_arg(fn, alphabet);
    const Uuid u = c::get(value);
    const MaskMode m = c::resolve(c::uuid_mode_arg(fn, mode), u, 7);
    const std::size_t n = public_id_size(m);
    if (size < n + 1)
      return c::fail(IDFORGE_E_BUFFER_TOO_SMALL, std::string(fn) + ": a " + to_string(m) +
                                                     " public ID takes " + std::to_string(n + 1) +
                                                     " bytes (with its NUL); the buffer has " +
                                                     std::to_string(size));
    if (m == MaskMode::v7_as_v4 && !c::rfc_version(u, 7)) key.mask_v7(u);  // throws: not a v7
    if (write_public_id(key, m, MaskValue::of(u), a, out) != MaskFault::ok)
      to_public_id(key, m, MaskValue::of(u), a);  // throws the message naming the value
    out[n] = '\0';
    return IDFORGE_OK;
  });
}

idforge_status idforge_unmask_public(const idforge_mask_keyring* keyring, const char* text,
                                     size_t len, idforge_public_alphabet alphabet,
                                     idforge_mask_mode expect_mode, int expect_key_id,
                                     idforge_public_id* out) {
  static constexpr const char* fn = "idforge_unmask_public";
  if (!keyring) return null_argument(fn, "keyring");
  if (!text && len) return null_argument(fn, "text");
  if (!out) return null_argument(fn, "out");
  if (const idforge_status s = c::check_length(fn, len)) return s;
  return guard([&] {
    const PublicAlphabet a = c::alphabet_arg(fn, alphabet);
    const int em = expect_mode;
    if (em < IDFORGE_MASK_AUTO || em > IDFORGE_MASK_V7)
      throw Error(errc::invalid_argument, std::string(fn) + ": expect_mode " + std::to_string(em) +
                                              " is not a mode (AUTO -1, U63 0, U128 1, V7 2)");
    if (expect_key_id < IDFORGE_MASK_KEY_PRIMARY)
      throw Error(errc::invalid_argument,
                  std::string(fn) + ": expect_key_id " + std::to_string(expect_key_id) +
                      " is neither a key ID (0..57) nor IDFORGE_MASK_KEY_PRIMARY (-1: any)");
    const std::string_view t(text ? text : "", len);
    PublicIdInfo info;
    const PublicIdStatus st = read_public_id(keyring->ring, t, a, info);
    if (!st.ok())
      return c::fail(c::status_of(make_error_code(to_errc(st.fault))),
                     public_id_message(st, t, a, keyring->ring, info));
    if (em != IDFORGE_MASK_AUTO && static_cast<int>(info.mode) != em)
      return c::fail(IDFORGE_E_INVALID_ARGUMENT, "public ID '" + std::string(t) + "' is of mode " +
                                                     to_string(info.mode) + ", not " +
                                                     to_string(static_cast<MaskMode>(em)));
    if (expect_key_id >= 0 && info.key_id != static_cast<unsigned>(expect_key_id))
      return c::fail(IDFORGE_E_KEY_ERROR,
                     "public ID '" + std::string(t) + "' was made with mask key " +
                         std::to_string(info.key_id) + ", not " + std::to_string(expect_key_id));
    idforge_public_id r{};
    r.mode = static_cast<int32_t>(info.mode);
    r.key_id = info.key_id;
    if (info.mode == MaskMode::u63)
      r.value = info.value.low;
    else
      c::put(info.value.to_uuid(), &r.uuid);
    *out = r;
    return IDFORGE_OK;
  });
}

}  // extern "C"

// The names every face gives modes and alphabets: parsed here once, so Python, Node, SQLite and
// PostgreSQL accept the same four words and refuse the rest with the same message.
extern "C" {

idforge_status idforge_mask_mode_parse(const char* name, size_t len, int allow_auto,
                                       idforge_mask_mode* out) {
  if (!name && len) return null_argument("idforge_mask_mode_parse", "name");
  if (!out) return null_argument("idforge_mask_mode_parse", "out");
  if (const idforge_status s = c::check_length("idforge_mask_mode_parse", len)) return s;
  return guard([&] {
    const std::string_view n(name ? name : "", len);
    if (allow_auto && n == "auto")
      *out = IDFORGE_MASK_AUTO;
    else if (n == "u63")
      *out = IDFORGE_MASK_U63;
    else if (n == "u128")
      *out = IDFORGE_MASK_U128;
    else if (n == "v7")
      *out = IDFORGE_MASK_V7;
    else
      return c::fail(IDFORGE_E_INVALID_ARGUMENT,
                     "mode '" + detail::shortened(detail::printable(n), 64) + "' is not one of " +
                         (allow_auto ? "'auto', " : "") + "'u63', 'u128', 'v7'");
    return IDFORGE_OK;
  });
}

const char* idforge_mask_mode_name(idforge_mask_mode mode) {
  switch (mode) {
    case IDFORGE_MASK_AUTO:
      return "auto";
    case IDFORGE_MASK_U63:
      return "u63";
    case IDFORGE_MASK_U128:
      return "u128";
    case IDFORGE_MASK_V7:
      return "v7";
  }
  return "unknown";
}

idforge_status idforge_public_alphabet_parse(const char* name, size_t len,
                                             idforge_public_alphabet* out) {
  if (!name && len) return null_argument("idforge_public_alphabet_parse", "name");
  if (!out) return null_argument("idforge_public_alphabet_parse", "out");
  if (const idforge_status s = c::check_length("idforge_public_alphabet_parse", len)) return s;
  return guard([&] {
    const std::string_view n(name ? name : "", len);
    if (n == "base58")
      *out = IDFORGE_BASE58;
    else if (n == "base62")
      *out = IDFORGE_BASE62;
    else
      return c::fail(IDFORGE_E_INVALID_ARGUMENT, "alphabet '" +
                                                     detail::shortened(detail::printable(n), 64) +
                                                     "' is not one of 'base58', 'base62'");
    return IDFORGE_OK;
  });
}

idforge_status idforge_mask_keyring_describe(const idforge_mask_keyring* keyring, char* out,
                                             size_t size, size_t* needed) {
  if (!keyring) return null_argument("idforge_mask_keyring_describe", "keyring");
  if (const idforge_status s = c::check_out("idforge_mask_keyring_describe", out, size)) return s;
  return guard([&] {
    return c::write_text(keyring->ring.source() + ": keys " + keyring->ring.ids_text(), out, size,
                         needed);
  });
}

}  // extern "C"
