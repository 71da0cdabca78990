// Shared pieces of the ticket tests: where the servers are, unique names, child processes.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "process.hpp"
#include "services.hpp"

namespace idforge::test {

/// A sequence/ticket-set name unique to this process and call: tests share servers.
std::string unique_name(const std::string& prefix);
/// The URLs of a comma-separated list.
std::vector<std::string> split_urls(const std::string& list);
/// A fresh temporary folder.
std::string temp_dir();

/// A started child process with its stdout on a pipe (a Process; pid and out_fd are its).
struct Child {
  std::unique_ptr<Process> process;
  pid_t pid = -1;
  int out_fd = -1;
};
/// Starts path with args (argv[0] = path), stdout to a pipe, stderr inherited.
Child spawn(const std::string& path, const std::vector<std::string>& args);
/// Reads the child's stdout to the end and waits; returns {exit status, output}.
std::pair<int, std::string> finish(Child& c);
/// finish() with a limit: past limit_s the child is killed (SIGKILL); timed_out says so.
struct Finished {
  int code = -1;
  std::string out;
  bool timed_out = false;
};
Finished finish_within(Child& c, double limit_s);
/// The seq_worker program (IDFORGE_SEQ_WORKER_UNDER_TEST names another build's).
std::string seq_worker();

/// What one run of the idforge command printed.
struct CliRun {
  int exit_code = -1;  ///< 128 + signal when killed
  std::string out, err;
  bool timed_out = false;  ///< still running after the limit: killed (SIGKILL)
  double seconds = 0;      ///< how long it ran
  std::vector<std::string> lines() const;
};
/// Runs the idforge command (IDFORGE_CLI_UNDER_TEST names another binary, e.g. an older
/// build, to see a test fail on it) with args, killing it after limit_s seconds.
CliRun run_cli(const std::vector<std::string>& args, double limit_s = 60);
/// Starts the idforge command in the background (stdout and stderr to files under dir).
struct CliChild {
  std::unique_ptr<Process> process;
  pid_t pid = -1;
  std::string out_path, err_path;
};
CliChild start_cli(const std::vector<std::string>& args, const std::string& dir);
/// Waits for a background command up to limit_s (then kills it) and collects its output.
CliRun wait_cli(CliChild& c, double limit_s = 60);

}  // namespace idforge::test
