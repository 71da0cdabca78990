// Sequence and ticket set names from the command line, checked before any store is opened.
// (Only for commands built with idforge::ticket: header-only, so the CLI without it still
// builds.)
#pragma once

#include <string_view>

#include "idforge/detail/printable.hpp"
#include "idforge/error.hpp"
#include "idforge/ticket/sequence_name.hpp"

namespace idforge::cli {

/// The longest message about a name: a name of 100,000 characters is named by its ends
/// and its length, not repeated whole.
inline constexpr std::size_t kMaxNameMessage = 240;

/// Throws Error(errc::invalid_argument) unless name passes ticket::check_sequence_name();
/// the message is the library's, escaped, at most kMaxNameMessage bytes (its head names the value,
/// its tail the reason and the rule; see detail::shortened).
inline void check_name_option(std::string_view name) {
  try {
    ticket::check_sequence_name(name);
  } catch (const Error& e) {
    throw Error(e.code(), detail::shortened(detail::printable(e.what()), kMaxNameMessage));
  }
}

}  // namespace idforge::cli
