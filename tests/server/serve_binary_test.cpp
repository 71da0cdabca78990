// `idforge serve` as a process: prints its URL, serves, stops cleanly on SIGTERM, and
// refuses to bind beyond loopback without a token.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <regex>

#include "live_server.hpp"

namespace idforge::test {
namespace {

struct Child {
  pid_t pid = -1;
  int out = -1;  // read end of its stdout
};

// env entries ("NAME=value") are set in the child before it starts idforge.
Child spawn(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  Child c;
  c.pid = ::fork();
  if (c.pid == 0) {
    ::dup2(fds[1], STDOUT_FILENO);
    ::close(fds[0]);
    ::close(fds[1]);
    for (const auto& e : env) {
      const auto eq = e.find('=');
      ::setenv(e.substr(0, eq).c_str(), e.substr(eq + 1).c_str(), 1);
    }
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(IDFORGE_BINARY));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(IDFORGE_BINARY, argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  c.out = fds[0];
  return c;
}

int wait_exit(pid_t pid, int timeout_s) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int status = 0;
  while (std::chrono::steady_clock::now() < end) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polling a child process
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return -1;
}

TEST(ServeBinary, PrintsUrlServesAndStopsOnSigterm) {
  Child c = spawn({"serve", "--port", "0", "--access-log", "off", "--node", "3"});
  std::string line;
  char ch;
  while (::read(c.out, &ch, 1) == 1 && ch != '\n') line += ch;
  std::smatch m;
  ASSERT_TRUE(std::regex_match(line, m, std::regex(R"(idforge serve: listening on http://127\.0\.0\.1:(\d+)/)"))) << line;
  const int port = std::stoi(m[1]);
  httplib::Client cli("127.0.0.1", port);
  auto r = cli.Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  auto ready = cli.Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200);
  ::kill(c.pid, SIGTERM);
  EXPECT_EQ(wait_exit(c.pid, 10), 0);
  ::close(c.out);
}

#ifdef IDFORGE_SERVER_HAVE_LEASE
TEST(ServeBinary, DefaultLeasesANodeUnderTheDataFolderAndReleasesIt) {
  const std::string data = ::testing::TempDir() + "/idforge_serve_data";
  Child c = spawn({"serve", "--port", "0", "--access-log", "off", "--data", data});
  std::string line;
  char ch;
  while (::read(c.out, &ch, 1) == 1 && ch != '\n') line += ch;
  std::smatch m;
  ASSERT_TRUE(std::regex_match(line, m, std::regex(R"(idforge serve: listening on http://127\.0\.0\.1:(\d+)/)"))) << line;
  httplib::Client cli("127.0.0.1", std::stoi(m[1]));
  auto ready = cli.Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200);
  auto metrics = cli.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("idforge_lease_held 1\n"), std::string::npos);
  ::kill(c.pid, SIGTERM);
  EXPECT_EQ(wait_exit(c.pid, 10), 0);
  ::close(c.out);
  // Released: a second server gets the same (lowest free) node ID at once.
  Child again = spawn({"serve", "--port", "0", "--access-log", "off", "--data", data});
  line.clear();
  while (::read(again.out, &ch, 1) == 1 && ch != '\n') line += ch;
  EXPECT_NE(line.find("listening on"), std::string::npos);
  ::kill(again.pid, SIGTERM);
  EXPECT_EQ(wait_exit(again.pid, 10), 0);
  ::close(again.out);
}
#endif

// Reads the "listening on" line and returns the port, or 0.
int read_port(const Child& c) {
  std::string line;
  char ch;
  while (::read(c.out, &ch, 1) == 1 && ch != '\n') line += ch;
  std::smatch m;
  if (!std::regex_match(line, m,
                        std::regex(R"(idforge serve: listening on http://127\.0\.0\.1:(\d+)/)")))
    return 0;
  return std::stoi(m[1]);
}

TEST(ServeBinary, MasksWithKeysFromAFileOrTheEnvironment) {
  const std::string key = "4:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
  const std::string file = ::testing::TempDir() + "/idforge_serve_mask_keys";
  std::ofstream(file) << key << "\n";
  const std::vector<std::string> base = {"serve", "--port", "0", "--access-log",
                                         "off",   "--node", "3"};
  std::vector<std::string> with_file = base;
  with_file.insert(with_file.end(), {"--mask-key-file", file});
  std::string first;
  for (const auto& [args, env] :
       {std::pair{with_file, std::vector<std::string>{"IDFORGE_MASK_KEYS="}},
        std::pair{base, std::vector<std::string>{"IDFORGE_MASK_KEYS=" + key,
                                                 "IDFORGE_MASK_KEY_FILE="}}}) {
    Child c = spawn(args, env);
    const int port = read_port(c);
    ASSERT_NE(port, 0);
    httplib::Client cli("127.0.0.1", port);
    auto r = cli.Get("/v1/mask/4001", {{"Accept", "text/plain"}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << r->body;
    if (first.empty()) first = r->body;
    EXPECT_EQ(r->body, first) << "the file and the variable hold the same key";
    auto back =
        cli.Get("/v1/unmask/" + r->body.substr(0, r->body.size() - 1), {{"Accept", "text/plain"}});
    ASSERT_TRUE(back);
    EXPECT_EQ(back->body, "4001\n");
    ::kill(c.pid, SIGTERM);
    EXPECT_EQ(wait_exit(c.pid, 10), 0);
    ::close(c.out);
  }
  std::remove(file.c_str());
}

TEST(ServeBinary, RefusesToStartWithABadMaskKeyFile) {
  Child c = spawn({"serve", "--port", "0", "--access-log", "off", "--node", "3", "--mask-key-file",
                   "/nonexistent/idforge-keys"});
  EXPECT_EQ(wait_exit(c.pid, 10), 1);
  ::close(c.out);
}

TEST(ServeBinary, RefusesToBindBeyondLoopbackWithoutToken) {
  Child c = spawn({"serve", "--bind", "0.0.0.0", "--port", "0"});
  EXPECT_EQ(wait_exit(c.pid, 10), 1);
  ::close(c.out);
}

}  // namespace
}  // namespace idforge::test
