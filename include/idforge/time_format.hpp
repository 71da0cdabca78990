// ISO-8601 UTC with milliseconds, the one time format idforge prints.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace idforge {

/// Formats Unix ms as "YYYY-MM-DDTHH:MM:SS.mmmZ" (proleptic Gregorian, years 0000-9999);
/// a time after that range is "after 9999-12-31", one before it "before 0000-01-01".
std::string format_iso8601_ms(std::int64_t unix_ms);

/// Parses "YYYY-MM-DD", "YYYY-MM-DDTHH:MM:SS[.fff]Z" (or with +00:00) into Unix ms.
/// Throws ParseError naming the position and what was expected.
std::int64_t parse_iso8601_ms(std::string_view text);

}  // namespace idforge
