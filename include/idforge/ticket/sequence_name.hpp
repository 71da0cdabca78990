// Names of sequences and ticket sets become SQL identifiers (a PostgreSQL sequence, a
// MariaDB table), so they are checked once, up front, against one rule.
#pragma once

#include <string_view>

namespace idforge::ticket {

/// Longest accepted name: PostgreSQL identifiers hold 63 bytes, less our prefix.
inline constexpr std::size_t kMaxSequenceName = 40;

/// Throws errc::invalid_argument unless name is 1..40 characters of [a-z0-9_] starting
/// with a letter; the message names the value and the rule. Returns name.
std::string_view check_sequence_name(std::string_view name);

}  // namespace idforge::ticket
