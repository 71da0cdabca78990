#include "test_support.hpp"

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

namespace idforge::test {

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
  std::vector<std::string> argv{path};
  argv.insert(argv.end(), args.begin(), args.end());
  Child c;
  c.process = std::make_unique<Process>(argv);  // stdout a pipe, stderr inherited
  c.pid = c.process->pid();
  c.out_fd = c.process->out_fd();
  return c;
}

std::pair<int, std::string> finish(Child& c) {
  // Bounded like every wait here: a child that never ends is killed after ten minutes.
  const Finished f = finish_within(c, 600);
  return {f.code, f.out};
}

Finished finish_within(Child& c, double limit_s) {
  Finished f;
  const auto limit =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(limit_s));
  const auto t0 = std::chrono::steady_clock::now();
  f.out = c.process->read_rest(limit);
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      limit - (std::chrono::steady_clock::now() - t0));
  auto code = c.process->wait(std::max(left, std::chrono::milliseconds(0)));
  if (!code) {
    f.timed_out = true;
    code = c.process->stop(SIGKILL, std::chrono::seconds(10));
  }
  f.code = *code;
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
  std::vector<std::string> argv{other && *other ? other : IDFORGE_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  // Files, not pipes: a command that prints millions of lines never waits on the test.
  SpawnOptions o;
  o.out = Sink::file;
  o.out_file = c.out_path;
  o.err = Sink::file;
  o.err_file = c.err_path;
  c.process = std::make_unique<Process>(argv, o);
  c.pid = c.process->pid();
  return c;
}

CliRun wait_cli(CliChild& c, double limit_s) {
  CliRun r;
  const auto t0 = std::chrono::steady_clock::now();
  auto code = c.process->wait(std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::duration<double>(limit_s)));
  if (!code) {
    r.timed_out = true;
    code = c.process->stop(SIGKILL, std::chrono::seconds(10));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.exit_code = *code;
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
