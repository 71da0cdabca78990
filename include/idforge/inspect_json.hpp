// The JSON form of an Inspection, shared by `idforge inspect --json` and the service's
// GET /v1/inspect/{id}, so both always print the same fields. Header-only on purpose: it
// needs nlohmann-json, which idforge::core does not link; only its users include this.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "idforge/inspect.hpp"

namespace idforge {

/// input, kind, canonical, unix_ms (when the kind has a time), then every decoded field:
/// numbers as JSON numbers, true/false as JSON booleans, the rest as strings. Keys keep the order
/// of the Inspection.
inline nlohmann::ordered_json inspection_to_json(const Inspection& in) {
  nlohmann::ordered_json j;
  j["input"] = in.input;
  j["kind"] = in.kind;
  j["canonical"] = in.canonical;
  if (in.unix_ms) j["unix_ms"] = *in.unix_ms;
  for (const auto& f : in.fields) {
    if (f.name == "unix_ms") continue;
    if (f.numeric)
      j[f.name] = *f.numeric;
    else if (f.boolean)
      j[f.name] = f.text == "true";
    else
      j[f.name] = f.text;
  }
  return j;
}

/// The warning shown for an ID that carries its creation time: anyone who sees it learns
/// when it was made, and the next one is guessable from it (seed 000: never use Snowflake
/// or UUIDv7 for secrets). nullopt for IDs without a time (UUIDv4, ...), and for a time
/// more than a day ahead (time_in_future): such text is as likely a random token of the same
/// shape, and telling a token's owner it "reveals its creation time" would be false; the
/// "note" field says what is known instead.
inline std::optional<std::string> secret_warning(const Inspection& in) {
  if (!in.unix_ms || in.time_in_future) return std::nullopt;
  return "reveals its creation time; must not be used as a secret (reset link, API key, "
         "invite URL): use 'idforge gen token'";
}

/// inspection_to_json plus the secret warning where it applies: what `idforge inspect
/// --json` prints and `/v1/inspect` answers, so the two always agree.
inline nlohmann::ordered_json inspection_to_json_with_warning(const Inspection& in) {
  auto j = inspection_to_json(in);
  if (const auto w = secret_warning(in)) j["warning"] = *w;
  return j;
}

}  // namespace idforge
