// Shared pieces of the `idforge lab` commands: counts like 1e9, byte sizes, aligned tables,
// and writing the SVG file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace idforge::cli {

/// A positive count from "1000000", "1_000_000" or "1e6"; at most `max`. Throws
/// CommandFailure naming the option, the value and the rule.
std::uint64_t parse_count(const std::string& text, const std::string& option, std::uint64_t max);

/// 1536 -> "1.5 KiB", 16 MiB -> "16.0 MiB".
std::string human_bytes(double bytes);

/// 0.6931 -> "69.3%".
std::string percent(double fraction);

/// Rows as an aligned text table; numbers (cells starting with a digit) align right.
std::string format_table(const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows);

/// The most read_file reads: a lab run's JSON of 1,000 windows a kind is under 2 MiB.
inline constexpr std::uintmax_t kMaxReadBytes = std::uintmax_t{64} << 20;

/// The whole content of the regular file at path, at most kMaxReadBytes; a failure (missing,
/// a folder, a device such as /dev/zero, too large, unreadable) is a CommandFailure naming the
/// option, the path and the reason.
std::string read_file(const std::string& path, const std::string& option);

/// Fails now, as write_file would later, if path cannot be written: a long run checks its
/// output file before it starts. Leaves no file behind that was not there before.
void check_writable(const std::string& path, const std::string& option);

/// Writes content to path; a failure is a CommandFailure naming the path and the reason.
void write_file(const std::string& path, const std::string& content);

}  // namespace idforge::cli
