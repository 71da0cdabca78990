// Database client libraries word their errors over several lines (libpq: "...failed:
// Connection refused\n\tIs the server running...", "ERROR: ...\nLINE 1: ...\n ^"). A
// message of ours is one line, so those are folded into it.
#pragma once

#include <string>
#include <string_view>

namespace idforge::ticket::detail {

/// text with each run of line breaks and the indentation after them turned into "; ",
/// and surrounding blanks trimmed.
std::string one_line(std::string_view text);

}  // namespace idforge::ticket::detail
