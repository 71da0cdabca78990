// ticket_errc: the error codes of the ticket wing, in their own std::error_category
// ("idforge.ticket"), thrown as idforge::Error like core's (e.code() == ticket_errc::...). Their
// numbers come from the one space all idforge categories share (a number means one thing wherever
// it appears; see errc in error.hpp), so the C ABI's status is the code's value.
#pragma once

#include <system_error>

namespace idforge {

/// What went wrong in the ticket wing, independent of the message text.
enum class ticket_errc {
  store_unreachable = 12,  ///< a ticket server or segment store did not answer
  not_found = 14,          ///< a named sequence, ticket set or record does not exist
  already_exists = 15,     ///< a named sequence or ticket set exists and must not be replaced
};

/// The std::error_category of ticket_errc ("idforge.ticket").
const std::error_category& ticket_error_category() noexcept;

/// Makes a std::error_code from a ticket_errc.
inline std::error_code make_error_code(ticket_errc e) noexcept {
  return {static_cast<int>(e), ticket_error_category()};
}

}  // namespace idforge

template <>
struct std::is_error_code_enum<idforge::ticket_errc> : std::true_type {};
