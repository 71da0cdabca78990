// A process that holds a lease forks; the child exits the way a program with its generator
// in a static object does (exit() runs the destructors). The child must exit promptly and
// leave the parent's lease alone: same holder, same mark, node still taken, parent still
// issuing and renewing. Against each store that holds node IDs: file, Redis, etcd. (TTL 60 s:
// no background renewal moves the mark while the test compares it.)
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <thread>

#include "idforge/coord/lease.hpp"
#include "idforge/coord/leased_generator.hpp"
#include "test_support.hpp"

namespace idforge::coord {
namespace {

using namespace std::chrono_literals;
const Layout kTwitter = presets::twitter();

// Exit status of pid, or -1 if it did not end within bound (it is killed then).
int wait_bounded(pid_t pid, std::chrono::milliseconds bound) {
  int status = 0;
  for (auto end = std::chrono::steady_clock::now() + bound;
       std::chrono::steady_clock::now() < end;) {
    if (waitpid(pid, &status, WNOHANG) == pid)
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::this_thread::sleep_for(10ms);  // polling a child process
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return -1;
}

// The generator lives in a static object, as in a program that forks workers.
std::optional<SharedLeasedSnowflakeGenerator>& held() {
  static std::optional<SharedLeasedSnowflakeGenerator> gen;
  return gen;
}

// fork() runs the pthread_atfork handlers; the raw system call skips them.
pid_t plain_fork() {
  return fork();
}
pid_t raw_fork() {
  return static_cast<pid_t>(syscall(SYS_fork));
}

void child_exit_leaves_the_lease_alone(const std::string& url, pid_t (*do_fork)() = plain_fork) {
  auto& gen = held();
  gen.emplace(open_lease_store(url), kTwitter);
  const Lease lease = gen->keeper().acquired();
  const Snowflake before = gen->next();
  const auto rows_before = open_lease_store(url)->list(kTwitter);
  ASSERT_EQ(rows_before.size(), 1u);
  const pid_t pid = do_fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int code = 0;
    try {
      gen->next();
      code = 10;  // issued with the parent's node ID
    } catch (const Error&) {
    }
    std::exit(code);  // runs the static generator's destructor
  }
  EXPECT_EQ(wait_bounded(pid, 10s), 0) << "the child did not exit promptly, or issued an ID";
  const auto rows = open_lease_store(url)->list(kTwitter);
  ASSERT_EQ(rows.size(), 1u) << "the child's exit freed the parent's node ID";
  EXPECT_EQ(rows[0].holder, lease.holder);
  EXPECT_EQ(rows[0].high_water_unix_ms, rows_before[0].high_water_unix_ms)
      << "the child wrote a mark";
  try {
    open_lease_store(url)->acquire(kTwitter);  // nodes=1: only the parent's node ID exists
    ADD_FAILURE() << "another holder took the parent's node ID";
  } catch (const LeaseError& e) {
    EXPECT_EQ(e.reason(), LeaseFailure::space_full) << e.what();
  }
  EXPECT_GT(gen->next(), before);
  EXPECT_TRUE(gen->keeper().renew()) << gen->keeper().status().last_error;
  gen.reset();
  EXPECT_TRUE(open_lease_store(url)->list(kTwitter).empty());
}

TEST(ForkedChild, ExitLeavesTheParentsFileLeaseAlone) {
  test::ScratchDir dir;
  child_exit_leaves_the_lease_alone("file:" + dir.path() + "?nodes=1&ttl=60000");
}

// A child of the raw system call used to issue with the parent's node ID and then hang in
// exit(), joining a renewal thread that exists only in the parent.
TEST(ForkedChild, RawForkSystemCallChildLeavesTheParentsFileLeaseAlone) {
  test::ScratchDir dir;
  child_exit_leaves_the_lease_alone("file:" + dir.path() + "?nodes=1&ttl=60000", raw_fork);
}

TEST(ForkedChild, ExitLeavesTheParentsRedisLeaseAlone) {
  IDFORGE_NEED_SERVICE(base, "IDFORGE_REDIS_URL");
  const std::string url =
      test::with_params(base, "prefix=" + test::unique_name() + ":&nodes=1&ttl=60000");
  // A fresh prefix provisioned as such: its first holder need not wait the 60 s TTL.
  ASSERT_TRUE(open_lease_store(url)->initialize());
  child_exit_leaves_the_lease_alone(url);
}

TEST(ForkedChild, ExitLeavesTheParentsEtcdLeaseAlone) {
  IDFORGE_NEED_SERVICE(base, "IDFORGE_ETCD_URL");
  const std::string url =
      test::with_params(base, "prefix=/" + test::unique_name() + "/&nodes=1&ttl=60000");
  // A fresh prefix provisioned as such: its first holder need not wait the 60 s TTL.
  ASSERT_TRUE(open_lease_store(url)->initialize());
  child_exit_leaves_the_lease_alone(url);
}

// A child that never uses idforge and outlives the parent's release used to keep the node
// locked (it shared the flock() through its inherited descriptor).
TEST(ForkedChild, AChildOutlivingTheParentsReleaseDoesNotKeepTheNodeLocked) {
  test::ScratchDir dir;
  const std::string url = "file:" + dir.path() + "?nodes=1";
  auto store = open_lease_store(url);
  Lease lease = store->acquire(kTwitter);
  int go[2], ready[2];
  ASSERT_EQ(pipe(go), 0);
  ASSERT_EQ(pipe(ready), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // lives until the parent closes the pipe
    close(go[1]);
    close(ready[0]);
    // fork() has returned here, so its child handlers have run.
    if (write(ready[1], "r", 1) != 1) _exit(3);
    char c;
    while (read(go[0], &c, 1) > 0) {
    }
    _exit(0);
  }
  close(go[0]);
  close(ready[1]);
  char r = 0;
  ASSERT_EQ(read(ready[0], &r, 1), 1);  // the child is past fork(): nothing in flight
  close(ready[0]);
  store->release(lease, 5);
  auto other = open_lease_store(url);
  try {
    Lease again = other->acquire(kTwitter);
    EXPECT_EQ(again.node, 0u);
    EXPECT_EQ(again.high_water_unix_ms, 5);
    other->release(again, 6);
  } catch (const LeaseError& e) {
    ADD_FAILURE() << "the child still holds the released node: " << e.what();
  }
  close(go[1]);
  EXPECT_EQ(wait_bounded(pid, 10s), 0);
}

// A store opened before fork() refuses in the child, naming why, and touches nothing.
TEST(ForkedChild, AStoreOpenedBeforeForkRefusesInTheChild) {
  test::ScratchDir dir;
  auto store = open_lease_store("file:" + dir.path());
  Lease lease = store->acquire(kTwitter);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int code = 0;
    for (int call = 0; call < 3; ++call) {
      try {
        if (call == 0) store->renew(lease, 1);
        if (call == 1) store->release(lease, 1);
        if (call == 2) store->acquire(kTwitter);
        code = 10 + call;
      } catch (const LeaseError& e) {
        if (e.reason() != LeaseFailure::rejected ||
            std::string(e.what()).find("before fork()") == std::string::npos)
          code = 20 + call;
      }
    }
    _exit(code);
  }
  EXPECT_EQ(wait_bounded(pid, 10s), 0);
  const auto rows = store->list(kTwitter);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].holder, lease.holder);
  EXPECT_EQ(rows[0].high_water_unix_ms, kNoMark);
  store->release(lease, 5);
}

}  // namespace
}  // namespace idforge::coord
