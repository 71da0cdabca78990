// Runs the idforge binary with arguments and captures stdout, stderr and the exit code.
#pragma once

#include <string>
#include <vector>

namespace idforge::test {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
  /// stdout split into lines (without the newlines).
  std::vector<std::string> lines() const;
};

/// Runs IDFORGE_BINARY with args (no shell), waits for it and returns what it printed.
/// extra_env entries ("NAME=value") are added to the child's environment.
CommandResult run_idforge(const std::vector<std::string>& args, const std::vector<std::string>& extra_env = {});

}  // namespace idforge::test
