// A command started with its standard output closed (`>&-`): the database socket must not
// take fd 1 and receive the values. The write fails and is reported; exit 1.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "test_support.hpp"

namespace idforge::ticket {
namespace {

struct ShellRun {
  int code = -1;
  std::string err;
};

// Runs the idforge command with args (already shell-quoted) under sh with stdout closed.
ShellRun run_stdout_closed(const std::string& args) {
  const std::string dir = test::temp_dir();
  const char* other = std::getenv("IDFORGE_CLI_UNDER_TEST");
  const std::string bin = other && *other ? other : IDFORGE_BINARY;
  const std::string cmd = "timeout 60 '" + bin + "' " + args + " >&- 2>'" + dir + "/err'";
  const int st = std::system(cmd.c_str());
  ShellRun r;
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream in(dir + "/err");
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  return r;
}

constexpr const char* kBadFd = "cannot write to standard output: Bad file descriptor";

TEST(TicketClosedStdout, TicketNextReportsTheWriteInsteadOfWritingIntoTheSocket) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  const std::string url = test::split_urls(urls).at(0);
  const std::string name = test::unique_name("closed");
  auto r = test::run_cli({"ticket", "init", "--name", name, "--servers", url});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto s = run_stdout_closed("ticket next -n 3 --name " + name + " --servers '" + url + "'");
  EXPECT_EQ(s.code, 1) << s.err;
  EXPECT_NE(s.err.find(kBadFd), std::string::npos) << s.err;
}

TEST(TicketClosedStdout, SeqNextReportsTheWriteInsteadOfWritingIntoTheSocket) {
  IDFORGE_NEED_SERVICE(url, "IDFORGE_PG_URL");
  const std::string name = test::unique_name("closedseq");
  auto r = test::run_cli({"seq", "create", name, "--store", url});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto s = run_stdout_closed("seq next " + name + " -n 3 --store '" + url + "'");
  EXPECT_EQ(s.code, 1) << s.err;
  EXPECT_NE(s.err.find(kBadFd), std::string::npos) << s.err;
}

}  // namespace
}  // namespace idforge::ticket
