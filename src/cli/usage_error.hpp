// One line for a command-line usage error (exit 2), naming the command it concerns.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace idforge::cli {

/// The message for e, raised while parsing root's arguments. A command that needs a
/// subcommand and got none says which it knows ("'nope' is not a command of 'idforge gen':
/// expected snowflake, uuid7, ..."); any other error is CLI11's text prefixed with the
/// command it was raised in ("gen uuid7: --count: 'abc' is not a whole number ...; see
/// 'idforge gen uuid7 --help'").
std::string usage_message(CLI::App& root, const CLI::ParseError& e);

}  // namespace idforge::cli
