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

// A JavaScript Error with the library's message (the CLI's words), .code
// ("IDFORGE_NODE_OUT_OF_RANGE", ...) and .status ("node_out_of_range"). Rule-breaking
// arguments are RangeErrors, as Node's own APIs make them.
Napi::Error make_error(Napi::Env env, idforge_status s) {
  const std::string name = idforge_status_name(s);
  std::string code = "IDFORGE_";
  for (char c : name) code += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  const bool range = s == IDFORGE_E_NODE_OUT_OF_RANGE || s == IDFORGE_E_INVALID_ARGUMENT ||
                     s == IDFORGE_E_INVALID_LAYOUT || s == IDFORGE_E_EPOCH_IN_FUTURE;
  Napi::Error e = range ? Napi::RangeError::New(env, idforge_last_error())
                        : Napi::Error::New(env, idforge_last_error());
  e.Set("code", Napi::String::New(env, code));
  e.Set("status", Napi::String::New(env, name));
  return e;
}

// Throws the status as a JavaScript exception; returns false so callers can return early.
bool ok(Napi::Env env, idforge_status s) {
  if (s == IDFORGE_OK) return true;
  make_error(env, s).ThrowAsJavaScriptException();
  return false;
}

Napi::Value uuid_text(Napi::Env env, const idforge_uuid& u) {
  char text[IDFORGE_UUID_TEXT_SIZE];
  if (!ok(env, idforge_uuid_format(&u, text, sizeof text))) return env.Undefined();
  return Napi::String::New(env, text, 36);
}

Napi::Value Uuid7(const Napi::CallbackInfo& info) {
  idforge_uuid u;
  if (!ok(info.Env(), idforge_make_uuid7(&u))) return info.Env().Undefined();
  return uuid_text(info.Env(), u);
}

Napi::Value Ulid(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  idforge_ulid u;
  char text[IDFORGE_ULID_TEXT_SIZE];
  if (!ok(env, idforge_make_ulid(&u)) || !ok(env, idforge_ulid_format(&u, text, sizeof text)))
    return env.Undefined();
  return Napi::String::New(env, text, 26);
}

// count version 4 UUIDs as one string of count * 36 characters: index.js serves uuid4()
// from it, one native call per 128 UUIDs, as crypto.randomUUID() caches its entropy.
Napi::Value Uuid4Block(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::uint32_t count = info[0].As<Napi::Number>().Uint32Value();
  if (count == 0 || count > 4096) {
    Napi::RangeError::New(env, "uuid4 block of " + std::to_string(count) + ": 1..4096")
        .ThrowAsJavaScriptException();
    return env.Undefined();
  }
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
  const std::string text = info[0].As<Napi::String>().Utf8Value();
  std::string layout;
  const bool has_layout = info.Length() > 1 && info[1].IsString();
  if (has_layout) layout = info[1].As<Napi::String>().Utf8Value();
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
  bool lossless = false;
  const std::uint64_t id = info[0].As<Napi::BigInt>().Uint64Value(&lossless);
  if (!lossless) {
    Napi::RangeError::New(env, "decompose: the ID must be a bigint in 0..2^64-1")
        .ThrowAsJavaScriptException();
    return env.Undefined();
  }
  std::string layout;
  const bool has_layout = info.Length() > 1 && info[1].IsString();
  if (has_layout) layout = info[1].As<Napi::String>().Utf8Value();
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

class Snowflake : public Napi::ObjectWrap<Snowflake> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(
        env, "Snowflake",
        {InstanceMethod<&Snowflake::Next>("next"),
         InstanceMethod<&Snowflake::NextString>("nextString"),
         InstanceMethod<&Snowflake::NextBatch>("nextBatch"),
         InstanceMethod<&Snowflake::Release>("release"), InstanceMethod<&Snowflake::Close>("close"),
         InstanceAccessor<&Snowflake::Node>("node"), InstanceAccessor<&Snowflake::Layout>("layout"),
         InstanceAccessor<&Snowflake::Closed>("closed")});
  }

  // new Snowflake({layout?, node?, leaseStore?}): leasing blocks this thread (bounded by
  // the store's timeout and the start-up wait).
  explicit Snowflake(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Snowflake>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsObject()) {
      Napi::TypeError::New(env,
                           "new Snowflake(options): options must be an object "
                           "{layout, node | leaseStore}")
          .ThrowAsJavaScriptException();
      return;
    }
    Napi::Object o = info[0].As<Napi::Object>();
    std::string layout = "twitter", store;
    std::int64_t node = IDFORGE_NODE_ANY;
    const Napi::Value l = o.Get("layout"), n = o.Get("node"), s = o.Get("leaseStore");
    if (!l.IsUndefined()) {
      if (!l.IsString()) {
        type_error(env, "layout must be a string (a preset or a spec)");
        return;
      }
      layout = l.As<Napi::String>().Utf8Value();
    }
    if (!n.IsUndefined()) {
      if (!n.IsNumber()) {
        type_error(env, "node must be a number");
        return;
      }
      const double d = n.As<Napi::Number>().DoubleValue();
      if (!(d >= 0) || d != static_cast<double>(static_cast<std::int64_t>(d)) || d > 9.0e15) {
        Napi::RangeError::New(env,
                              "node " + n.ToString().Utf8Value() + ": a node ID is an integer >= 0")
            .ThrowAsJavaScriptException();
        return;
      }
      node = static_cast<std::int64_t>(d);
    }
    if (!s.IsUndefined()) {
      if (!s.IsString()) {
        type_error(env, "leaseStore must be a string URL");
        return;
      }
      store = s.As<Napi::String>().Utf8Value();
    }
    idforge_snowflake* h = nullptr;
    if (!ok(env, idforge_snowflake_new(layout.c_str(), node,
                                       s.IsUndefined() ? nullptr : store.c_str(), &h)))
      return;
    handle_ = h;
  }

  ~Snowflake() override { idforge_snowflake_free(handle_); }

 private:
  void type_error(Napi::Env env, const char* what) {
    Napi::TypeError::New(env, std::string("new Snowflake: ") + what).ThrowAsJavaScriptException();
  }

  idforge_snowflake* live(Napi::Env env) {
    if (!handle_) Napi::Error::New(env, "Snowflake is closed").ThrowAsJavaScriptException();
    return handle_;
  }

  Napi::Value Next(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    idforge_snowflake* h = live(env);
    std::uint64_t id;
    if (!h || !ok(env, idforge_snowflake_next(h, &id))) return env.Undefined();
    return Napi::BigInt::New(env, id);
  }

  Napi::Value NextString(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    idforge_snowflake* h = live(env);
    std::uint64_t id;
    if (!h || !ok(env, idforge_snowflake_next(h, &id))) return env.Undefined();
    return Napi::String::New(env, std::to_string(id));
  }

  // nextBatch(n) -> BigUint64Array of n consecutive IDs.
  Napi::Value NextBatch(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    idforge_snowflake* h = live(env);
    if (!h) return env.Undefined();
    if (info.Length() < 1 || !info[0].IsNumber()) {
      Napi::TypeError::New(env, "nextBatch(n): n must be a number").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    const double d = info[0].As<Napi::Number>().DoubleValue();
    if (!(d >= 0 && d <= 67108864) || d != static_cast<double>(static_cast<std::int64_t>(d))) {
      Napi::RangeError::New(env, "nextBatch(" + info[0].ToString().Utf8Value() +
                                     "): n must be an integer in 0..67108864")
          .ThrowAsJavaScriptException();
      return env.Undefined();
    }
    const auto n = static_cast<std::size_t>(d);
    Napi::ArrayBuffer buf = Napi::ArrayBuffer::New(env, n * sizeof(std::uint64_t));
    auto* out = static_cast<std::uint64_t*>(buf.Data());
    std::size_t written = 0;
    if (!ok(env, idforge_snowflake_next_batch(h, out, n, &written))) return env.Undefined();
    napi_value arr;
    if (napi_create_typedarray(env, napi_biguint64_array, written, buf, 0, &arr) != napi_ok) {
      Napi::Error::New(env, "nextBatch: cannot make a BigUint64Array").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    return Napi::Value(env, arr);
  }

  Napi::Value Release(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    idforge_snowflake* h = live(env);
    if (h) ok(env, idforge_snowflake_release(h));
    return env.Undefined();
  }

  // Gives the node ID back (a leased one) and frees the generator; later calls throw.
  Napi::Value Close(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!handle_) return env.Undefined();
    const idforge_status s = idforge_snowflake_release(handle_);
    idforge_snowflake_free(handle_);
    handle_ = nullptr;
    ok(env, s);
    return env.Undefined();
  }

  Napi::Value Node(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    idforge_snowflake* h = live(env);
    std::uint64_t n;
    if (!h || !ok(env, idforge_snowflake_node(h, &n))) return env.Undefined();
    return Napi::Number::New(env, static_cast<double>(n));
  }

  Napi::Value Layout(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    idforge_snowflake* h = live(env);
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

  Napi::Value Closed(const Napi::CallbackInfo& info) {
    return Napi::Boolean::New(info.Env(), handle_ == nullptr);
  }

  idforge_snowflake* handle_ = nullptr;
};

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("uuid7", Napi::Function::New<Uuid7>(env, "uuid7"));
  exports.Set("ulid", Napi::Function::New<Ulid>(env, "ulid"));
  exports.Set("uuid4Block", Napi::Function::New<Uuid4Block>(env, "uuid4Block"));
  exports.Set("inspectJson", Napi::Function::New<InspectJson>(env, "inspectJson"));
  exports.Set("decompose", Napi::Function::New<Decompose>(env, "decompose"));
  exports.Set("Snowflake", Snowflake::Define(env));
  exports.Set("version", Napi::String::New(env, idforge_version()));
  return exports;
}

}  // namespace

NODE_API_MODULE(idforge, Init)
