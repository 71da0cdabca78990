// The masking side of the PostgreSQL extension's C++ shim (idforge_pg_mask_shim.h): the
// backend's keyring and core's masking behind C functions. Everything is caught: no C++
// exception may unwind through PostgreSQL's C frames.
#include "idforge_pg_mask_shim.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "idforge/error.hpp"
#include "idforge/mask_keyring.hpp"
#include "idforge/public_id.hpp"
#include "idforge/uuid.hpp"

namespace {

using idforge::MaskFault;
using idforge::MaskKey;
using idforge::MaskKeyring;
using idforge::MaskMode;
using idforge::MaskValue;
using idforge::PublicAlphabet;
using idforge::Uuid;

// A failure with the status the glue maps to an SQLSTATE.
struct Failure {
  int status;
  std::string message;
};

// The backend's keyring and what it was loaded from. A backend is one thread: no lock.
struct Loaded {
  std::unique_ptr<const MaskKeyring> ring;
  std::string key_file;
  std::uint64_t generation = 0;
};
Loaded loaded;

void put_error(char* err, std::string_view message) noexcept {
  if (err == nullptr) return;
  const std::size_t n = std::min(message.size(), std::size_t{512 - 1});
  std::memcpy(err, message.data(), n);
  err[n] = '\0';
}

// The status of a core error: key problems, text that is no public ID, or a bad value.
int status_of(const idforge::Error& e) noexcept {
  if (e.code() == idforge::errc::key_error) return IDF_MASK_KEY_ERROR;
  if (e.code() == idforge::errc::not_ours) return IDF_MASK_NOT_OURS;
  return IDF_MASK_BAD_VALUE;
}

template <class F>
int guarded(char* err, F&& f) noexcept {
  try {
    f();
    return IDF_MASK_OK;
  } catch (const Failure& e) {
    put_error(err, e.message);
    return e.status;
  } catch (const idforge::Error& e) {
    put_error(err, e.what());
    return status_of(e);
  } catch (const std::exception& e) {
    put_error(err, e.what());
  } catch (...) {
    put_error(err, "unknown error in idforge");
  }
  return IDF_MASK_BAD_VALUE;
}

const MaskKeyring& ring() {
  if (!loaded.ring) throw Failure{IDF_MASK_NO_KEY, "no mask key loaded"};
  return *loaded.ring;
}

const MaskKey& key_of(int key_id) {
  const MaskKeyring& r = ring();
  if (key_id == IDF_MASK_PRIMARY) return r.primary();
  if (key_id < 0 || key_id > static_cast<int>(MaskKey::kMaxId))
    throw Failure{
        IDF_MASK_BAD_VALUE,
        fmt::format("key_id {} is outside 0..{} (-1: the primary key)", key_id, MaskKey::kMaxId)};
  return r.at(static_cast<unsigned>(key_id));
}

PublicAlphabet alphabet_of(const char* name) {
  return idforge::parse_public_alphabet(name);
}

Uuid uuid_of(const unsigned char b[16]) {
  Uuid::Bytes bytes;
  std::memcpy(bytes.data(), b, bytes.size());
  return Uuid(bytes);
}

// mode "auto": v7_as_v4 for a UUID of version auto_version and the RFC 9562 variant.
MaskMode uuid_mode(const char* mode, const Uuid& u, int auto_version) {
  const std::string_view m(mode);
  if (m == "auto")
    return u.version() == auto_version && u.variant() == idforge::UuidVariant::rfc9562
               ? MaskMode::v7_as_v4
               : MaskMode::u128;
  const MaskMode parsed = idforge::parse_mask_mode(m);
  if (parsed == MaskMode::u63)
    throw Failure{IDF_MASK_BAD_VALUE,
                  "mode u63 masks bigint values; a UUID takes mode auto, u128 or v7"};
  return parsed;
}

[[noreturn]] void fault(MaskFault f, const char* verb, const std::string& value) {
  throw Failure{IDF_MASK_BAD_VALUE, fmt::format("cannot {} {}: {}", verb, value, to_string(f))};
}

}  // namespace

extern "C" {

int idf_mask_load(const char* key_file, uint64_t generation, char* err) {
  const std::string file = key_file ? key_file : "";
  if (loaded.ring && loaded.generation == generation && loaded.key_file == file) return 0;
  return guarded(err, [&] {
    loaded.ring.reset();
    if (!file.empty()) {
      loaded.ring = std::make_unique<const MaskKeyring>(MaskKeyring::load_file(file));
    } else {
      const auto set = [](const char* name) {
        const char* v = std::getenv(name);
        return v && *v;
      };
      if (!set(idforge::kMaskKeyFileEnv) && !set(idforge::kMaskKeysEnv))
        throw Failure{IDF_MASK_NO_KEY,
                      fmt::format("no mask key: idforge.mask_key_file is empty and the server's "
                                  "environment sets neither {} nor {}",
                                  idforge::kMaskKeyFileEnv, idforge::kMaskKeysEnv)};
      loaded.ring = std::make_unique<const MaskKeyring>(MaskKeyring::from_environment());
    }
    loaded.key_file = file;
    loaded.generation = generation;
  });
}

int idf_mask_describe(char* out, size_t size, char* err) {
  return guarded(err, [&] {
    const std::string text = ring().source() + ": keys " + ring().ids_text();
    const std::size_t n = std::min(text.size(), size - 1);
    std::memcpy(out, text.data(), n);
    out[n] = '\0';
  });
}

int idf_mask_bigint_public(int64_t value, const char* alphabet, int key_id,
                           char out[IDF_PUBLIC_ID_SIZE], char* err) {
  return guarded(err, [&] {
    const PublicAlphabet a = alphabet_of(alphabet);
    const MaskKey& key = key_of(key_id);
    const MaskValue v{0, static_cast<std::uint64_t>(value)};
    if (const MaskFault f = idforge::write_public_id(key, MaskMode::u63, v, a, out);
        f != MaskFault::ok)
      fault(f, "mask", std::to_string(value));
    out[idforge::public_id_size(MaskMode::u63)] = '\0';
  });
}

int idf_mask_uuid_public(const unsigned char value[16], const char* mode, const char* alphabet,
                         int key_id, char out[IDF_PUBLIC_ID_SIZE], char* err) {
  return guarded(err, [&] {
    const Uuid u = uuid_of(value);
    const MaskMode m = uuid_mode(mode, u, 7);
    const PublicAlphabet a = alphabet_of(alphabet);
    const MaskKey& key = key_of(key_id);
    if (const MaskFault f = idforge::write_public_id(key, m, MaskValue::of(u), a, out);
        f != MaskFault::ok)
      fault(f, "mask", "UUID " + u.to_string());
    out[idforge::public_id_size(m)] = '\0';
  });
}

int idf_mask_bigint_raw(int64_t value, int key_id, int unmask, int64_t* out, char* err) {
  return guarded(err, [&] {
    const MaskKey& key = key_of(key_id);
    const MaskValue v{0, static_cast<std::uint64_t>(value)};
    MaskValue r;
    const MaskFault f = unmask ? key.unmask(MaskMode::u63, v, r) : key.mask(MaskMode::u63, v, r);
    if (f != MaskFault::ok) fault(f, unmask ? "unmask" : "mask", std::to_string(value));
    *out = static_cast<std::int64_t>(r.low);
  });
}

int idf_mask_uuid_raw(const unsigned char value[16], const char* mode, int key_id, int unmask,
                      unsigned char out[16], char* err) {
  return guarded(err, [&] {
    const Uuid u = uuid_of(value);
    const MaskMode m = uuid_mode(mode, u, unmask ? 4 : 7);
    const MaskKey& key = key_of(key_id);
    MaskValue r;
    const MaskFault f =
        unmask ? key.unmask(m, MaskValue::of(u), r) : key.mask(m, MaskValue::of(u), r);
    if (f != MaskFault::ok) fault(f, unmask ? "unmask" : "mask", "UUID " + u.to_string());
    std::memcpy(out, r.to_uuid().bytes().data(), 16);
  });
}

int idf_unmask_public(const char* text, size_t len, const char* alphabet, int want_uuid,
                      int64_t* out_bigint, unsigned char out_uuid[16], char* err) {
  return guarded(err, [&] {
    const std::string_view t(text, len);
    const PublicAlphabet a = alphabet_of(alphabet);
    const MaskKeyring& r = ring();
    idforge::PublicIdInfo info;
    const idforge::PublicIdStatus s = idforge::read_public_id(r, t, a, info);
    if (!s.ok()) {
      const int status = s.fault == MaskFault::unknown_key || s.fault == MaskFault::not_ours
                             ? IDF_MASK_NOT_OURS
                             : IDF_MASK_BAD_TEXT;
      throw Failure{status, idforge::public_id_message(s, t, a, r, info)};
    }
    const bool is_uuid = info.mode != MaskMode::u63;
    if (is_uuid != (want_uuid != 0))
      throw Failure{IDF_MASK_WRONG_KIND,
                    fmt::format("public ID '{}' is of mode {}: it stands for {}", t,
                                to_string(info.mode), is_uuid ? "a uuid" : "a bigint")};
    if (is_uuid)
      std::memcpy(out_uuid, info.value.to_uuid().bytes().data(), 16);
    else
      *out_bigint = static_cast<std::int64_t>(info.value.low);
  });
}

}  // extern "C"
