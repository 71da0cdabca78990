#include "idforge/server/mask_routes.hpp"

#include <fmt/core.h>

#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "idforge/error.hpp"
#include "idforge/public_id.hpp"
#include "idforge/server/router.hpp"
#include "idforge/server/server.hpp"

namespace idforge::server {
namespace {

struct Options {
  std::optional<MaskMode> mode;
  bool raw = false;
  PublicAlphabet alphabet = PublicAlphabet::base58;
  std::optional<unsigned> key_id;
};

Response bad_option(std::string_view name, std::string_view value, std::string_view rule) {
  return problem(400, "bad-mask-option", "Bad Request",
                 fmt::format("{}='{}': {}", name, value, rule));
}

// Reads the query; on a bad value returns the 400 to send. A parameter these routes do not
// take is refused rather than ignored: ?keyid=1 on a raw unmask would otherwise answer 200
// with the primary key's reading of the value, a wrong ID.
std::optional<Response> read_options(const Request& req, Options& o) {
  for (const std::string& name : req.query_names())
    if (name != "mode" && name != "form" && name != "alphabet" && name != "key_id")
      return problem(400, "bad-mask-option", "Bad Request",
                     fmt::format("unknown query parameter '{}{}': /v1/mask and /v1/unmask take "
                                 "mode, form, alphabet and key_id",
                                 name.substr(0, 64), name.size() > 64 ? "..." : ""));
  if (const auto m = req.query("mode"); m && *m != "auto") {
    if (*m != "u63" && *m != "u128" && *m != "v7")
      return bad_option("mode", *m, "expected auto, u63, u128 or v7");
    o.mode = parse_mask_mode(*m);
  }
  if (const auto f = req.query("form")) {
    if (*f != "public" && *f != "raw") return bad_option("form", *f, "expected public or raw");
    o.raw = *f == "raw";
  }
  if (const auto a = req.query("alphabet")) {
    if (*a != "base58" && *a != "base62")
      return bad_option("alphabet", *a, "expected base58 or base62");
    o.alphabet = parse_public_alphabet(*a);
  }
  if (const auto k = req.query("key_id")) {
    unsigned id = 0;
    const auto [p, ec] = std::from_chars(k->data(), k->data() + k->size(), id);
    if (k->empty() || ec != std::errc{} || p != k->data() + k->size() || id > MaskKey::kMaxId)
      return bad_option("key_id", *k, "expected a key ID from 0 to 57");
    o.key_id = id;
  }
  return std::nullopt;
}

Response no_key() {
  return problem(
      503, "no-mask-key", "Service Unavailable",
      "this server has no mask key: start it with mask-key-file (IDFORGE_MASK_KEY_FILE) or "
      "IDFORGE_MASK_KEYS");
}

// The key a request asks for (key_id), else the primary; nullptr with *err set when absent.
const MaskKey* pick_key(const MaskKeyring& keys, const Options& o, Response& err) {
  if (!o.key_id) return &keys.primary();
  if (const MaskKey* k = keys.find(*o.key_id)) return k;
  err = problem(400, "unknown-mask-key", "Bad Request",
                fmt::format("key_id={} is not in this server's keyring (it holds {})", *o.key_id,
                            keys.ids_text()));
  return nullptr;
}

Response from_error(const Error& e) {
  if (e.code() == errc::not_ours) return problem(404, "not-ours", "Not Found", e.what());
  return problem(400, "bad-id", "Bad Request", e.what());
}

Response text_or_json(const Request& req, const std::string& text, const nlohmann::json& j) {
  if (req.wants_text()) return Response{200, "text/plain; charset=utf-8", text + "\n", {}, {}};
  return Response{200, "application/json", j.dump(), {}, {}};
}

Response mask(const MaskKeyring* keys, const Request& req) {
  Options o;
  if (auto bad = read_options(req, o)) return *bad;
  if (!keys) return no_key();
  Response err;
  const MaskKey* key = pick_key(*keys, o, err);
  if (!key) return err;
  const std::string input(req.param("id"));
  try {
    const MaskInput in = parse_mask_input(input, o.mode);
    MaskValue masked;
    if (const MaskFault f = key->mask(in.mode, in.value, masked); f != MaskFault::ok)
      return problem(400, "bad-id", "Bad Request",
                     fmt::format("cannot mask '{}': {}", input, to_string(f)));
    const std::string masked_text = format_mask_value(in.mode, masked);
    const std::string public_id = to_public_id(*key, in.mode, in.value, o.alphabet);
    nlohmann::json j = {{"input", input},
                        {"mode", to_string(in.mode)},
                        {"key_id", key->id()},
                        {"public_id", public_id},
                        {"masked_str", masked_text}};
    if (in.mode == MaskMode::u63)
      j["masked"] = masked.low;
    else
      j["masked"] = masked_text;
    return text_or_json(req, o.raw ? masked_text : public_id, j);
  } catch (const Error& e) {
    return from_error(e);
  }
}

Response unmask(const MaskKeyring* keys, const Request& req) {
  Options o;
  if (auto bad = read_options(req, o)) return *bad;
  if (!keys) return no_key();
  const std::string input(req.param("id"));
  try {
    MaskMode mode;
    unsigned key_id;
    MaskValue value;
    if (o.raw || Uuid::try_parse(input)) {
      Response err;
      const MaskKey* key = pick_key(*keys, o, err);
      if (!key) return err;
      const MaskInput in = parse_masked_input(input, o.mode);
      if (const MaskFault f = key->unmask(in.mode, in.value, value); f != MaskFault::ok)
        return problem(400, "bad-id", "Bad Request",
                       fmt::format("cannot unmask '{}': {}", input, to_string(f)));
      mode = in.mode;
      key_id = key->id();
    } else {
      PublicIdInfo info;
      const PublicIdStatus s = read_public_id(*keys, input, o.alphabet, info);
      if (!s.ok()) {
        const std::string detail = public_id_message(s, input, o.alphabet, *keys, info);
        switch (s.fault) {
          case MaskFault::mistyped:
            return problem(400, "mistyped-id", "Bad Request", detail);
          case MaskFault::unknown_key:
            return problem(404, "unknown-mask-key", "Not Found", detail);
          case MaskFault::not_ours:
            return problem(404, "not-ours", "Not Found", detail);
          default:
            return problem(400, "bad-id", "Bad Request", detail);
        }
      }
      if (o.mode && *o.mode != info.mode)
        return problem(400, "bad-id", "Bad Request",
                       fmt::format("public ID '{}' is of mode {}, not {} (mode=)", input,
                                   to_string(info.mode), to_string(*o.mode)));
      if (o.key_id && *o.key_id != info.key_id)
        return problem(400, "bad-id", "Bad Request",
                       fmt::format("public ID '{}' was made with mask key {}, not {} (key_id=)",
                                   input, info.key_id, *o.key_id));
      mode = info.mode;
      key_id = info.key_id;
      value = info.value;
    }
    const std::string value_text = format_mask_value(mode, value);
    nlohmann::json j = {
        {"input", input}, {"mode", to_string(mode)}, {"key_id", key_id}, {"id_str", value_text}};
    if (mode == MaskMode::u63)
      j["id"] = value.low;
    else
      j["id"] = value_text;
    return text_or_json(req, value_text, j);
  } catch (const Error& e) {
    return from_error(e);
  }
}

}  // namespace

void add_mask_routes(Server& server, std::shared_ptr<const MaskKeyring> keys) {
  server.router().add("GET", "/v1/mask/{id}",
                      [keys](const Request& req) { return mask(keys.get(), req); });
  server.router().add("GET", "/v1/unmask/{id}",
                      [keys](const Request& req) { return unmask(keys.get(), req); });
}

}  // namespace idforge::server
