// Checks for numeric options, so a bad number is named with the rule it breaks.
//
// CLI11's own conversion reads numbers with strtoull(..., 0): "010" becomes 8 (octal), "-1"
// wraps to 2^64-1 and an overflow clamps silently, and its Range check says "Value abc not
// in range" for what is not a number at all. These validators accept decimal digits only,
// say whether the text is not a number or a number out of range, and rewrite the value to
// its canonical digits before CLI11 converts it.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace idforge::cli {

/// A whole number of decimal digits (no sign) from lo to hi; use with Option::transform.
CLI::Validator whole_number(std::uint64_t lo, std::uint64_t hi);

/// The same, with expected ("128 to 4096") in place of "lo to hi" in its messages: for an
/// option whose own rule is narrower and checked later with its reason, so that no message
/// names a range wider than the rule.
CLI::Validator whole_number(std::uint64_t lo, std::uint64_t hi, std::string expected);

/// A whole number of decimal digits, with '-' where lo < 0, from lo to hi; use with
/// Option::transform.
CLI::Validator signed_number(std::int64_t lo, std::int64_t hi);

/// A finite decimal number (digits, '.', exponent; no nan, inf or hex) from lo to hi; use
/// with Option::transform or Option::check.
CLI::Validator real_number(double lo, double hi);

}  // namespace idforge::cli
