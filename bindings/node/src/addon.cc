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
#include <string_view>
#include <vector>

#include "idforge/idforge.h"

namespace {

// The longest piece of a caller's input this file echoes in a message: a 1 MB argument
// must not make a 1 MB error.
constexpr std::size_t kEchoLimit = 64;

// text for a message, quoted as every face of the library quotes user text (idforge_quote:
// controls and bytes that are not UTF-8 escaped, a long text cut to its head and tail).
std::string shown(std::string_view text) {
  char buf[4 * kEchoLimit];
  std::size_t needed = 0;
  idforge_status s = idforge_quote(text.data(), text.size(), kEchoLimit, buf, sizeof buf, &needed);
  if (s == IDFORGE_OK) return buf;
  if (s != IDFORGE_E_BUFFER_TOO_SMALL) return "(not shown)";
  std::string out(needed, '\0');
  if (idforge_quote(text.data(), text.size(), kEchoLimit, out.data(), out.size(), &needed) !=
      IDFORGE_OK)
    return "(not shown)";
  out.resize(needed - 1);
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

// ---- handles: one type tag per kind ----------------------------------------------------
// Every External this addon makes is tagged (napi_type_tag_object) with its kind, and every
// raw export checks the tag before it reads the pointer inside: an External is only a void*,
// so sfClose(keyringHandle) used to free a keyring as a Snowflake (measured: SIGSEGV). The
// tags are random constants; another addon's External carries none of them.

struct HandleKind {
  napi_type_tag tag;
  const char* name;
};

constexpr HandleKind kSnowflakeHandle{{0x6a2f1c9e4b7d3085, 0xd1e85b03a96c24f7},
                                      "a Snowflake handle (from sfNew)"};
constexpr HandleKind kKeyringHandle{
    {0x93c47e0b2d5f1a68, 0x5b0ef6a1c83d9274},
    "a MaskKeyring handle (from mkFromFile, mkFromEnvironment or mkFromText)"};
constexpr const HandleKind* kHandleKinds[] = {&kSnowflakeHandle, &kKeyringHandle};

// data in a new External tagged as kind; finalize frees it (also when this fails).
napi_value make_handle(napi_env env, void* data, napi_finalize finalize, const HandleKind& kind) {
  napi_value ext;
  if (napi_create_external(env, data, finalize, nullptr, &ext) != napi_ok) {
    finalize(env, data, nullptr);
    return nullptr;
  }
  if (napi_type_tag_object(env, ext, &kind.tag) != napi_ok) return nullptr;  // GC frees data
  return ext;
}

bool has_tag(napi_env env, napi_value v, const HandleKind& kind) {
  bool result = false;
  return napi_check_object_type_tag(env, v, &kind.tag, &result) == napi_ok && result;
}

// What v is, for a message: "a MaskKeyring handle", "an object", "undefined", ...
std::string what_is(napi_env env, napi_value v) {
  napi_valuetype type = napi_undefined;
  if (napi_typeof(env, v, &type) != napi_ok) return "an unknown value";
  if (type == napi_object || type == napi_external)
    for (const HandleKind* k : kHandleKinds)
      if (has_tag(env, v, *k)) {
        const std::string name = k->name;
        return name.substr(0, name.find(" ("));
      }
  switch (type) {
    case napi_undefined:
      return "undefined";
    case napi_null:
      return "null";
    case napi_boolean:
      return "a boolean";
    case napi_number:
      return "a number";
    case napi_string:
      return "a string";
    case napi_symbol:
      return "a symbol";
    case napi_object:
      return "an object";
    case napi_function:
      return "a function";
    case napi_external:
      return "an external that is no handle of this addon";
    case napi_bigint:
      return "a bigint";
  }
  return "an unknown value";
}

// The data of the handle of kind in v, or nullptr with a TypeError pending that names fn,
// what it expected and what it got.
void* handle_data(napi_env env, napi_value v, const HandleKind& kind, const char* fn) {
  // napi_get_value_external refuses a value that is no External without throwing; the
  // pointer is only used once the tag says whose it is.
  void* data = nullptr;
  if (v && napi_get_value_external(env, v, &data) == napi_ok && data && has_tag(env, v, kind))
    return data;
  bool pending = false;
  if (napi_is_exception_pending(env, &pending) == napi_ok && !pending)
    type_error(Napi::Env(env), std::string(fn) + ": expected " + kind.name + ", not " +
                                   (v ? what_is(env, v) : std::string("undefined")));
  return nullptr;
}

// The open Snowflake in argument 0, or nullptr with a JavaScript exception pending.
idforge_snowflake* handle_arg(napi_env env, napi_callback_info info, const char* fn) {
  std::size_t argc = 1;
  napi_value arg = nullptr;
  if (napi_get_cb_info(env, info, &argc, &arg, nullptr, nullptr) != napi_ok) return nullptr;
  auto* box = static_cast<Box*>(handle_data(env, argc >= 1 ? arg : nullptr, kSnowflakeHandle, fn));
  if (!box) return nullptr;
  if (!box->handle) throw_closed(env);
  return box->handle;
}

Box* box_arg(const Napi::CallbackInfo& info, const char* fn) {
  return static_cast<Box*>(handle_data(
      info.Env(), info.Length() >= 1 ? napi_value(info[0]) : nullptr, kSnowflakeHandle, fn));
}

idforge_snowflake* open_arg(const Napi::CallbackInfo& info, const char* fn) {
  Box* box = box_arg(info, fn);
  if (!box) return nullptr;
  if (!box->handle) throw_closed(info.Env());
  return box->handle;
}

// ---- options objects ------------------------------------------------------------------
// Every own key of an options object goes through idforge_check_option, the list and the
// words every face shares: a misspelt option ({lease_store}, Python's spelling) is refused,
// never ignored (an ignored lease store leaves a fixed node unregistered).

// True for an object that holds options (not null, an array or a function); else false
// with a TypeError pending that names call.
bool options_object(Napi::Env env, const Napi::Value& v, const char* call) {
  if (v.IsObject() && !v.IsArray() && !v.IsFunction()) return true;
  if (!env.IsExceptionPending())
    type_error(env, std::string(call) + ": options must be an object, not " +
                        (v.IsArray() ? std::string("an array") : what_is(env, v)));
  return false;
}

// A key as idforge_check_option reads it: a string's UTF-8 (a lone surrogate is U+FFFD, never
// another option's name), a symbol as "Symbol(description)" (no option is one).
bool key_text(Napi::Env env, const Napi::Value& key, std::string& out) {
  if (key.IsString()) {
    out = key.As<Napi::String>().Utf8Value();
    return !env.IsExceptionPending();
  }
  napi_value description;
  napi_valuetype type = napi_undefined;
  if (napi_get_named_property(env, key, "description", &description) != napi_ok) return false;
  out = "Symbol(";
  if (napi_typeof(env, description, &type) == napi_ok && type == napi_string)
    out += Napi::String(env, description).Utf8Value();
  out += ")";
  return !env.IsExceptionPending();
}

// Refuses options that is not an object or has an own key (enumerable or not, string or
// symbol: Reflect.ownKeys) that kind does not take. False with an exception pending: a
// TypeError with code IDFORGE_INVALID_ARGUMENT, or what a Proxy's ownKeys trap threw.
bool check_options(Napi::Env env, const Napi::Value& options, idforge_options kind,
                   const char* call) {
  if (!options_object(env, options, call)) return false;
  napi_value keys;
  if (napi_get_all_property_names(env, options, napi_key_own_only, napi_key_all_properties,
                                  napi_key_numbers_to_strings, &keys) != napi_ok) {
    if (!env.IsExceptionPending()) type_error(env, std::string(call) + ": cannot list its options");
    return false;
  }
  const Napi::Array names(env, keys);
  const std::uint32_t n = names.Length();
  for (std::uint32_t i = 0; i < n; ++i) {
    const Napi::Value key = names.Get(i);
    std::string name;
    if (env.IsExceptionPending() || key.IsEmpty() || !key_text(env, key, name)) return false;
    const idforge_status s =
        idforge_check_option(kind, IDFORGE_CAMEL_CASE, call, name.data(), name.size());
    if (s != IDFORGE_OK) {
      throw_error(env, s, idforge_last_error(), Kind::Type);
      return false;
    }
  }
  return true;
}

// checkOptions(options, kind, call): index.js's check of mask, unmask and readPublicId
// options; kind is idforge.h's idforge_options number.
Napi::Value CheckOptions(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string call;
  if (info.Length() < 3 || !info[1].IsNumber() || !string_arg(env, info[2], "call", call)) {
    if (!env.IsExceptionPending())
      type_error(env, "checkOptions(options, kind, call): bad arguments");
    return env.Undefined();
  }
  const int kind = info[1].As<Napi::Number>().Int32Value();
  if (kind != IDFORGE_OPTIONS_MASK && kind != IDFORGE_OPTIONS_READ_PUBLIC_ID &&
      kind != IDFORGE_OPTIONS_SNOWFLAKE) {
    range_error(env, "checkOptions: kind " + std::to_string(kind) + " is not an idforge_options");
    return env.Undefined();
  }
  check_options(env, info[0], static_cast<idforge_options>(kind), call.c_str());
  return env.Undefined();
}

// quote(text): text as the library's messages quote user text (idforge_quote, cut to 64 bytes).
Napi::Value Quote(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) {
    type_error(env, "quote(text): text must be a string");
    return env.Undefined();
  }
  const std::string text = info[0].As<Napi::String>().Utf8Value();
  if (env.IsExceptionPending()) return env.Undefined();
  return Napi::String::New(env, shown(text));
}

// maskName(kind, name) -> the number of a mask mode (kind 0; 'auto' is -1) or an alphabet
// (kind 1), read by the library (idforge_mask_mode_parse, idforge_public_alphabet_parse), so
// Node takes the names every face takes; another name is a RangeError in the library's words.
Napi::Value MaskName(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsNumber() || !info[1].IsString()) {
    type_error(env, "maskName(kind, name): kind must be 0 or 1 and name a string");
    return env.Undefined();
  }
  const std::string name = info[1].As<Napi::String>().Utf8Value();
  if (env.IsExceptionPending()) return env.Undefined();
  if (info[0].As<Napi::Number>().Int32Value() == 0) {
    idforge_mask_mode m = IDFORGE_MASK_AUTO;
    if (!ok(env, idforge_mask_mode_parse(name.data(), name.size(), 1, &m))) return env.Undefined();
    return Napi::Number::New(env, m);
  }
  idforge_public_alphabet a = IDFORGE_BASE58;
  if (!ok(env, idforge_public_alphabet_parse(name.data(), name.size(), &a))) return env.Undefined();
  return Napi::Number::New(env, a);
}

// sfNew({layout?, node?, leaseStore?}) -> handle. Leasing blocks this thread (bounded by the
// store's timeout and the start-up wait).
Napi::Value SfNew(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!check_options(env, info.Length() >= 1 ? info[0] : env.Undefined(), IDFORGE_OPTIONS_SNOWFLAKE,
                     "new Snowflake"))
    return env.Undefined();
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
  napi_value ext = make_handle(env, new Box{h}, free_box, kSnowflakeHandle);
  if (!ext) {
    if (!env.IsExceptionPending())
      Napi::Error::New(env, "new Snowflake: cannot make its handle").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return Napi::Value(env, ext);
}

napi_value SfNext(napi_env env, napi_callback_info info) {
  idforge_snowflake* h = handle_arg(env, info, "sfNext");
  if (!h) return nullptr;
  std::uint64_t id;
  if (!ok(env, idforge_snowflake_next(h, &id))) return nullptr;
  napi_value v;
  napi_create_bigint_uint64(env, id, &v);
  return v;
}

napi_value SfNextString(napi_env env, napi_callback_info info) {
  idforge_snowflake* h = handle_arg(env, info, "sfNextString");
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
  idforge_snowflake* h = open_arg(info, "sfNextBatch");
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
  if (idforge_snowflake* h = open_arg(info, "sfRelease"))
    ok(info.Env(), idforge_snowflake_release(h));
  return info.Env().Undefined();
}

// Gives the node ID back (a leased one) and frees the generator; later calls throw.
Napi::Value SfClose(const Napi::CallbackInfo& info) {
  Box* box = box_arg(info, "sfClose");
  if (!box || !box->handle) return info.Env().Undefined();
  const idforge_status s = idforge_snowflake_release(box->handle);
  idforge_snowflake_free(box->handle);
  box->handle = nullptr;
  ok(info.Env(), s);
  return info.Env().Undefined();
}

Napi::Value SfClosed(const Napi::CallbackInfo& info) {
  Box* box = box_arg(info, "sfClosed");
  if (!box) return info.Env().Undefined();
  return Napi::Boolean::New(info.Env(), box->handle == nullptr);
}

Napi::Value SfNode(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  idforge_snowflake* h = open_arg(info, "sfNode");
  std::uint64_t n;
  if (!h || !ok(env, idforge_snowflake_node(h, &n))) return env.Undefined();
  return Napi::Number::New(env, static_cast<double>(n));
}

Napi::Value SfLayout(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  idforge_snowflake* h = open_arg(info, "sfLayout");
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
  napi_value ext = make_handle(env, new KeyringBox{h}, free_keyring_box, kKeyringHandle);
  if (!ext) {
    if (!env.IsExceptionPending())
      Napi::Error::New(env, "MaskKeyring: cannot make its handle").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return Napi::Value(env, ext);
}

const idforge_mask_keyring* keyring_arg(const Napi::CallbackInfo& info, const char* fn) {
  auto* box = static_cast<KeyringBox*>(handle_data(
      info.Env(), info.Length() >= 1 ? napi_value(info[0]) : nullptr, kKeyringHandle, fn));
  return box ? box->handle : nullptr;
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
  const idforge_mask_keyring* h = keyring_arg(info, "mkKeyIds");
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

// index.js passes checked numbers; a raw export must still not index kModeNames with others.
bool mode_alphabet_fit(Napi::Env env, const char* fn, const MaskArgs& a) {
  if (a.mode >= IDFORGE_MASK_AUTO && a.mode <= IDFORGE_MASK_V7 &&
      (a.alphabet == IDFORGE_BASE58 || a.alphabet == IDFORGE_BASE62))
    return true;
  range_error(env, std::string(fn) + ": mode " + std::to_string(a.mode) + " or alphabet " +
                       std::to_string(static_cast<int>(a.alphabet)) + " out of range");
  return false;
}

// mkMask/mkUnmask(handle, value, mode, raw, alphabet, keyId).
bool mask_args(const Napi::CallbackInfo& info, const char* fn, MaskArgs& a) {
  a.h = keyring_arg(info, fn);
  if (!a.h) return false;
  if (info.Length() < 6 || !info[2].IsNumber() || !info[3].IsBoolean() || !info[4].IsNumber() ||
      !info[5].IsNumber()) {
    type_error(info.Env(),
               std::string(fn) + "(handle, value, mode, raw, alphabet, keyId): bad arguments");
    return false;
  }
  a.mode = info[2].As<Napi::Number>().Int32Value();
  a.raw = info[3].As<Napi::Boolean>().Value();
  a.alphabet = static_cast<idforge_public_alphabet>(info[4].As<Napi::Number>().Int32Value());
  a.key_id = info[5].As<Napi::Number>().Int32Value();
  return mode_alphabet_fit(info.Env(), fn, a);
}

// The library's names for modes 0..2 (idforge_mask_mode_name).
const char* const kModeNames[] = {idforge_mask_mode_name(IDFORGE_MASK_U63),
                                  idforge_mask_mode_name(IDFORGE_MASK_U128),
                                  idforge_mask_mode_name(IDFORGE_MASK_V7)};

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
  if (!mask_args(info, "mkMask", a) || !value_arg(env, info[1], "mask", v) ||
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
  if (!mask_args(info, "mkUnmask", a)) return env.Undefined();
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

// mkReadPublic(handle, text, mode, alphabet, keyId) -> {mode, keyId, value}; mode (auto: any)
// and keyId (-1: any) refuse a public ID of another mode or key, as unmask does.
Napi::Value MkReadPublic(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MaskArgs a;
  a.h = keyring_arg(info, "mkReadPublic");
  if (!a.h) return env.Undefined();
  std::string t;
  if (!string_arg(env, info.Length() > 1 ? info[1] : env.Undefined(), "readPublicId: text", t))
    return env.Undefined();
  if (info.Length() < 5 || !info[2].IsNumber() || !info[3].IsNumber() || !info[4].IsNumber()) {
    type_error(env, "mkReadPublic(handle, text, mode, alphabet, keyId): bad arguments");
    return env.Undefined();
  }
  a.mode = info[2].As<Napi::Number>().Int32Value();
  a.alphabet = static_cast<idforge_public_alphabet>(info[3].As<Napi::Number>().Int32Value());
  a.key_id = info[4].As<Napi::Number>().Int32Value();
  if (!mode_alphabet_fit(env, "mkReadPublic", a)) return env.Undefined();
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
  exports.Set("checkOptions", Napi::Function::New<CheckOptions>(env, "checkOptions"));
  exports.Set("quote", Napi::Function::New<Quote>(env, "quote"));
  exports.Set("maskName", Napi::Function::New<MaskName>(env, "maskName"));
  exports.Set("version", Napi::String::New(env, idforge_version()));
  return exports;
}

}  // namespace

NODE_API_MODULE(idforge, Init)
