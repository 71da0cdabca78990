// A child process never repeats its parent's v4, v7 or ULID values: the parent draws random
// bytes first (so its stream is mid-buffer when it forks), then parent and child each make
// 100k of each kind from the generators they share through fork(); the child sends its IDs
// back over a pipe and no value may appear on both sides.
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "idforge/detail/fork_epoch.hpp"
#include "idforge/random.hpp"
#include "idforge/snowflake_generator.hpp"
#include "idforge/ulid_generator.hpp"
#include "idforge/uuid_generator.hpp"

namespace idforge {
namespace {

constexpr std::size_t kEach = 100'000;

struct Made {
  std::vector<Uuid> v4, v7, v7_shared;
  std::vector<Ulid> ulid, ulid_shared;
};

Made make_all(UuidV7Generator& v7, SharedUuidV7Generator& v7s, UlidGenerator& ul,
              SharedUlidGenerator& uls) {
  Made m;
  m.v4.resize(kEach);
  m.v7.resize(kEach);
  m.v7_shared.resize(kEach);
  m.ulid.resize(kEach);
  m.ulid_shared.resize(kEach);
  for (std::size_t i = 0; i < kEach; ++i) {
    m.v4[i] = new_uuid_v4();
    m.v7[i] = v7.next();
    m.v7_shared[i] = v7s.next();
    m.ulid[i] = ul.next();
    m.ulid_shared[i] = uls.next();
  }
  return m;
}

template <class T>
void write_all(int fd, const std::vector<T>& v) {
  const char* p = reinterpret_cast<const char*>(v.data());
  std::size_t left = v.size() * sizeof(T);
  while (left > 0) {
    const ssize_t n = write(fd, p, left);
    if (n <= 0) _exit(3);
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

template <class T>
bool read_all(int fd, std::vector<T>& v) {
  v.resize(kEach);
  char* p = reinterpret_cast<char*>(v.data());
  std::size_t left = v.size() * sizeof(T);
  while (left > 0) {
    const ssize_t n = read(fd, p, left);
    if (n <= 0) return false;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

template <class T>
std::size_t common(std::vector<T> a, std::vector<T> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::vector<T> both;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
  return both.size();
}

template <class T>
bool increasing(const std::vector<T>& v) {
  return std::adjacent_find(v.begin(), v.end(), [](const T& a, const T& b) { return !(a < b); }) ==
         v.end();
}

// fork() runs the pthread_atfork handlers; the raw system call does not (nor does clone()
// without CLONE_VM), so only the wipe-on-fork page can tell such a child it is one.
pid_t plain_fork() {
  return fork();
}
pid_t raw_fork() {
  return static_cast<pid_t>(syscall(SYS_fork));
}

void check_fork(Clock& clock, pid_t (*do_fork)() = plain_fork) {
  UuidV7Generator v7(clock);
  SharedUuidV7Generator v7s(clock);
  UlidGenerator ul(clock);
  SharedUlidGenerator uls(clock);
  // The parent has drawn from its stream and its generators before the fork.
  for (int i = 0; i < 1000; ++i) {
    random_u64();
    v7.next();
    v7s.next();
    ul.next();
    uls.next();
  }
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = do_fork();
  ASSERT_TRUE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    const Made m = make_all(v7, v7s, ul, uls);
    write_all(fds[1], m.v4);
    write_all(fds[1], m.v7);
    write_all(fds[1], m.v7_shared);
    write_all(fds[1], m.ulid);
    write_all(fds[1], m.ulid_shared);
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  const Made parent = make_all(v7, v7s, ul, uls);
  Made child;
  const bool got = read_all(fds[0], child.v4) && read_all(fds[0], child.v7) &&
                   read_all(fds[0], child.v7_shared) && read_all(fds[0], child.ulid) &&
                   read_all(fds[0], child.ulid_shared);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(got) << "the child did not send all its IDs";
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  EXPECT_EQ(common(parent.v4, child.v4), 0u);
  EXPECT_EQ(common(parent.v7, child.v7), 0u);
  EXPECT_EQ(common(parent.v7_shared, child.v7_shared), 0u);
  EXPECT_EQ(common(parent.ulid, child.ulid), 0u);
  EXPECT_EQ(common(parent.ulid_shared, child.ulid_shared), 0u);
  // Each side stays monotonic on its own, the child continuing after what it inherited.
  for (const Made* m : {&parent, static_cast<const Made*>(&child)}) {
    EXPECT_TRUE(increasing(m->v7));
    EXPECT_TRUE(increasing(m->v7_shared));
    EXPECT_TRUE(increasing(m->ulid));
    EXPECT_TRUE(increasing(m->ulid_shared));
  }
}

TEST(ForkUniqueness, ParentAndChildShareNoValue) {
  check_fork(SystemClock::instance());
}

// With the clock frozen both processes stay in the inherited millisecond: without the
// generators' own fork handling, parent and child would continue the same ULID increments.
TEST(ForkUniqueness, ParentAndChildShareNoValueWithAFrozenClock) {
  ManualClock frozen(1'700'000'000'000 * 1'000'000LL);
  check_fork(frozen);
}

TEST(ForkUniqueness, ParentAndChildShareNoValueAfterARawForkSystemCall) {
  check_fork(SystemClock::instance(), raw_fork);
}

TEST(ForkUniqueness, ParentAndChildShareNoValueAfterARawForkWithAFrozenClock) {
  ManualClock frozen(1'700'000'000'000 * 1'000'000LL);
  check_fork(frozen, raw_fork);
}

// Where the kernel refuses MADV_WIPEONFORK (before 4.14, gVisor, a seccomp policy) the pid
// check stands in for the page. Each test runs in a child of its own, so the switch to the
// fallback stays out of the other tests' process.
template <class Body>
void in_pid_check_mode(Body body) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    detail::use_pid_fork_check();
    ASSERT_EQ(detail::g_fork_page.load(), nullptr);
    body();
    _exit(::testing::Test::HasFailure() ? 1 : 0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "the test child died, status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "a check failed in the test child (above)";
}

TEST(ForkWithoutWipeOnFork, ARawForkChildSharesNoValue) {
  in_pid_check_mode([] { check_fork(SystemClock::instance(), raw_fork); });
}

TEST(ForkWithoutWipeOnFork, ARawForkChildSharesNoValueWithAFrozenClock) {
  in_pid_check_mode([] {
    ManualClock frozen(1'700'000'000'000 * 1'000'000LL);
    check_fork(frozen, raw_fork);
  });
}

TEST(ForkWithoutWipeOnFork, ASnowflakeRefusesInARawForkChild) {
  in_pid_check_mode([] {
    SharedSnowflakeGenerator g(presets::twitter(), 1);
    g.next();
    const pid_t pid = raw_fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // The atfork handler did not run, and there is no page: only the pid tells.
      int code = 0;
      try {
        g.next();
        code = 2;
      } catch (const Error& e) {
        code = e.code() == errc::forked ? 0 : 3;
      }
      _exit(code);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "the raw-fork child issued a Snowflake with its parent's node (status " << status << ")";
    g.next();  // the parent goes on
  });
}

TEST(ForkWithoutWipeOnFork, APlainForkIsCountedOnce) {
  in_pid_check_mode([] {
    SharedSnowflakeGenerator g(presets::twitter(), 1);
    const std::uint64_t before = detail::fork_epoch();
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // The atfork handler counted it and moved the pid on: the check adds nothing.
      const std::uint64_t e1 = detail::fork_epoch();
      const std::uint64_t e2 = detail::fork_epoch();
      g.rebind(2);
      _exit(e1 == before + 1 && e2 == e1 && g.next().value() != 0 ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
    EXPECT_EQ(detail::fork_epoch(), before);
  });
}

class ForkRandom : public ::testing::TestWithParam<pid_t (*)()> {};

TEST_P(ForkRandom, ChildRandomStreamDiffersFromTheParents) {
  random_u64();  // mid-buffer at the fork
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = GetParam()();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    std::vector<std::uint64_t> v(1024);
    random_fill(v.data(), v.size() * 8);
    const std::uint64_t seeds = random_seed_count();
    v.push_back(seeds);
    const char* p = reinterpret_cast<const char*>(v.data());
    std::size_t left = v.size() * 8;
    while (left > 0) {
      const ssize_t n = write(fds[1], p, left);
      if (n <= 0) _exit(3);
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  const std::uint64_t seeds_before = random_seed_count();
  std::vector<std::uint64_t> mine(1024);
  random_fill(mine.data(), mine.size() * 8);
  std::vector<std::uint64_t> theirs(1025);
  char* p = reinterpret_cast<char*>(theirs.data());
  std::size_t left = theirs.size() * 8;
  while (left > 0) {
    const ssize_t n = read(fds[0], p, left);
    ASSERT_GT(n, 0);
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  close(fds[0]);
  waitpid(pid, nullptr, 0);
  EXPECT_EQ(theirs.back(), seeds_before + 1);  // the child reseeded once
  theirs.pop_back();
  EXPECT_EQ(common(mine, theirs), 0u);
}

INSTANTIATE_TEST_SUITE_P(Forks, ForkRandom, ::testing::Values(plain_fork, raw_fork),
                         [](const auto& info) { return info.index == 0 ? "fork" : "raw_syscall"; });

}  // namespace
}  // namespace idforge
