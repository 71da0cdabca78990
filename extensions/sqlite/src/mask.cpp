// idforge_mask(), idforge_unmask(), idforge_mask_keys(): public IDs from internal keys and
// back (docs/PUBLIC-IDS.md), with the keyring of the connection. The keyring is loaded by
// idforge_mask_keys(PATH), or at first use from the environment (IDFORGE_MASK_KEY_FILE, else
// IDFORGE_MASK_KEYS), never from an SQL argument: a key in SQL would sit in query logs and
// history. The rules and messages are core's (idforge/mask.hpp, idforge/public_id.hpp), as
// `idforge mask` / `idforge unmask` use them.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "functions.hpp"
#include "idforge/error.hpp"
#include "idforge/mask_keyring.hpp"
#include "idforge/public_id.hpp"
#include "idforge/uuid.hpp"

namespace idforge::sqlite {

/// One connection's keyring. Per connection, as idforge_node(): two connections of one
/// process (an application and a tool, two tenants) may hold different keys, and nothing
/// global is there to race on. The mutex guards the pointer only; a keyring is immutable,
/// so a call masks with its own reference outside the lock.
struct MaskState {
  std::mutex mutex;
  std::shared_ptr<const MaskKeyring> ring;
};

namespace {

using MaskStateRef = std::shared_ptr<MaskState>;

MaskState& state_of(sqlite3_context* ctx) {
  return **static_cast<MaskStateRef*>(sqlite3_user_data(ctx));
}

// The connection's keyring, loading it from the environment at first use.
std::shared_ptr<const MaskKeyring> keyring(sqlite3_context* ctx) {
  MaskState& s = state_of(ctx);
  std::lock_guard lock(s.mutex);
  if (!s.ring) {
    const auto set = [](const char* name) {
      const char* v = std::getenv(name);
      return v && *v;
    };
    if (!set(kMaskKeyFileEnv) && !set(kMaskKeysEnv))
      throw Error(errc::key_error,
                  std::string("no mask key: run idforge_mask_keys('PATH') with a keyring file, "
                              "or set ") +
                      kMaskKeyFileEnv + " to a keyring file or " + kMaskKeysEnv +
                      " to ID:SECRET entries in the process's environment (make a key with "
                      "`idforge mask --new-key ID`)");
    s.ring = std::make_shared<const MaskKeyring>(MaskKeyring::from_environment());
  }
  return s.ring;
}

// An optional text argument (absent: the default). NULL is an error, as for every function
// of the extension: an option that silently became NULL would hide the bug that lost it.
std::optional<std::string_view> option(int argc, sqlite3_value** argv, int i, const char* rule) {
  if (i >= argc) return std::nullopt;
  return text_arg(argv[i], rule);
}

std::optional<MaskMode> mode_arg(int argc, sqlite3_value** argv) {
  const auto m = option(argc, argv, 1, "mode must be text: auto, u63, u128 or v7");
  if (!m || *m == "auto") return std::nullopt;
  return parse_mask_mode(*m);
}

bool raw_arg(int argc, sqlite3_value** argv) {
  const auto f = option(argc, argv, 2, "form must be text: public or raw");
  if (!f || *f == "public") return false;
  if (*f == "raw") return true;
  throw ArgumentError("form '" + shown(*f) + "' is neither public nor raw");
}

PublicAlphabet alphabet_arg(int argc, sqlite3_value** argv) {
  const auto a = option(argc, argv, 3, "alphabet must be text: base58 or base62");
  return a ? parse_public_alphabet(*a) : PublicAlphabet::base58;
}

// The key of the fifth argument (0..57), or -1 when absent.
int key_id_arg(int argc, sqlite3_value** argv) {
  if (argc < 5) return -1;
  const sqlite3_int64 id = sqlite3_value_int64(argv[4]);
  if (sqlite3_value_type(argv[4]) != SQLITE_INTEGER || id < 0 || id > MaskKey::kMaxId)
    throw ArgumentError("key_id must be an integer 0..57, got " + describe(argv[4]));
  return static_cast<int>(id);
}

const MaskKey& chosen_key(const MaskKeyring& ring, int key_id) {
  return key_id < 0 ? ring.primary() : ring.at(static_cast<unsigned>(key_id));
}

// A UUID value: the mode a 16-byte blob or UUID text stands in (auto: by its shape, as
// parse_mask_input / parse_masked_input read text), refusing u63.
MaskMode uuid_mode(const Uuid& u, std::optional<MaskMode> mode, int auto_version,
                   const std::string& shown_value) {
  if (mode == MaskMode::u63)
    throw ArgumentError("mode u63 takes an integer 1..2^63-1, got " + shown_value);
  if (mode) return *mode;
  return u.version() == auto_version && u.variant() == UuidVariant::rfc9562 ? MaskMode::v7_as_v4
                                                                            : MaskMode::u128;
}

constexpr const char* kValueRule =
    "the value must be an integer 1..2^63-1, a 16-byte blob (a UUID's bytes) or text (decimal "
    "digits or a UUID)";

Uuid uuid_of(sqlite3_value* v) {
  Uuid::Bytes b;
  std::memcpy(b.data(), sqlite3_value_blob(v), b.size());
  return Uuid(b);
}

// How the result of a UUID mode goes back: as the input came (blob or text).
enum class Shape { integer, blob, text };

void result(sqlite3_context* ctx, MaskMode mode, MaskValue v, Shape shape) {
  if (mode == MaskMode::u63) {
    sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(v.low));
  } else if (shape == Shape::blob) {
    sqlite3_result_blob(ctx, v.to_uuid().bytes().data(), 16, SQLITE_TRANSIENT);
  } else {
    char text[Uuid::kTextSize];
    v.to_uuid().to_chars(text);
    sqlite3_result_text(ctx, text, sizeof text, SQLITE_TRANSIENT);
  }
}

// Reads the value of idforge_mask() (internal) or idforge_unmask()'s raw form (masked).
MaskInput read_value(sqlite3_value* v, std::optional<MaskMode> mode, bool masked, Shape& shape) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER:
      if (mode && *mode != MaskMode::u63)
        throw ArgumentError(std::string("mode ") + to_string(*mode) +
                            " takes a UUID (a 16-byte blob or text), got " + describe(v));
      shape = Shape::integer;
      return {MaskMode::u63, {0, static_cast<std::uint64_t>(sqlite3_value_int64(v))}};
    case SQLITE_BLOB:
      if (sqlite3_value_bytes(v) == 16) {
        const Uuid u = uuid_of(v);
        shape = Shape::blob;
        return {uuid_mode(u, mode, masked ? 4 : 7, describe(v)), MaskValue::of(u)};
      }
      break;
    case SQLITE_TEXT: {
      const std::string_view t = text_arg(v, kValueRule);
      const MaskInput in = masked ? parse_masked_input(t, mode) : parse_mask_input(t, mode);
      shape = in.mode == MaskMode::u63 ? Shape::integer : Shape::text;
      return in;
    }
    default:
      break;
  }
  throw ArgumentError(std::string(kValueRule) + ", got " + describe(v));
}

std::string value_shown(sqlite3_value* v) {
  return sqlite3_value_type(v) == SQLITE_TEXT ? "text '" + shown(text_arg(v, "")) + "'"
                                              : describe(v);
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
    std::shared_ptr<const MaskKeyring> ring;
    if (argc == 1) {
      const std::string_view path =
          text_arg(argv[0], "the argument must be the path of a keyring file (text)");
      if (path.find('\0') != std::string_view::npos)
        throw ArgumentError("the path '" + shown(path) + "' holds a NUL byte");
      // Loaded before it replaces anything: a failed load leaves the keyring as it was.
      ring = std::make_shared<const MaskKeyring>(MaskKeyring::load_file(std::string(path)));
      MaskState& s = state_of(ctx);
      std::lock_guard lock(s.mutex);
      s.ring = ring;
    } else {
      ring = keyring(ctx);
    }
    // Where the keys came from and their IDs: never a secret.
    const std::string text = ring->source() + ": keys " + ring->ids_text();
    sqlite3_result_text(ctx, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  });
}

void mask(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept {
  guard(ctx, "idforge_mask", [&] {
    const std::optional<MaskMode> mode = mode_arg(argc, argv);
    const bool raw = raw_arg(argc, argv);
    const PublicAlphabet alphabet = alphabet_arg(argc, argv);
    const int key_id = key_id_arg(argc, argv);
    Shape shape;
    const MaskInput in = read_value(argv[0], mode, false, shape);
    const auto ring = keyring(ctx);
    const MaskKey& key = chosen_key(*ring, key_id);
    if (raw) {
      MaskValue out;
      if (const MaskFault f = key.mask(in.mode, in.value, out); f != MaskFault::ok)
        throw Error(to_errc(f), "cannot mask " + value_shown(argv[0]) + ": " + to_string(f));
      return result(ctx, in.mode, out, shape);
    }
    char text[kMaxPublicIdSize];
    if (const MaskFault f = write_public_id(key, in.mode, in.value, alphabet, text);
        f != MaskFault::ok)
      throw Error(to_errc(f), "cannot mask " + value_shown(argv[0]) + ": " + to_string(f));
    sqlite3_result_text(ctx, text, static_cast<int>(public_id_size(in.mode)), SQLITE_TRANSIENT);
  });
}

void unmask(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept {
  guard(ctx, "idforge_unmask", [&] {
    const std::optional<MaskMode> mode = mode_arg(argc, argv);
    const bool raw = raw_arg(argc, argv);
    const PublicAlphabet alphabet = alphabet_arg(argc, argv);
    const int key_id = key_id_arg(argc, argv);
    // Text that is no UUID is a public ID unless form is raw; anything else is a raw value.
    const bool is_public = !raw && sqlite3_value_type(argv[0]) == SQLITE_TEXT &&
                           !Uuid::try_parse(text_arg(argv[0], kValueRule));
    if (!is_public) {
      Shape shape;
      const MaskInput in = read_value(argv[0], mode, true, shape);
      const auto ring = keyring(ctx);
      MaskValue out;
      if (const MaskFault f = chosen_key(*ring, key_id).unmask(in.mode, in.value, out);
          f != MaskFault::ok)
        throw Error(to_errc(f), "cannot unmask " + value_shown(argv[0]) + ": " + to_string(f));
      return result(ctx, in.mode, out, shape);
    }
    const std::string_view text = text_arg(argv[0], kValueRule);
    const auto ring = keyring(ctx);
    PublicIdInfo info;
    const PublicIdStatus status = read_public_id(*ring, text, alphabet, info);
    if (!status.ok())
      throw Error(to_errc(status.fault), public_id_message(status, text, alphabet, *ring, info));
    if (mode && *mode != info.mode)
      throw ArgumentError("public ID '" + shown(text) + "' is of mode " + to_string(info.mode) +
                          ", not " + to_string(*mode));
    if (key_id >= 0 && static_cast<unsigned>(key_id) != info.key_id)
      throw Error(errc::key_error, "public ID '" + shown(text) + "' was made with mask key " +
                                       std::to_string(info.key_id) + ", not " +
                                       std::to_string(key_id));
    result(ctx, info.mode, info.value, Shape::text);
  });
}

}  // namespace idforge::sqlite
