// lab_errc: the error codes of the lab wing, in their own std::error_category ("idforge.lab"),
// thrown as idforge::Error like core's (e.code() == lab_errc::...). Their numbers come from the
// one space all idforge categories share (a number means one thing wherever it appears; see
// errc in error.hpp), so the C ABI's status is the code's value.
#pragma once

#include <system_error>

namespace idforge {

/// What went wrong in the lab wing, independent of the message text.
enum class lab_errc {
  store_unreachable = 12,  ///< a database under test, or a lab server or cgroup, did not answer
  already_exists = 15,     ///< a memory cgroup the lab would create is in use by another run
};

/// The std::error_category of lab_errc ("idforge.lab").
const std::error_category& lab_error_category() noexcept;

/// Makes a std::error_code from a lab_errc.
inline std::error_code make_error_code(lab_errc e) noexcept {
  return {static_cast<int>(e), lab_error_category()};
}

}  // namespace idforge

template <>
struct std::is_error_code_enum<idforge::lab_errc> : std::true_type {};
