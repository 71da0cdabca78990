// Small helpers shared by the commands: layout option parsing and the error exit.
#pragma once

#include <cstdint>
#include <string>

#include "idforge/snowflake_layout.hpp"

namespace idforge::cli {

/// Exit code for bad input or a refused operation (usage errors exit 2 via CLI11).
inline constexpr int kExitFailure = 1;

/// Thrown by a command to end with a one-line message and an exit code.
struct CommandFailure {
  std::string message;
  int code = kExitFailure;
};

/// The layout named by --layout (preset or spec).
Layout layout_from_option(const std::string& spec);

}  // namespace idforge::cli
