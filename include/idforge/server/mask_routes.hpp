// GET /v1/mask/{id} and GET /v1/unmask/{id}: keyed public IDs (idforge/public_id.hpp) over
// HTTP, with the same rules as `idforge mask` and `idforge unmask`. Under /v1, so the
// bearer token guards them when the server has one.
//
//   /v1/mask/{value}?mode=auto|u63|u128|v7&form=public|raw&alphabet=base58|base62&key_id=N
//     200 {"input","mode","key_id","public_id","masked","masked_str"}; text/plain: the
//     public ID (form=public) or the masked value (form=raw)
//   /v1/unmask/{id}?mode=...&form=...&alphabet=...&key_id=N
//     200 {"input","mode","key_id","id","id_str"}; text/plain: the value
//
// Errors (RFC 9457 problems): 400 bad-mask-option, bad-id, mistyped-id, unknown-mask-key
// (key_id not in the keyring); 404 unknown-mask-key (a public ID of a key this server does
// not hold) and not-ours (its keyed check fails); 503 no-mask-key (no keyring configured).
#pragma once

#include <memory>

#include "idforge/mask_keyring.hpp"

namespace idforge::server {

class Server;

/// Registers both routes on server; keys == nullptr makes them answer 503 no-mask-key
/// (the server runs without masking until a key is configured).
void add_mask_routes(Server& server, std::shared_ptr<const MaskKeyring> keys);

}  // namespace idforge::server
