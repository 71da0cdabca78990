#include "test_support.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace idforge::test {

std::optional<std::string> service_var(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

bool services_required() {
  const char* v = std::getenv("IDFORGE_REQUIRE_SERVICES");
  return v && std::string(v) == "1";
}

std::string unique_name(const std::string& prefix) {
  static std::atomic<int> n{0};
  return prefix + "_" + std::to_string(getpid()) + "_" + std::to_string(n.fetch_add(1));
}

std::vector<std::string> split_urls(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string u; std::getline(in, u, ',');)
    if (!u.empty()) out.push_back(u);
  return out;
}

std::string temp_dir() {
  char tmpl[] = "/tmp/idforge-ticket-test-XXXXXX";
  if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  return tmpl;
}

Child spawn(const std::string& path, const std::vector<std::string>& args) {
  int p[2];
  if (pipe(p) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, p[1], 1);
  posix_spawn_file_actions_addclose(&fa, p[0]);
  std::vector<std::string> argv_s{path};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  Child c;
  if (posix_spawn(&c.pid, path.c_str(), &fa, nullptr, argv.data(), environ) != 0)
    throw std::runtime_error("cannot start " + path);
  posix_spawn_file_actions_destroy(&fa);
  close(p[1]);
  c.out_fd = p[0];
  return c;
}

std::pair<int, std::string> finish(Child& c) {
  std::string out;
  char buf[65536];
  for (ssize_t n; (n = read(c.out_fd, buf, sizeof buf)) > 0;)
    out.append(buf, static_cast<std::size_t>(n));
  close(c.out_fd);
  int status = 0;
  waitpid(c.pid, &status, 0);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return {code, out};
}

Finished finish_within(Child& c, double limit_s) {
  Finished f;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  char buf[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          until - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      kill(c.pid, SIGKILL);
      f.timed_out = true;
      break;
    }
    pollfd p{c.out_fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000))) <= 0) continue;
    const ssize_t n = read(c.out_fd, buf, sizeof buf);
    if (n <= 0) break;
    f.out.append(buf, static_cast<std::size_t>(n));
  }
  close(c.out_fd);
  int status = 0;
  waitpid(c.pid, &status, 0);
  f.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return f;
}

std::string seq_worker() {
  const char* other = std::getenv("IDFORGE_SEQ_WORKER_UNDER_TEST");
  return other && *other ? other : IDFORGE_SEQ_WORKER;
}

std::vector<std::string> CliRun::lines() const {
  std::vector<std::string> v;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) v.push_back(line);
  return v;
}

CliChild start_cli(const std::vector<std::string>& args, const std::string& dir) {
  static std::atomic<int> n{0};
  CliChild c;
  const std::string base = dir + "/cli" + std::to_string(n.fetch_add(1));
  c.out_path = base + ".out";
  c.err_path = base + ".err";
  const char* other = std::getenv("IDFORGE_CLI_UNDER_TEST");
  const std::string path = other && *other ? other : IDFORGE_BINARY;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, c.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, c.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<std::string> argv_s{path};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  if (posix_spawn(&c.pid, path.c_str(), &fa, nullptr, argv.data(), environ) != 0)
    throw std::runtime_error("cannot start " + path);
  posix_spawn_file_actions_destroy(&fa);
  return c;
}

CliRun wait_cli(CliChild& c, double limit_s) {
  CliRun r;
  const auto t0 = std::chrono::steady_clock::now();
  const auto limit = t0 + std::chrono::duration<double>(limit_s);
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(c.pid, &status, WNOHANG);
    if (done == c.pid) break;
    if (std::chrono::steady_clock::now() > limit) {
      kill(c.pid, SIGKILL);
      waitpid(c.pid, &status, 0);
      r.timed_out = true;
      break;
    }
    // Polling a child process; the limit is a safety net, not a measured wait.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  const auto slurp = [](const std::string& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  r.out = slurp(c.out_path);
  r.err = slurp(c.err_path);
  unlink(c.out_path.c_str());
  unlink(c.err_path.c_str());
  return r;
}

CliRun run_cli(const std::vector<std::string>& args, double limit_s) {
  static const std::string dir = temp_dir();
  CliChild c = start_cli(args, dir);
  return wait_cli(c, limit_s);
}

}  // namespace idforge::test
