// Text from outside (arguments, files, store records, IDs in error messages) made safe to
// show on a terminal or in a log line. Core's parse errors quote input through it, so the
// CLI, the C ABI, Python and Node all say the same words, escaped the same way.
#pragma once

#include <string>
#include <string_view>

namespace idforge::detail {

/// text with everything a terminal would act on instead of show escaped, so one argument
/// or message stays one visible line: C0 controls and DEL as \n, \t, \r or \xNN; C1
/// controls (U+0080..U+009F) and the bidirectional overrides (U+202A..U+202E,
/// U+2066..U+2069) as \uXXXX; each byte that is not part of valid UTF-8 as \xNN. Printable
/// ASCII and valid UTF-8 pass through unchanged (a backslash stays one backslash).
std::string printable(std::string_view text);

/// message unchanged if it has at most max bytes; else its head (what failed, which store:
/// two fifths of max) and its tail (the cause, which comes last: "...: Connection refused"),
/// joined by "...", max bytes in all, never cutting a UTF-8 sequence. For messages that
/// may quote a long input more than once (a lease store URL, a path). max >= 16.
std::string shortened(std::string_view message, std::size_t max);

}  // namespace idforge::detail
