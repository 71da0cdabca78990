// Runs the idforge binary with arguments and captures stdout, stderr and the exit code
// (through test::run, tests/support/process.hpp).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "process.hpp"

namespace idforge::test {

using CommandResult = RunResult;

/// Where the child's standard output goes.
enum class StdoutTo {
  pipe,         ///< a pipe read to the end into CommandResult::out
  dev_full,     ///< /dev/full: every write fails with ENOSPC
  closed_pipe,  ///< a pipe whose reader is gone (as `| head -1` once head exited); SIGPIPE default
  closed_pipe_sigpipe_ignored,  ///< the same, but the child starts with SIGPIPE ignored
};

/// Runs IDFORGE_BINARY with args (no shell), waits for it and returns what it printed.
/// extra_env entries ("NAME=value") are added to the child's environment. exit_code is the
/// status, or 128 + the signal that ended it (as a shell reports it: SIGPIPE is 141). A
/// child still running after limit is killed (SIGKILL, exit_code 137), so a command that
/// should have refused to start cannot hang the test.
CommandResult run_idforge(const std::vector<std::string>& args,
                          const std::vector<std::string>& extra_env = {},
                          StdoutTo to = StdoutTo::pipe,
                          std::chrono::seconds limit = std::chrono::seconds(120));

}  // namespace idforge::test
