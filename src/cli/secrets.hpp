// Secrets as the commands meet them: keyring files named where a path belongs (not a key
// pasted there), files that only their owner can read, and secrets kept off the command
// line, where `ps`, /proc/PID/cmdline and shell history show them to others.
#pragma once

#include <string>
#include <string_view>

namespace idforge::cli {

/// Why path cannot be a keyring file's path, or "" when it may be one: a value that looks
/// like a key (a run of 32 or more hex digits, or an ID:hex entry) and names no existing
/// file. The text never shows the value (for a validator: CLI11 puts the option's name
/// before it).
std::string key_file_problem(const std::string& path);

/// Throws CommandFailure (exit 1), "what: " and key_file_problem(), when there is one; else
/// warns as warn_if_readable_by_others() does. what names where the path came from (the
/// option, variable or setting).
void check_key_file(const std::string& path, const std::string& what);

/// One line on stderr naming the file and `chmod 600` when the regular file at path is
/// readable by its group or by others; nothing when it is not, or cannot be stat()ed (the
/// reader that opens it next says why).
void warn_if_readable_by_others(const std::string& path);

/// The same for standard output, when it is a regular file (a shell's `> mask.keys`);
/// advice names the better way (an option that creates the file 0600).
void warn_if_stdout_readable_by_others(std::string_view advice);

/// Writes text to a new file at path, created 0600 with O_EXCL: an existing file (or a
/// symlink) is refused, never overwritten or followed. Throws CommandFailure naming path.
void write_new_private_file(const std::string& path, std::string_view text);

/// One warning line on stderr: option carries a secret on the command line; instead names
/// where it belongs (an environment variable, a config file).
void warn_secret_on_command_line(std::string_view option, std::string_view instead);

}  // namespace idforge::cli
