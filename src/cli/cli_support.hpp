// Small helpers shared by the commands: layout option parsing and the error exits.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "idforge/snowflake_layout.hpp"

namespace idforge::cli {

/// Exit code for bad input or a refused operation.
inline constexpr int kExitFailure = 1;
/// Exit code for a usage error (an unknown command or option, a malformed option value).
inline constexpr int kExitUsage = 2;

/// The most IDs one `idforge gen` prints.
inline constexpr std::uint64_t kMaxCount = 100'000'000;

/// Thrown by a command to end with a one-line message and an exit code.
struct CommandFailure {
  std::string message;
  int code = kExitFailure;
};

/// The layout named by --layout (preset or spec).
Layout layout_from_option(const std::string& spec);

/// Lets cmd take its positional arguments as IDs exactly as written. (A CLI11 vector option
/// would read "[a,b]" as the list a, b; brackets are no ID form, so such an argument must
/// reach the parser whole and be refused there.) what describes the IDs in --help.
void take_ids_as_written(CLI::App* cmd, const std::string& what);

/// The IDs given to cmd, in order: its arguments, then those after "--". Throws
/// CLI::ExtrasError for an unknown option (an argument before "--" starting with '-') and
/// CLI::RequiredError when there is none.
std::vector<std::string> ids_as_written(CLI::App* cmd);

/// Parses argv the POSIX way around "--": what follows it is handed, untouched, to the command
/// that takes IDs (ids_as_written), even "-abc" or "--json"; a command that takes no IDs is
/// refused with CLI::ExtrasError before it runs. (CLI11 2.1 ends a subcommand at "--" and
/// hands the rest to the root, which refuses it.)
void parse_with_ids_after_marker(CLI::App& app, int argc, char** argv);

}  // namespace idforge::cli
