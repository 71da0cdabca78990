#include "process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace idforge::test {
namespace {

using Clock = std::chrono::steady_clock;

int exit_code_of(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// The child's end of one output stream; parent_end is set for Sink::pipe.
struct Stream {
  int child_end = -1;
  int parent_end = -1;
};

Stream open_sink(Sink sink, const std::string& file) {
  Stream s;
  switch (sink) {
    case Sink::inherit:
      break;
    case Sink::pipe:
    case Sink::closed_pipe: {
      int p[2];
      if (::pipe2(p, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
      s.child_end = p[1];
      if (sink == Sink::pipe)
        s.parent_end = p[0];
      else
        ::close(p[0]);  // no reader: the child's first write meets a broken pipe
      break;
    }
    case Sink::null:
      s.child_end = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
      break;
    case Sink::dev_full:
      s.child_end = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
      break;
    case Sink::file:
      s.child_end = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      break;
  }
  if (sink != Sink::inherit && s.child_end < 0)
    throw std::runtime_error("cannot open the child's output: " + file);
  return s;
}

}  // namespace

Process::Process(const std::vector<std::string>& argv, const SpawnOptions& options) {
  if (argv.empty()) throw std::invalid_argument("Process: empty argv");
  int in_pipe[2] = {-1, -1};
  if (options.stdin_pipe && ::pipe2(in_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe failed");
  Stream out = open_sink(options.out, options.out_file);
  Stream err = open_sink(options.err, options.err_file);

  // The descriptors are close-on-exec; dup2 onto 0/1/2 clears the flag for the child's copy.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (in_pipe[0] >= 0) posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  if (out.child_end >= 0) posix_spawn_file_actions_adddup2(&actions, out.child_end, 1);
  if (err.child_end >= 0) posix_spawn_file_actions_adddup2(&actions, err.child_end, 2);

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t pipe_only;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  if (options.sigpipe == Sigpipe::default_action) {
    posix_spawnattr_setsigdefault(&attr, &pipe_only);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  }
  // An ignored disposition survives exec; it is set around the spawn and put back at once.
  struct sigaction ignore {};
  struct sigaction saved {};
  ignore.sa_handler = SIG_IGN;
  if (options.sigpipe == Sigpipe::ignored) ::sigaction(SIGPIPE, &ignore, &saved);

  std::vector<std::string> argv_s = argv;
  std::vector<char*> args;
  for (auto& a : argv_s) args.push_back(a.data());
  args.push_back(nullptr);
  std::vector<std::string> env_s(options.extra_env);  // first: getenv finds these
  for (char** e = environ; *e != nullptr; ++e) env_s.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);

  const int rc = ::posix_spawn(&pid_, args[0], &actions, &attr, args.data(), envp.data());
  if (options.sigpipe == Sigpipe::ignored) ::sigaction(SIGPIPE, &saved, nullptr);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close_fd(in_pipe[0]);
  close_fd(out.child_end);
  close_fd(err.child_end);
  in_ = in_pipe[1];
  out_ = out.parent_end;
  err_ = err.parent_end;
  if (rc != 0) {
    close_fd(in_);
    close_fd(out_);
    close_fd(err_);
    reaped_ = true;
    throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(rc));
  }
}

Process::~Process() {
  if (!reaped_) {
    ::kill(pid_, SIGCONT);  // a stopped child would not die of SIGKILL before it runs again
    ::kill(pid_, SIGKILL);
    reap(0);
  }
  close_fd(in_);
  close_fd(out_);
  close_fd(err_);
}

bool Process::reap(int options) {
  if (reaped_) return true;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, options);
  if (r != pid_) return false;
  reaped_ = true;
  code_ = exit_code_of(status);
  return true;
}

std::optional<std::string> Process::read_line(std::chrono::milliseconds timeout) {
  const auto end = Clock::now() + timeout;
  for (;;) {
    const auto nl = pending_out_.find('\n');
    if (nl != std::string::npos) {
      std::string line = pending_out_.substr(0, nl);
      pending_out_.erase(0, nl + 1);
      return line;
    }
    if (out_ < 0) return std::nullopt;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{out_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[4096];
    const ssize_t n = ::read(out_, buf, sizeof buf);
    if (n <= 0) return std::nullopt;
    pending_out_.append(buf, static_cast<std::size_t>(n));
  }
}

std::string Process::drain(int& fd, std::string& pending, std::chrono::milliseconds timeout) {
  const auto end = Clock::now() + timeout;
  std::string all = std::move(pending);
  pending.clear();
  char buf[65536];
  while (fd >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    all.append(buf, static_cast<std::size_t>(n));
  }
  return all;
}

std::string Process::read_rest(std::chrono::milliseconds timeout) {
  return drain(out_, pending_out_, timeout);
}

std::string Process::read_err(std::chrono::milliseconds timeout) {
  return drain(err_, pending_err_, timeout);
}

bool Process::write_stdin(const std::string& data) {
  if (in_ < 0) return false;
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(in_, data.data() + done, data.size() - done);
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

void Process::close_stdin() {
  close_fd(in_);
}

void Process::signal(int sig) {
  if (!reaped_) ::kill(pid_, sig);
}

bool Process::running() {
  return !reap(WNOHANG);
}

std::optional<int> Process::wait(std::chrono::milliseconds timeout) {
  const auto end = Clock::now() + timeout;
  while (!reap(WNOHANG)) {
    if (Clock::now() >= end) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // polling a child process
  }
  return code_;
}

int Process::stop(int sig, std::chrono::milliseconds timeout) {
  signal(sig);
  if (auto code = wait(timeout)) return *code;
  signal(SIGCONT);
  signal(SIGKILL);
  reap(0);
  return code_;
}

std::vector<std::string> RunResult::lines() const {
  std::vector<std::string> v;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) v.push_back(line);
  return v;
}

RunResult run(const std::vector<std::string>& argv, SpawnOptions options,
              std::chrono::milliseconds limit) {
  RunResult r;
  const auto t0 = Clock::now();
  const auto end = t0 + limit;
  Process child(argv, options);
  // Both pipes are read in one poll loop, so neither can fill up and stall the child.
  struct Reading {
    int fd;
    std::string* into;
  } reading[2] = {{child.out_fd(), &r.out}, {child.err_fd(), &r.err}};
  char buf[65536];
  for (;;) {
    if (!r.timed_out && Clock::now() >= end) {
      child.signal(SIGCONT);
      child.signal(SIGKILL);
      r.timed_out = true;
    }
    // Past the limit, a grandchild could still hold a pipe open: read for a moment more.
    if (r.timed_out && Clock::now() >= end + std::chrono::seconds(5)) break;
    pollfd p[2];
    Reading* which[2];
    nfds_t n = 0;
    for (auto& rd : reading)
      if (rd.fd >= 0) {
        which[n] = &rd;
        p[n++] = pollfd{rd.fd, POLLIN, 0};
      }
    if (n == 0) break;
    if (::poll(p, n, 100) <= 0) continue;
    for (nfds_t i = 0; i < n; ++i) {
      if (p[i].revents == 0) continue;
      const ssize_t got = ::read(p[i].fd, buf, sizeof buf);
      if (got <= 0)
        which[i]->fd = -1;  // EOF: Process closes the descriptor
      else
        which[i]->into->append(buf, static_cast<std::size_t>(got));
    }
  }
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
  std::optional<int> code = child.wait(std::max(left, std::chrono::milliseconds(0)));
  if (!code) {
    r.timed_out = true;
    code = child.stop(SIGKILL, std::chrono::seconds(10));
  }
  r.exit_code = *code;
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

int run_shell(const std::string& command, std::chrono::milliseconds limit) {
  SpawnOptions o;
  o.out = Sink::inherit;
  return run({"/bin/sh", "-c", command}, o, limit).exit_code;
}

std::string find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  for (std::size_t start = 0; start <= p.size();) {
    auto end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    const std::string candidate = p.substr(start, end - start) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

}  // namespace idforge::test
