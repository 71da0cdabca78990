// Runs a function in N forked child processes and collects a fixed-size result from each
// over a pipe. The function runs in the child only; the parent waits (bounded by the
// test's own deadline inside fn).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace idforge::stress {

template <typename Result>
std::vector<Result> run_in_children(int n, const std::function<Result(int index)>& fn) {
  static_assert(std::is_trivially_copyable_v<Result>);
  std::vector<int> fds;
  std::vector<pid_t> pids;
  for (int i = 0; i < n; ++i) {
    int p[2];
    if (pipe(p) != 0) throw std::runtime_error("pipe failed");
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      close(p[0]);
      Result r = fn(i);
      const char* data = reinterpret_cast<const char*>(&r);
      for (std::size_t done = 0; done < sizeof r;) {
        const ssize_t w = write(p[1], data + done, sizeof r - done);
        if (w <= 0) _exit(3);
        done += static_cast<std::size_t>(w);
      }
      _exit(0);
    }
    close(p[1]);
    fds.push_back(p[0]);
    pids.push_back(pid);
  }
  std::vector<Result> results(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    char* data = reinterpret_cast<char*>(&results[i]);
    std::size_t done = 0;
    for (ssize_t r;
         done < sizeof(Result) && (r = read(fds[i], data + done, sizeof(Result) - done)) > 0;)
      done += static_cast<std::size_t>(r);
    close(fds[i]);
    int status = 0;
    waitpid(pids[i], &status, 0);
    if (done != sizeof(Result) || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
      throw std::runtime_error("child " + std::to_string(i) + " died without a report");
  }
  return results;
}

}  // namespace idforge::stress
