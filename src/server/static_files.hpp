// The web root: files served at / for GET and HEAD. The path arrives checked (target.hpp:
// no dot-segment, no empty segment, no encoded '/' or '\', no control byte), so joining it
// to the root cannot leave the root. Range is ignored (a full 200 is always a valid
// answer, RFC 9110 §14.2). Private to the server target.
#pragma once

#include <string>
#include <string_view>

#include "idforge/server/router.hpp"

namespace idforge::server::detail {

/// The answer for method and a decoded, checked path under root: 200 with the file, 404
/// when there is no regular file there, 405 for methods other than GET and HEAD.
Response serve_static(const std::string& root, std::string_view method, const std::string& path);

/// Whether a regular file answers path under root (for OPTIONS).
bool static_exists(const std::string& root, const std::string& path);

/// The Content-Type for a file name, by its extension.
std::string_view content_type_of(std::string_view name) noexcept;

}  // namespace idforge::server::detail
