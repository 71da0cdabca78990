// The JSON form of an Inspection, shared by `idforge inspect --json` and the service's
// GET /v1/inspect/{id}, so both always print the same fields. Header-only on purpose: it
// needs nlohmann-json, which idforge::core does not link; only its users include this.
#pragma once

#include <nlohmann/json.hpp>

#include "idforge/inspect.hpp"

namespace idforge {

/// input, kind, canonical, unix_ms (when the kind has a time), then every decoded field:
/// numbers as JSON numbers, the rest as strings. Keys keep the order of the Inspection.
inline nlohmann::ordered_json inspection_to_json(const Inspection& in) {
  nlohmann::ordered_json j;
  j["input"] = in.input;
  j["kind"] = in.kind;
  j["canonical"] = in.canonical;
  if (in.unix_ms) j["unix_ms"] = *in.unix_ms;
  for (const auto& f : in.fields) {
    if (f.name == "unix_ms") continue;
    if (f.numeric) j[f.name] = *f.numeric;
    else j[f.name] = f.text;
  }
  return j;
}

}  // namespace idforge
