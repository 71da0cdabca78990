#include "run_command.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

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

CommandResult run_idforge(const std::vector<std::string>& args,
                          const std::vector<std::string>& extra_env, StdoutTo to,
                          std::chrono::seconds limit) {
  // stderr goes to a temporary file so a large stdout cannot deadlock against it.
  char err_path[] = "/tmp/idforge-cli-test-XXXXXX";
  const int err_fd = mkstemp(err_path);
  unlink(err_path);
  int out_pipe[2];
  if (err_fd < 0 || pipe(out_pipe) != 0) throw std::runtime_error("pipe/mkstemp failed");
  int child_out = out_pipe[1];
  if (to == StdoutTo::dev_full) {
    child_out = open("/dev/full", O_WRONLY | O_CLOEXEC);
    if (child_out < 0) throw std::runtime_error("cannot open /dev/full");
  }
  if (to == StdoutTo::closed_pipe || to == StdoutTo::closed_pipe_sigpipe_ignored) {
    close(out_pipe[0]);  // no reader: the child's first write meets a broken pipe
    out_pipe[0] = -1;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, child_out, 1);
  posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
  if (out_pipe[0] >= 0) posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
  // The test runner may itself run with SIGPIPE ignored; the child gets the disposition the
  // case names: default for closed_pipe (a shell pipeline), ignored for the other case.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t pipe_only;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  struct sigaction ignore {
  }, saved{};
  ignore.sa_handler = SIG_IGN;
  if (to == StdoutTo::closed_pipe) {
    posix_spawnattr_setsigdefault(&attr, &pipe_only);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  }
  if (to == StdoutTo::closed_pipe_sigpipe_ignored)
    sigaction(SIGPIPE, &ignore, &saved);  // inherited by exec
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
  const int spawned = posix_spawn(&pid, IDFORGE_BINARY, &actions, &attr, argv.data(), envp.data());
  if (to == StdoutTo::closed_pipe_sigpipe_ignored) sigaction(SIGPIPE, &saved, nullptr);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (spawned != 0) throw std::runtime_error("cannot start " IDFORGE_BINARY);
  close(out_pipe[1]);
  if (child_out != out_pipe[1]) close(child_out);
  // The watchdog kills the child at the limit; it is only signalled, never reaped, by it.
  std::mutex m;
  std::condition_variable cv;
  bool finished = false;
  std::thread watchdog([&] {
    std::unique_lock lock(m);
    if (!cv.wait_for(lock, limit, [&] { return finished; })) kill(pid, SIGKILL);
  });
  CommandResult r;
  if (out_pipe[0] >= 0) {
    r.out = read_all(out_pipe[0]);
    close(out_pipe[0]);
  }
  // Wait without reaping first, so the watchdog can never signal a reused pid.
  siginfo_t info{};
  waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT);
  {
    std::lock_guard lock(m);
    finished = true;
  }
  cv.notify_one();
  watchdog.join();
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  lseek(err_fd, 0, SEEK_SET);
  r.err = read_all(err_fd);
  close(err_fd);
  return r;
}

}  // namespace idforge::test
