// idforge_mask(), idforge_unmask(), idforge_mask_keys(): public IDs from internal keys and
// back (docs/PUBLIC-IDS.md), with the keyring of the connection. The keyring is loaded by
// idforge_mask_keys(PATH), or at first use from the environment (IDFORGE_MASK_KEY_FILE, else
// IDFORGE_MASK_KEYS), never from an SQL argument: a key in SQL would sit in query logs and
// history. The rules and messages are the C ABI's (idforge.h: keyrings, the four mode names,
// the alphabets, masking and reading public IDs), as every other face uses them; this file
// reads SQLite's values into them.
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "functions.hpp"

namespace idforge::sqlite {

/// One connection's keyring. Per connection, as idforge_node(): two connections of one
/// process (an application and a tool, two tenants) may hold different keys, and nothing
/// global is there to race on. The mutex guards the pointer only; a keyring is immutable,
/// so a call masks with its own reference outside the lock.
struct MaskState {
  std::mutex mutex;
  std::shared_ptr<const idforge_mask_keyring> ring;
};

namespace {

using MaskStateRef = std::shared_ptr<MaskState>;
using Ring = std::shared_ptr<const idforge_mask_keyring>;

MaskState& state_of(sqlite3_context* ctx) {
  return **static_cast<MaskStateRef*>(sqlite3_user_data(ctx));
}

// A keyring a C ABI call made, owned (freed, its keys wiped, with the last reference).
Ring owned(idforge_mask_keyring* ring) {
  return Ring(ring, [](const idforge_mask_keyring* r) {
    idforge_mask_keyring_free(const_cast<idforge_mask_keyring*>(r));
  });
}

// The connection's keyring, loading it from the environment at first use.
Ring keyring(sqlite3_context* ctx) {
  MaskState& s = state_of(ctx);
  std::lock_guard lock(s.mutex);
  if (!s.ring) {
    const auto set = [](const char* name) {
      const char* v = std::getenv(name);
      return v && *v;
    };
    if (!set("IDFORGE_MASK_KEY_FILE") && !set("IDFORGE_MASK_KEYS"))
      throw CallError(IDFORGE_E_KEY_ERROR,
                      "no mask key: run idforge_mask_keys('PATH') with a keyring file, or set "
                      "IDFORGE_MASK_KEY_FILE to a keyring file or IDFORGE_MASK_KEYS to ID:SECRET "
                      "entries in the process's environment (make a key with "
                      "`idforge mask --new-key ID`)");
    idforge_mask_keyring* made = nullptr;
    ok(idforge_mask_keyring_from_environment(&made));
    s.ring = owned(made);
  }
  return s.ring;
}

// An optional text argument (absent: the default). NULL is an error, as for every function
// of the extension: an option that silently became NULL would hide the bug that lost it.
std::optional<std::string_view> option(int argc, sqlite3_value** argv, int i, const char* rule) {
  if (i >= argc) return std::nullopt;
  return text_arg(argv[i], rule);
}

idforge_mask_mode mode_arg(int argc, sqlite3_value** argv) {
  const auto m = option(argc, argv, 1, "mode must be text: auto, u63, u128 or v7");
  idforge_mask_mode mode = IDFORGE_MASK_AUTO;
  if (m) ok(idforge_mask_mode_parse(m->data(), m->size(), 1, &mode));
  return mode;
}

bool raw_arg(int argc, sqlite3_value** argv) {
  const auto f = option(argc, argv, 2, "form must be text: public or raw");
  if (!f || *f == "public") return false;
  if (*f == "raw") return true;
  throw ArgumentError("form '" + shown(*f) + "' is neither public nor raw");
}

idforge_public_alphabet alphabet_arg(int argc, sqlite3_value** argv) {
  const auto a = option(argc, argv, 3, "alphabet must be text: base58 or base62");
  idforge_public_alphabet alphabet = IDFORGE_BASE58;
  if (a) ok(idforge_public_alphabet_parse(a->data(), a->size(), &alphabet));
  return alphabet;
}

// The key of the fifth argument (0..57), or IDFORGE_MASK_KEY_PRIMARY when absent.
int key_id_arg(int argc, sqlite3_value** argv) {
  if (argc < 5) return IDFORGE_MASK_KEY_PRIMARY;
  const sqlite3_int64 id = sqlite3_value_int64(argv[4]);
  if (sqlite3_value_type(argv[4]) != SQLITE_INTEGER || id < 0 || id > 57)
    throw ArgumentError("key_id must be an integer 0..57, got " + describe(argv[4]));
  return static_cast<int>(id);
}

constexpr const char* kValueRule =
    "the value must be an integer 1..2^63-1, a 16-byte blob (a UUID's bytes) or text (decimal "
    "digits or a UUID)";

// A value of SQLite, read for masking: an integer (u63), or a UUID from a 16-byte blob or
// text, which comes back in the shape it came.
enum class Shape { integer, blob, text };
struct Value {
  Shape shape = Shape::integer;
  std::uint64_t integer = 0;
  idforge_uuid uuid{};
};

std::string value_shown(sqlite3_value* v) {
  return sqlite3_value_type(v) == SQLITE_TEXT ? "text '" + shown(text_arg(v, "")) + "'"
                                              : describe(v);
}

Value read_value(sqlite3_value* v, idforge_mask_mode mode, const char* verb) {
  Value out;
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: {
      const sqlite3_int64 i = sqlite3_value_int64(v);
      // SQLite's INTEGER is signed; the library's u63 domain is 1..2^63-1.
      if (i < 1)
        throw CallError(IDFORGE_E_INVALID_ARGUMENT, (std::string("cannot ") + verb + " " +
                                                     describe(v) + ": value outside 1..2^63-1")
                                                        .c_str());
      out.integer = static_cast<std::uint64_t>(i);
      break;
    }
    case SQLITE_BLOB:
      if (sqlite3_value_bytes(v) != 16)
        throw ArgumentError(std::string(kValueRule) + ", got " + describe(v));
      out.shape = Shape::blob;
      std::memcpy(out.uuid.bytes, sqlite3_value_blob(v), 16);
      break;
    case SQLITE_TEXT: {
      const std::string_view t = text_arg(v, kValueRule);
      std::uint64_t n = 0;
      const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
      if (!t.empty() && ec == std::errc{} && end == t.data() + t.size()) {
        if (n < 1 || n > static_cast<std::uint64_t>(INT64_MAX))
          throw CallError(IDFORGE_E_INVALID_ARGUMENT, (std::string("cannot ") + verb + " " +
                                                       value_shown(v) + ": value outside 1..2^63-1")
                                                          .c_str());
        out.integer = n;
        break;
      }
      if (idforge_uuid_parse(t.data(), t.size(), &out.uuid) != IDFORGE_OK)
        throw ArgumentError(std::string(kValueRule) + ", got " + value_shown(v));
      out.shape = Shape::text;
      break;
    }
    default:
      throw ArgumentError(std::string(kValueRule) + ", got " + describe(v));
  }
  if (out.shape == Shape::integer && mode != IDFORGE_MASK_AUTO && mode != IDFORGE_MASK_U63)
    throw ArgumentError(std::string("mode ") + idforge_mask_mode_name(mode) +
                        " takes a UUID (a 16-byte blob or text), got " + value_shown(v));
  if (out.shape != Shape::integer && mode == IDFORGE_MASK_U63)
    throw ArgumentError("mode u63 takes an integer 1..2^63-1, got " + value_shown(v));
  return out;
}

void result_uuid(sqlite3_context* ctx, const idforge_uuid& u, Shape shape) {
  if (shape == Shape::blob) {
    sqlite3_result_blob(ctx, u.bytes, 16, SQLITE_TRANSIENT);
    return;
  }
  char text[IDFORGE_UUID_TEXT_SIZE];
  ok(idforge_uuid_format(&u, text, sizeof text));
  sqlite3_result_text(ctx, text, IDFORGE_UUID_TEXT_SIZE - 1, SQLITE_TRANSIENT);
}

}  // namespace

void* new_mask_state() {
  return new MaskStateRef(std::make_shared<MaskState>());
}

void* new_mask_state_ref(void* shared_state) {
  return new MaskStateRef(*static_cast<MaskStateRef*>(shared_state));
}

void free_mask_state_ref(void* ref) noexcept {
  delete static_cast<MaskStateRef*>(ref);
}

void mask_keys(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept {
  guard(ctx, "idforge_mask_keys", [&] {
    Ring ring;
    if (argc == 1) {
      const std::string_view path =
          text_arg(argv[0], "the argument must be the path of a keyring file (text)");
      if (path.find('\0') != std::string_view::npos)
        throw ArgumentError("the path '" + shown(path) + "' holds a NUL byte");
      // Loaded before it replaces anything: a failed load leaves the keyring as it was.
      idforge_mask_keyring* made = nullptr;
      ok(idforge_mask_keyring_from_file(std::string(path).c_str(), &made));
      ring = owned(made);
      MaskState& s = state_of(ctx);
      std::lock_guard lock(s.mutex);
      s.ring = ring;
    } else {
      ring = keyring(ctx);
    }
    // Where the keys came from and their IDs: never a secret.
    std::size_t needed = 0;
    char text[512];
    ok(idforge_mask_keyring_describe(ring.get(), text, sizeof text, &needed));
    sqlite3_result_text(ctx, text, static_cast<int>(needed - 1), SQLITE_TRANSIENT);
  });
}

void mask(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept {
  guard(ctx, "idforge_mask", [&] {
    const idforge_mask_mode mode = mode_arg(argc, argv);
    const bool raw = raw_arg(argc, argv);
    const idforge_public_alphabet alphabet = alphabet_arg(argc, argv);
    const int key_id = key_id_arg(argc, argv);
    const Value in = read_value(argv[0], mode, "mask");
    const Ring ring = keyring(ctx);
    if (in.shape == Shape::integer) {
      if (raw) {
        std::uint64_t out = 0;
        ok(idforge_mask_u63(ring.get(), key_id, in.integer, &out));
        return sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(out));
      }
      char text[IDFORGE_PUBLIC_ID_TEXT_SIZE];
      ok(idforge_mask_public_u63(ring.get(), key_id, in.integer, alphabet, text, sizeof text));
      return sqlite3_result_text(ctx, text, -1, SQLITE_TRANSIENT);
    }
    if (raw) {
      idforge_uuid out{};
      ok(idforge_mask_uuid(ring.get(), key_id, mode, &in.uuid, &out));
      return result_uuid(ctx, out, in.shape);
    }
    char text[IDFORGE_PUBLIC_ID_TEXT_SIZE];
    ok(idforge_mask_public_uuid(ring.get(), key_id, mode, &in.uuid, alphabet, text, sizeof text));
    sqlite3_result_text(ctx, text, -1, SQLITE_TRANSIENT);
  });
}

void unmask(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept {
  guard(ctx, "idforge_unmask", [&] {
    const idforge_mask_mode mode = mode_arg(argc, argv);
    const bool raw = raw_arg(argc, argv);
    const idforge_public_alphabet alphabet = alphabet_arg(argc, argv);
    const int key_id = key_id_arg(argc, argv);
    // Text that is no UUID is a public ID unless form is raw (a public ID may be all digits);
    // anything else is a raw value.
    bool is_public = false;
    if (!raw && sqlite3_value_type(argv[0]) == SQLITE_TEXT) {
      const std::string_view t = text_arg(argv[0], kValueRule);
      idforge_uuid u{};
      is_public = idforge_uuid_parse(t.data(), t.size(), &u) != IDFORGE_OK;
    }
    if (!is_public) {
      const Value in = read_value(argv[0], mode, "unmask");
      const Ring ring = keyring(ctx);
      if (in.shape == Shape::integer) {
        std::uint64_t out = 0;
        ok(idforge_unmask_u63(ring.get(), key_id, in.integer, &out));
        return sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(out));
      }
      idforge_uuid out{};
      ok(idforge_unmask_uuid(ring.get(), key_id, mode, &in.uuid, &out));
      return result_uuid(ctx, out, in.shape);
    }
    const std::string_view text = text_arg(argv[0], kValueRule);
    const Ring ring = keyring(ctx);
    idforge_public_id id{};
    ok(idforge_unmask_public(ring.get(), text.data(), text.size(), alphabet, mode, key_id, &id));
    if (id.mode == IDFORGE_MASK_U63)
      return sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(id.value));
    result_uuid(ctx, id.uuid, Shape::text);
  });
}

}  // namespace idforge::sqlite
