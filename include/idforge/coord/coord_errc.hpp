// coord_errc: the error codes of the coord wing, in their own std::error_category
// ("idforge.coord"), thrown as idforge::Error like core's (e.code() == coord_errc::...). Their
// numbers come from the one space all idforge categories share (a number means one thing wherever
// it appears; see errc in error.hpp), so the C ABI's status is the code's value.
#pragma once

#include <system_error>

namespace idforge {

/// What went wrong in the coord wing, independent of the message text.
enum class coord_errc {
  lease_error = 11,        ///< a node-ID lease could not be acquired, renewed or kept
  store_unreachable = 12,  ///< the lease store (Redis, etcd, the lease file) did not answer
};

/// The std::error_category of coord_errc ("idforge.coord").
const std::error_category& coord_error_category() noexcept;

/// Makes a std::error_code from a coord_errc.
inline std::error_code make_error_code(coord_errc e) noexcept {
  return {static_cast<int>(e), coord_error_category()};
}

}  // namespace idforge

template <>
struct std::is_error_code_enum<idforge::coord_errc> : std::true_type {};
