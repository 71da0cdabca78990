// idforge.node: the Node.js face of the C ABI (idforge.h), through node-addon-api. Every
// call goes through libidforge.so; this file only turns C values into JavaScript ones and
// statuses into Error objects.
//
// Worker threads: the addon keeps no state of its own between calls (the module is
// context-aware, each worker's environment gets its own exports), and the library behind it
// is thread-safe: uuid7()/ulid() in any worker take the next value of one process-wide
// generator, so they never repeat across workers.
#include <napi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "idforge/idforge.h"

namespace {

// The longest piece of a caller's input this file echoes in a message: a 1 MB argument
// must not make a 1 MB error.
constexpr std::size_t kEchoLimit = 64;

// text for a message: NUL bytes shown as \0 (a C string would end there), cut to kEchoLimit
// characters with an ellipsis.
std::string shown(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < kEchoLimit; ++i) {
    if (text[i] == '\0')
      out += "\\0";
    else
      out += text[i];
  }
  if (text.size() > kEchoLimit) out += "...";
  return out;
}

enum class Kind { Type, Range, Plain };

// A JavaScript Error with message, .code ("IDFORGE_NODE_OUT_OF_RANGE", ...) and .status
// ("node_out_of_range"). Rule-breaking values are RangeErrors, wrong types TypeErrors, as
// Node's own APIs make them.
void throw_error(Napi::Env env, idforge_status s, const std::string& message, Kind kind) {
  const std::string name = idforge_status_name(s);
  std::string code = "IDFORGE_";
  for (char c : name) code += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  Napi::Error e = kind == Kind::Type    ? Napi::TypeError::New(env, message)
                  : kind == Kind::Range ? Napi::RangeError::New(env, message)
                                        : Napi::Error::New(env, message);
  if (e.IsEmpty()) return;  // the environment is shutting down: nothing can be thrown
  e.Set("code", Napi::String::New(env, code));
  e.Set("status", Napi::String::New(env, name));
  e.ThrowAsJavaScriptException();
}

// A failed library call: its message (the CLI's words); a value that breaks a rule (a
// malformed ID or layout, a node out of range, a bad argument) is a RangeError.
bool ok(Napi::Env env, idforge_status s) {
  if (s == IDFORGE_OK) return true;
  const bool range = s == IDFORGE_E_NODE_OUT_OF_RANGE || s == IDFORGE_E_INVALID_ARGUMENT ||
                     s == IDFORGE_E_INVALID_LAYOUT || s == IDFORGE_E_EPOCH_IN_FUTURE ||
                     s == IDFORGE_E_PARSE_ERROR;
  throw_error(env, s, idforge_last_error(), range ? Kind::Range : Kind::Plain);
  return false;
}

void type_error(Napi::Env env, const std::string& message) {
  throw_error(env, IDFORGE_E_INVALID_ARGUMENT, message, Kind::Type);
}

void range_error(Napi::Env env, const std::string& message) {
  throw_error(env, IDFORGE_E_INVALID_ARGUMENT, message, Kind::Range);
}

// A string argument into out: a TypeError for another type or for a NUL byte (the C ABI
// takes C strings, which would silently end at it). False with an exception pending.
bool string_arg(Napi::Env env, const Napi::Value& v, const char* what, std::string& out) {
  if (v.IsEmpty() || !v.IsString()) {
    if (!env.IsExceptionPending()) type_error(env, std::string(what) + " must be a string");
    return false;
  }
  out = v.As<Napi::String>().Utf8Value();
  if (env.IsExceptionPending()) return false;
  if (out.find('\0') != std::string::npos) {
    type_error(env, std::string(what) + " '" + shown(out) + "' contains a NUL byte: " + what +
                        " must not contain one");
    return false;
  }
  return true;
}

// The optional layout argument at index i: absent (undefined) means the default; anything
// but a string is a TypeError. False with an exception pending.
bool layout_arg(const Napi::CallbackInfo& info, std::size_t i, std::string& out, bool& given) {
  given = info.Length() > i && !info[i].IsUndefined();
  return !given || string_arg(info.Env(), info[i], "layout", out);
}

// uuid7() and ulid() are plain N-API functions: node-addon-api's wrapper costs more than the ID.
napi_value Uuid7(napi_env env, napi_callback_info) {
  idforge_uuid u;
  char text[IDFORGE_UUID_TEXT_SIZE];
  if (!ok(env, idforge_make_uuid7(&u)) || !ok(env, idforge_uuid_format(&u, text, sizeof text)))
    return nullptr;
  napi_value v;
  napi_create_string_latin1(env, text, 36, &v);
  return v;
}

napi_value Ulid(napi_env env, napi_callback_info) {
  idforge_ulid u;
  char text[IDFORGE_ULID_TEXT_SIZE];
  if (!ok(env, idforge_make_ulid(&u)) || !ok(env, idforge_ulid_format(&u, text, sizeof text)))
    return nullptr;
  napi_value v;
  napi_create_string_latin1(env, text, 26, &v);
  return v;
}

// count version 4 UUIDs as one string of count * 36 characters: index.js serves uuid4()
// from it, one native call per 128 UUIDs, as crypto.randomUUID() caches its entropy.
Napi::Value Uuid4Block(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) {
    type_error(env, "uuid4Block(count): count must be a number");
    return env.Undefined();
  }
  const double d = info[0].As<Napi::Number>().DoubleValue();
  if (!(d >= 1 && d <= 4096) || d != static_cast<double>(static_cast<std::uint32_t>(d))) {
    range_error(env, "uuid4 block of " + info[0].ToString().Utf8Value() +
                         ": count must be an integer in 1..4096");
    return env.Undefined();
  }
  const auto count = static_cast<std::uint32_t>(d);
  std::string text(static_cast<std::size_t>(count) * 36, '\0');
  char one[IDFORGE_UUID_TEXT_SIZE];
  for (std::uint32_t i = 0; i < count; ++i) {
    idforge_uuid u;
    if (!ok(env, idforge_make_uuid4(&u)) || !ok(env, idforge_uuid_format(&u, one, sizeof one)))
      return env.Undefined();
    text.replace(static_cast<std::size_t>(i) * 36, 36, one, 36);
  }
  return Napi::String::New(env, text);
}

Napi::Value InspectJson(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) {
    type_error(env, "inspectJson(text): text must be a string");
    return env.Undefined();
  }
  const std::string text = info[0].As<Napi::String>().Utf8Value();
  if (env.IsExceptionPending()) return env.Undefined();
  std::string layout;
  bool has_layout = false;
  if (!layout_arg(info, 1, layout, has_layout)) return env.Undefined();
  if (text.find('\0') != std::string::npos) {
    // The library's message would echo the text as a C string, cut at the NUL.
    throw_error(env, IDFORGE_E_PARSE_ERROR,
                "inspect '" + shown(text) + "': an ID contains no NUL byte", Kind::Range);
    return env.Undefined();
  }
  std::string out(1024, '\0');
  std::size_t needed = 0;
  idforge_status s =
      idforge_inspect_json(text.data(), text.size(), has_layout ? layout.c_str() : nullptr,
                           out.data(), out.size(), &needed);
  if (s == IDFORGE_E_BUFFER_TOO_SMALL) {
    out.resize(needed);
    s = idforge_inspect_json(text.data(), text.size(), has_layout ? layout.c_str() : nullptr,
                             out.data(), out.size(), &needed);
  }
  if (!ok(env, s)) return env.Undefined();
  return Napi::String::New(env, out.data(), needed - 1);
}

Napi::Value Decompose(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsBigInt()) {
    type_error(env, "decompose(id): id must be a bigint");
    return env.Undefined();
  }
  bool lossless = false;
  const std::uint64_t id = info[0].As<Napi::BigInt>().Uint64Value(&lossless);
  if (env.IsExceptionPending()) return env.Undefined();
  if (!lossless) {
    range_error(env, "decompose " + shown(info[0].ToString().Utf8Value()) +
                         ": the ID must be a bigint in 0..2^64-1");
    return env.Undefined();
  }
  std::string layout;
  bool has_layout = false;
  if (!layout_arg(info, 1, layout, has_layout)) return env.Undefined();
  idforge_snowflake_parts p;
  if (!ok(env, idforge_snowflake_decompose(has_layout ? layout.c_str() : nullptr, id, &p)))
    return env.Undefined();
  Napi::Object o = Napi::Object::New(env);
  o.Set("tick", Napi::BigInt::New(env, p.tick));
  o.Set("unixMs", Napi::Number::New(env, static_cast<double>(p.unix_ms)));
  o.Set("datacenter", Napi::Number::New(env, static_cast<double>(p.datacenter)));
  o.Set("worker", Napi::Number::New(env, static_cast<double>(p.worker)));
  o.Set("node", Napi::Number::New(env, static_cast<double>(p.node)));
  o.Set("sequence", Napi::Number::New(env, static_cast<double>(p.sequence)));
  return o;
}

// ---- Snowflake ---------------------------------------------------------------------------
// The handle lives in an External that index.js's Snowflake class keeps in a private field;
// the hot calls are plain N-API functions taking it. An ObjectWrap method costs about 150 ns
// of dispatch per call here (measured), three times the whole ID; a function call is 40 ns.

struct Box {
  idforge_snowflake* handle = nullptr;  // nullptr once closed
};

void free_box(napi_env, void* data, void*) {
  auto* box = static_cast<Box*>(data);
  idforge_snowflake_free(box->handle);  // a leased handle gives its node ID back
  delete box;
}

// Every call on a closed Snowflake throws this Error, code 'IDFORGE_CLOSED'.
void throw_closed(Napi::Env env) {
  Napi::Error e = Napi::Error::New(env, "Snowflake is closed");
  if (e.IsEmpty()) return;
  e.Set("code", Napi::String::New(env, "IDFORGE_CLOSED"));
  e.Set("status", Napi::String::New(env, "closed"));
  e.ThrowAsJavaScriptException();
}

// The open handle in argument 0, or nullptr with a JavaScript exception pending.
idforge_snowflake* handle_arg(napi_env env, napi_callback_info info) {
  std::size_t argc = 1;
  napi_value arg;
  void* data = nullptr;
  napi_valuetype type;
  if (napi_get_cb_info(env, info, &argc, &arg, nullptr, nullptr) != napi_ok || argc < 1 ||
      napi_typeof(env, arg, &type) != napi_ok || type != napi_external ||
      napi_get_value_external(env, arg, &data) != napi_ok) {
    napi_throw_type_error(env, nullptr, "not a Snowflake handle");
    return nullptr;
  }
  auto* box = static_cast<Box*>(data);
  if (!box->handle) throw_closed(env);
  return box->handle;
}

Box* box_arg(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsExternal()) {
    Napi::TypeError::New(info.Env(), "not a Snowflake handle").ThrowAsJavaScriptException();
    return nullptr;
  }
  return info[0].As<Napi::External<Box>>().Data();
}

idforge_snowflake* open_arg(const Napi::CallbackInfo& info) {
  Box* box = box_arg(info);
  if (!box) return nullptr;
  if (!box->handle) throw_closed(info.Env());
  return box->handle;
}

// sfNew({layout?, node?, leaseStore?}) -> handle. Leasing blocks this thread (bounded by the
// store's timeout and the start-up wait).
Napi::Value SfNew(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject()) {
    type_error(env, "new Snowflake: options must be an object {layout, node | leaseStore}");
    return env.Undefined();
  }
  Napi::Object o = info[0].As<Napi::Object>();
  std::string layout = "twitter", store;
  std::int64_t node = IDFORGE_NODE_ANY;
  // Each Get runs the caller's code (a getter, a Proxy trap), which may throw.
  const Napi::Value l = o.Get("layout");
  if (env.IsExceptionPending()) return env.Undefined();
  const Napi::Value n = o.Get("node");
  if (env.IsExceptionPending()) return env.Undefined();
  const Napi::Value s = o.Get("leaseStore");
  if (env.IsExceptionPending()) return env.Undefined();
  if (l.IsEmpty() || n.IsEmpty() || s.IsEmpty()) return env.Undefined();
  if (!l.IsUndefined() && !string_arg(env, l, "layout", layout)) return env.Undefined();
  if (!n.IsUndefined()) {
    if (!n.IsNumber()) {
      type_error(env, "new Snowflake: node must be a number");
      return env.Undefined();
    }
    const double d = n.As<Napi::Number>().DoubleValue();
    if (!(d >= 0) || d > 9007199254740991.0 ||
        d != static_cast<double>(static_cast<std::int64_t>(d))) {
      throw_error(env, IDFORGE_E_NODE_OUT_OF_RANGE,
                  "node " + n.ToString().Utf8Value() +
                      ": a node ID is an integer from 0 to 2^53 - 1 (a safe integer)",
                  Kind::Range);
      return env.Undefined();
    }
    node = static_cast<std::int64_t>(d);
  }
  if (!s.IsUndefined() && !string_arg(env, s, "leaseStore", store)) return env.Undefined();
  idforge_snowflake* h = nullptr;
  if (!ok(env, idforge_snowflake_new(layout.c_str(), node,
                                     s.IsUndefined() ? nullptr : store.c_str(), &h)))
    return env.Undefined();
  napi_value ext;
  auto* box = new Box{h};
  if (napi_create_external(env, box, free_box, nullptr, &ext) != napi_ok) {
    free_box(env, box, nullptr);
    Napi::Error::New(env, "new Snowflake: cannot make its handle").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return Napi::Value(env, ext);
}

napi_value SfNext(napi_env env, napi_callback_info info) {
  idforge_snowflake* h = handle_arg(env, info);
  if (!h) return nullptr;
  std::uint64_t id;
  if (!ok(env, idforge_snowflake_next(h, &id))) return nullptr;
  napi_value v;
  napi_create_bigint_uint64(env, id, &v);
  return v;
}

napi_value SfNextString(napi_env env, napi_callback_info info) {
  idforge_snowflake* h = handle_arg(env, info);
  if (!h) return nullptr;
  std::uint64_t id;
  if (!ok(env, idforge_snowflake_next(h, &id))) return nullptr;
  char text[24];
  char* p = text + sizeof text;
  do {
    *--p = static_cast<char>('0' + id % 10);
    id /= 10;
  } while (id);
  napi_value v;
  napi_create_string_latin1(env, p, static_cast<std::size_t>(text + sizeof text - p), &v);
  return v;
}

// sfNextBatch(handle, n) -> BigUint64Array of n consecutive IDs.
Napi::Value SfNextBatch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  idforge_snowflake* h = open_arg(info);
  if (!h) return env.Undefined();
  if (info.Length() < 2 || !info[1].IsNumber()) {
    type_error(env, "nextBatch(n): n must be a number");
    return env.Undefined();
  }
  const double d = info[1].As<Napi::Number>().DoubleValue();
  if (!(d >= 0 && d <= 67108864) || d != static_cast<double>(static_cast<std::int64_t>(d))) {
    range_error(env, "nextBatch(" + info[1].ToString().Utf8Value() +
                         "): n must be an integer in 0..67108864");
    return env.Undefined();
  }
  const auto n = static_cast<std::size_t>(d);
  // Fails while the environment is terminating (worker.terminate(), process.exit()).
  Napi::ArrayBuffer buf = Napi::ArrayBuffer::New(env, n * sizeof(std::uint64_t));
  if (buf.IsEmpty() || env.IsExceptionPending()) return env.Undefined();
  std::size_t written = 0;
  if (!ok(env,
          idforge_snowflake_next_batch(h, static_cast<std::uint64_t*>(buf.Data()), n, &written)))
    return env.Undefined();
  napi_value arr;
  if (napi_create_typedarray(env, napi_biguint64_array, written, buf, 0, &arr) != napi_ok)
    return env.Undefined();  // a terminating environment, or the exception is pending
  return Napi::Value(env, arr);
}

Napi::Value SfRelease(const Napi::CallbackInfo& info) {
  if (idforge_snowflake* h = open_arg(info)) ok(info.Env(), idforge_snowflake_release(h));
  return info.Env().Undefined();
}

// Gives the node ID back (a leased one) and frees the generator; later calls throw.
Napi::Value SfClose(const Napi::CallbackInfo& info) {
  Box* box = box_arg(info);
  if (!box || !box->handle) return info.Env().Undefined();
  const idforge_status s = idforge_snowflake_release(box->handle);
  idforge_snowflake_free(box->handle);
  box->handle = nullptr;
  ok(info.Env(), s);
  return info.Env().Undefined();
}

Napi::Value SfClosed(const Napi::CallbackInfo& info) {
  Box* box = box_arg(info);
  if (!box) return info.Env().Undefined();
  return Napi::Boolean::New(info.Env(), box->handle == nullptr);
}

Napi::Value SfNode(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  idforge_snowflake* h = open_arg(info);
  std::uint64_t n;
  if (!h || !ok(env, idforge_snowflake_node(h, &n))) return env.Undefined();
  return Napi::Number::New(env, static_cast<double>(n));
}

Napi::Value SfLayout(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  idforge_snowflake* h = open_arg(info);
  if (!h) return env.Undefined();
  std::string out(256, '\0');
  std::size_t needed = 0;
  idforge_status s = idforge_snowflake_layout(h, out.data(), out.size(), &needed);
  if (s == IDFORGE_E_BUFFER_TOO_SMALL) {
    out.resize(needed);
    s = idforge_snowflake_layout(h, out.data(), out.size(), &needed);
  }
  if (!ok(env, s)) return env.Undefined();
  return Napi::String::New(env, out.data(), needed - 1);
}

// ---- MaskKeyring ---------------------------------------------------------------------------
// A keyring handle (idforge.h's idforge_mask_keyring) in an External that index.js's
// MaskKeyring class keeps in a private field, as for Snowflake. The handle is immutable; it
// belongs to the thread (worker) that made it, as every JavaScript object does.

struct KeyringBox {
  idforge_mask_keyring* handle = nullptr;
};

void free_keyring_box(napi_env, void* data, void*) {
  auto* box = static_cast<KeyringBox*>(data);
  idforge_mask_keyring_free(box->handle);  // wipes the keys
  delete box;
}

Napi::Value keyring_value(Napi::Env env, idforge_mask_keyring* h) {
  napi_value ext;
  auto* box = new KeyringBox{h};
  if (napi_create_external(env, box, free_keyring_box, nullptr, &ext) != napi_ok) {
    free_keyring_box(env, box, nullptr);
    Napi::Error::New(env, "MaskKeyring: cannot make its handle").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return Napi::Value(env, ext);
}

const idforge_mask_keyring* keyring_arg(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsExternal()) {
    Napi::TypeError::New(info.Env(), "not a MaskKeyring handle").ThrowAsJavaScriptException();
    return nullptr;
  }
  return info[0].As<Napi::External<KeyringBox>>().Data()->handle;
}

// mkFromFile(path): path a string or a Buffer/Uint8Array of bytes (a path need not be UTF-8).
Napi::Value MkFromFile(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string path;
  if (info.Length() >= 1 && info[0].IsTypedArray() &&
      info[0].As<Napi::TypedArray>().TypedArrayType() == napi_uint8_array) {
    Napi::Uint8Array bytes = info[0].As<Napi::Uint8Array>();
    path.assign(reinterpret_cast<const char*>(bytes.Data()), bytes.ElementLength());
    if (path.find('\0') != std::string::npos) {
      type_error(env, "MaskKeyring.fromFile: path '" + shown(path) +
                          "' contains a NUL byte: path must not contain one");
      return env.Undefined();
    }
  } else if (!string_arg(env, info.Length() >= 1 ? info[0] : env.Undefined(),
                         "MaskKeyring.fromFile: path", path)) {
    return env.Undefined();
  }
  idforge_mask_keyring* h = nullptr;
  if (!ok(env, idforge_mask_keyring_from_file(path.c_str(), &h))) return env.Undefined();
  return keyring_value(env, h);
}

Napi::Value MkFromEnvironment(const Napi::CallbackInfo& info) {
  idforge_mask_keyring* h = nullptr;
  if (!ok(info.Env(), idforge_mask_keyring_from_environment(&h))) return info.Env().Undefined();
  return keyring_value(info.Env(), h);
}

Napi::Value MkFromText(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) {
    type_error(env, "MaskKeyring.fromText: text must be a string");
    return env.Undefined();
  }
  const std::string text = info[0].As<Napi::String>().Utf8Value();
  if (env.IsExceptionPending()) return env.Undefined();
  idforge_mask_keyring* h = nullptr;
  if (!ok(env, idforge_mask_keyring_from_text(text.data(), text.size(), &h)))
    return env.Undefined();
  return keyring_value(env, h);
}

Napi::Value MkKeyIds(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const idforge_mask_keyring* h = keyring_arg(info);
  if (!h) return env.Undefined();
  unsigned ids[64];
  std::size_t count = 0;
  if (!ok(env, idforge_mask_keyring_ids(h, ids, 64, &count))) return env.Undefined();
  Napi::Array a = Napi::Array::New(env, count);
  for (std::size_t i = 0; i < count; ++i)
    a.Set(static_cast<std::uint32_t>(i), Napi::Number::New(env, ids[i]));
  return a;
}

Napi::Value NewMaskKey(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) {
    type_error(env, "newMaskKey(keyId): keyId must be a number");
    return env.Undefined();
  }
  const double d = info[0].As<Napi::Number>().DoubleValue();
  if (!(d >= 0 && d <= 57) || d != static_cast<double>(static_cast<unsigned>(d))) {
    range_error(
        env, "newMaskKey(" + info[0].ToString().Utf8Value() + "): a key ID is an integer in 0..57");
    return env.Undefined();
  }
  char line[IDFORGE_MASK_KEY_LINE_SIZE];
  if (!ok(env, idforge_mask_new_key(static_cast<unsigned>(d), line, sizeof line)))
    return env.Undefined();
  Napi::String s = Napi::String::New(env, line);
  volatile char* p = line;  // the line is a secret: leave no copy on the stack
  for (std::size_t i = 0; i < sizeof line; ++i) p[i] = 0;
  return s;
}

// The options index.js has checked and turned into idforge.h's numbers.
struct MaskArgs {
  const idforge_mask_keyring* h = nullptr;
  int mode = IDFORGE_MASK_AUTO;
  bool raw = false;
  idforge_public_alphabet alphabet = IDFORGE_BASE58;
  int key_id = IDFORGE_MASK_KEY_PRIMARY;
};

// mkMask/mkUnmask(handle, value, mode, raw, alphabet, keyId).
bool mask_args(const Napi::CallbackInfo& info, MaskArgs& a) {
  a.h = keyring_arg(info);
  if (!a.h) return false;
  if (info.Length() < 6 || !info[2].IsNumber() || !info[3].IsBoolean() || !info[4].IsNumber() ||
      !info[5].IsNumber()) {
    type_error(info.Env(), "mkMask(handle, value, mode, raw, alphabet, keyId): bad arguments");
    return false;
  }
  a.mode = info[2].As<Napi::Number>().Int32Value();
  a.raw = info[3].As<Napi::Boolean>().Value();
  a.alphabet = static_cast<idforge_public_alphabet>(info[4].As<Napi::Number>().Int32Value());
  a.key_id = info[5].As<Napi::Number>().Int32Value();
  // index.js passes checked numbers; the raw export must not index kModeNames with others.
  if (a.mode < IDFORGE_MASK_AUTO || a.mode > IDFORGE_MASK_V7 ||
      (a.alphabet != IDFORGE_BASE58 && a.alphabet != IDFORGE_BASE62)) {
    range_error(info.Env(), "mkMask: mode " + std::to_string(a.mode) + " or alphabet " +
                                std::to_string(static_cast<int>(a.alphabet)) + " out of range");
    return false;
  }
  return true;
}

const char* const kModeNames[] = {"u63", "u128", "v7"};

bool all_digits(const std::string& t) {
  if (t.empty()) return false;
  for (char c : t)
    if (c < '0' || c > '9') return false;
  return true;
}

// A value as the masking functions take it: a u63 integer (bigint, number or decimal string)
// or a UUID (its text). False with an exception pending.
struct Value {
  bool is_uuid = false;
  std::uint64_t u63 = 0;
  idforge_uuid uuid{};
};

bool u63_range_error(Napi::Env env, const char* fn, const std::string& shown_value) {
  range_error(env, std::string(fn) + " " + shown_value +
                       ": a u63 value is an integer in 1..2^63-1 (a bigint, a safe integer or "
                       "decimal text)");
  return false;
}

bool value_arg(Napi::Env env, const Napi::Value& v, const char* fn, Value& out) {
  constexpr std::uint64_t kMax = (std::uint64_t{1} << 63) - 1;
  if (v.IsBigInt()) {
    bool lossless = false;
    out.u63 = v.As<Napi::BigInt>().Uint64Value(&lossless);
    if (env.IsExceptionPending()) return false;
    if (!lossless || out.u63 == 0 || out.u63 > kMax)
      return u63_range_error(env, fn, shown(v.ToString().Utf8Value()) + "n");
    return true;
  }
  if (v.IsNumber()) {
    const double d = v.As<Napi::Number>().DoubleValue();
    if (!(d >= 1 && d <= 9007199254740991.0) ||
        d != static_cast<double>(static_cast<std::uint64_t>(d)))
      return u63_range_error(env, fn, v.ToString().Utf8Value());
    out.u63 = static_cast<std::uint64_t>(d);
    return true;
  }
  if (!v.IsString()) {
    type_error(env, std::string(fn) +
                        ": the value must be a bigint, a number or a string (decimal or a UUID)");
    return false;
  }
  const std::string t = v.As<Napi::String>().Utf8Value();
  if (env.IsExceptionPending()) return false;
  if (all_digits(t)) {
    if (t.size() > 19) return u63_range_error(env, fn, "'" + shown(t) + "'");
    std::uint64_t x = 0;
    for (char c : t) x = x * 10 + static_cast<std::uint64_t>(c - '0');
    if (x == 0 || x > kMax) return u63_range_error(env, fn, "'" + shown(t) + "'");
    out.u63 = x;
    return true;
  }
  if (idforge_uuid_parse(t.data(), t.size(), &out.uuid) != IDFORGE_OK) {
    throw_error(env, IDFORGE_E_PARSE_ERROR,
                std::string(fn) + " '" + shown(t) +
                    "': neither decimal digits (a u63 value) nor a UUID: " + idforge_last_error(),
                Kind::Range);
    return false;
  }
  out.is_uuid = true;
  return true;
}

// A u63 value goes with mode auto or u63 only, a UUID with auto, u128 or v7.
bool mode_fits(Napi::Env env, const char* fn, const Value& v, int mode) {
  if (v.is_uuid ? mode != IDFORGE_MASK_U63
                : (mode == IDFORGE_MASK_AUTO || mode == IDFORGE_MASK_U63))
    return true;
  range_error(env, std::string(fn) + ": mode '" + kModeNames[mode] + "' takes " +
                       (v.is_uuid ? "an integer, not a UUID" : "a UUID, not an integer"));
  return false;
}

Napi::Value uuid_string(Napi::Env env, const idforge_uuid& u) {
  char text[IDFORGE_UUID_TEXT_SIZE];
  if (!ok(env, idforge_uuid_format(&u, text, sizeof text))) return env.Undefined();
  return Napi::String::New(env, text, 36);
}

Napi::Value MkMask(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MaskArgs a;
  Value v;
  if (!mask_args(info, a) || !value_arg(env, info[1], "mask", v) ||
      !mode_fits(env, "mask", v, a.mode))
    return env.Undefined();
  if (!v.is_uuid) {
    if (a.raw) {
      std::uint64_t m;
      if (!ok(env, idforge_mask_u63(a.h, a.key_id, v.u63, &m))) return env.Undefined();
      return Napi::BigInt::New(env, m);
    }
    char text[IDFORGE_PUBLIC_ID_TEXT_SIZE];
    if (!ok(env, idforge_mask_public_u63(a.h, a.key_id, v.u63, a.alphabet, text, sizeof text)))
      return env.Undefined();
    return Napi::String::New(env, text, 16);
  }
  const auto mode = static_cast<idforge_mask_mode>(a.mode);
  if (a.raw) {
    idforge_uuid m;
    if (!ok(env, idforge_mask_uuid(a.h, a.key_id, mode, &v.uuid, &m))) return env.Undefined();
    return uuid_string(env, m);
  }
  char text[IDFORGE_PUBLIC_ID_TEXT_SIZE];
  if (!ok(env,
          idforge_mask_public_uuid(a.h, a.key_id, mode, &v.uuid, a.alphabet, text, sizeof text)))
    return env.Undefined();
  return Napi::String::New(env, text);
}

// A public ID's value: a bigint (u63) or a UUID string.
Napi::Value public_value(Napi::Env env, const idforge_public_id& p) {
  if (p.mode == IDFORGE_MASK_U63) return Napi::BigInt::New(env, p.value);
  return uuid_string(env, p.uuid);
}

// Reads text as a public ID; false with an exception pending.
bool read_public(Napi::Env env, const MaskArgs& a, const std::string& text,
                 idforge_public_id& out) {
  return ok(env, idforge_unmask_public(a.h, text.data(), text.size(), a.alphabet,
                                       static_cast<idforge_mask_mode>(a.mode), a.key_id, &out));
}

// A UUID's text forms have 32, 36, 38 or 45 characters, a public ID 16, 26 or 27: the length
// alone routes a string (a failed UUID parse would cost an exception inside the library).
bool maybe_uuid(const std::string& t) {
  return t.size() == 32 || t.size() == 36 || t.size() == 38 || t.size() == 45;
}

// A string is a public ID unless raw is asked for or it is a UUID (a hyphen or its length
// rules out a public ID), as `idforge unmask` reads it; a bigint or number is a raw u63.
Napi::Value MkUnmask(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MaskArgs a;
  if (!mask_args(info, a)) return env.Undefined();
  if (info[1].IsString()) {
    const std::string t = info[1].As<Napi::String>().Utf8Value();
    if (env.IsExceptionPending()) return env.Undefined();
    if (!a.raw && !maybe_uuid(t)) {
      idforge_public_id p;
      if (!read_public(env, a, t, p)) return env.Undefined();
      return public_value(env, p);
    }
  }
  Value v;
  if (!value_arg(env, info[1], "unmask", v) || !mode_fits(env, "unmask", v, a.mode))
    return env.Undefined();
  if (!v.is_uuid) {
    std::uint64_t back;
    if (!ok(env, idforge_unmask_u63(a.h, a.key_id, v.u63, &back))) return env.Undefined();
    return Napi::BigInt::New(env, back);
  }
  idforge_uuid back;
  if (!ok(env, idforge_unmask_uuid(a.h, a.key_id, static_cast<idforge_mask_mode>(a.mode), &v.uuid,
                                   &back)))
    return env.Undefined();
  return uuid_string(env, back);
}

// mkReadPublic(handle, text, alphabet) -> {mode, keyId, value}
Napi::Value MkReadPublic(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MaskArgs a;
  a.h = keyring_arg(info);
  if (!a.h) return env.Undefined();
  std::string t;
  if (!string_arg(env, info.Length() > 1 ? info[1] : env.Undefined(), "readPublicId: text", t))
    return env.Undefined();
  if (info.Length() > 2 && info[2].IsNumber())
    a.alphabet = static_cast<idforge_public_alphabet>(info[2].As<Napi::Number>().Int32Value());
  idforge_public_id p;
  if (!read_public(env, a, t, p)) return env.Undefined();
  Napi::Object o = Napi::Object::New(env);
  o.Set("mode", Napi::String::New(env, kModeNames[p.mode]));
  o.Set("keyId", Napi::Number::New(env, p.key_id));
  o.Set("value", public_value(env, p));
  return o;
}

// A plain N-API function on exports (no node-addon-api wrapper: see the Snowflake comment).
void set_raw(Napi::Env env, Napi::Object exports, const char* name, napi_callback cb) {
  napi_value f;
  if (napi_create_function(env, name, NAPI_AUTO_LENGTH, cb, nullptr, &f) == napi_ok)
    exports.Set(name, Napi::Value(env, f));
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  set_raw(env, exports, "uuid7", Uuid7);
  set_raw(env, exports, "ulid", Ulid);
  exports.Set("uuid4Block", Napi::Function::New<Uuid4Block>(env, "uuid4Block"));
  exports.Set("inspectJson", Napi::Function::New<InspectJson>(env, "inspectJson"));
  exports.Set("decompose", Napi::Function::New<Decompose>(env, "decompose"));
  exports.Set("sfNew", Napi::Function::New<SfNew>(env, "sfNew"));
  set_raw(env, exports, "sfNext", SfNext);
  set_raw(env, exports, "sfNextString", SfNextString);
  exports.Set("sfNextBatch", Napi::Function::New<SfNextBatch>(env, "sfNextBatch"));
  exports.Set("sfRelease", Napi::Function::New<SfRelease>(env, "sfRelease"));
  exports.Set("sfClose", Napi::Function::New<SfClose>(env, "sfClose"));
  exports.Set("sfClosed", Napi::Function::New<SfClosed>(env, "sfClosed"));
  exports.Set("sfNode", Napi::Function::New<SfNode>(env, "sfNode"));
  exports.Set("sfLayout", Napi::Function::New<SfLayout>(env, "sfLayout"));
  exports.Set("mkFromFile", Napi::Function::New<MkFromFile>(env, "mkFromFile"));
  exports.Set("mkFromEnvironment",
              Napi::Function::New<MkFromEnvironment>(env, "mkFromEnvironment"));
  exports.Set("mkFromText", Napi::Function::New<MkFromText>(env, "mkFromText"));
  exports.Set("mkKeyIds", Napi::Function::New<MkKeyIds>(env, "mkKeyIds"));
  exports.Set("mkMask", Napi::Function::New<MkMask>(env, "mkMask"));
  exports.Set("mkUnmask", Napi::Function::New<MkUnmask>(env, "mkUnmask"));
  exports.Set("mkReadPublic", Napi::Function::New<MkReadPublic>(env, "mkReadPublic"));
  exports.Set("newMaskKey", Napi::Function::New<NewMaskKey>(env, "newMaskKey"));
  exports.Set("version", Napi::String::New(env, idforge_version()));
  return exports;
}

}  // namespace

NODE_API_MODULE(idforge, Init)
