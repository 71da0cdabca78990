#include "run_command.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sstream>
#include <stdexcept>

extern char** environ;

namespace idforge::test {
namespace {

std::string read_all(int fd) {
  std::string s;
  char buf[65536];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) s.append(buf, static_cast<std::size_t>(n));
  return s;
}

}  // namespace

std::vector<std::string> CommandResult::lines() const {
  std::vector<std::string> v;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) v.push_back(line);
  return v;
}

CommandResult run_idforge(const std::vector<std::string>& args, const std::vector<std::string>& extra_env) {
  // stderr goes to a temporary file so a large stdout cannot deadlock against it.
  char err_path[] = "/tmp/idforge-cli-test-XXXXXX";
  const int err_fd = mkstemp(err_path);
  unlink(err_path);
  int out_pipe[2];
  if (err_fd < 0 || pipe(out_pipe) != 0) throw std::runtime_error("pipe/mkstemp failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
  posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
  std::vector<std::string> argv_s{IDFORGE_BINARY};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s(extra_env);
  for (char** e = environ; *e != nullptr; ++e) env_s.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid;
  if (posix_spawn(&pid, IDFORGE_BINARY, &actions, nullptr, argv.data(), envp.data()) != 0)
    throw std::runtime_error("cannot start " IDFORGE_BINARY);
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  CommandResult r;
  r.out = read_all(out_pipe[0]);
  close(out_pipe[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  lseek(err_fd, 0, SEEK_SET);
  r.err = read_all(err_fd);
  close(err_fd);
  return r;
}

}  // namespace idforge::test
