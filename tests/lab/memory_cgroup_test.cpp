// MemoryCgroup against the real kernel: a group with a limit that a process can join and
// that is charged for its memory, removed afterwards; names and limits checked; a group in
// use is never taken over. Where no cgroup can be made (not root, no writable memory
// controller) the tests skip with the one-line reason, or fail when IDFORGE_REQUIRE_CGROUP=1.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <vector>

#include "idforge/lab/lab_errc.hpp"
#include "idforge/lab/memory_cgroup.hpp"

namespace idforge::lab {
namespace {

std::string name_for(const char* what) {
  return std::string("idforge-test-") + what + "-" + std::to_string(::getpid());
}

std::optional<MemoryCgroup> make_or_skip(const std::string& name, std::uint64_t bytes,
                                         std::string& why) {
  try {
    return MemoryCgroup::create(name, bytes);
  } catch (const CgroupUnavailable& e) {
    why = e.what();
    return std::nullopt;
  }
}

#define CGROUP_OR_SKIP(var, name, bytes)                     \
  std::string why_##var;                                     \
  auto var = make_or_skip(name, bytes, why_##var);           \
  if (!var) {                                                \
    const char* req = std::getenv("IDFORGE_REQUIRE_CGROUP"); \
    if (req && std::string(req) == "1") FAIL() << why_##var; \
    GTEST_SKIP() << why_##var;                               \
  }

TEST(MemoryCgroup, HasTheLimitAndIsGoneAfterRemove) {
  CGROUP_OR_SKIP(g, name_for("limit"), 48u << 20);
  EXPECT_EQ(g->limit(), 48u << 20);
  EXPECT_TRUE(std::filesystem::exists(g->path()));
  EXPECT_TRUE(g->processes().empty());
  g->set_limit(64u << 20);
  EXPECT_EQ(g->limit(), 64u << 20);
  const std::string path = g->path();
  g->remove();
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(MemoryCgroup, ChargesAProcessThatJoins) {
  CGROUP_OR_SKIP(g, name_for("charge"), 256u << 20);
  // One pipe each way: with a single pipe the child could read back its own byte and the
  // parent would wait for ever.
  int ready[2], looked[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(looked), 0);
  const std::string procs = g->procs_file();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (!MemoryCgroup::move_self_into(procs.c_str())) ::_exit(2);
    // 32 MiB touched: anonymous memory the group must be charged for.
    std::vector<char> block(32u << 20, 1);
    char c;
    (void)!::write(ready[1], "x", 1);
    (void)!::read(looked[0], &c, 1);  // wait until the parent has looked
    ::_exit(block[12345] == 1 ? 0 : 3);
  }
  char c;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  EXPECT_EQ(g->processes(), std::vector<pid_t>{pid});
  EXPECT_GE(g->usage(), 30u << 20);
  EXPECT_GE(g->anon_bytes(), 30u << 20);
  EXPECT_GE(g->peak(), g->usage());
  EXPECT_EQ(g->oom_kills(), 0u);
  ASSERT_EQ(::write(looked[1], "x", 1), 1);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  for (int fd : {ready[0], ready[1], looked[0], looked[1]}) ::close(fd);
  // With the process gone, a reset peak starts again from what is left charged.
  if (g->reset_peak()) EXPECT_LT(g->peak(), 30u << 20);
  g->remove();
}

TEST(MemoryCgroup, AProcessOverTheLimitIsKilledAndCounted) {
  CGROUP_OR_SKIP(g, name_for("oom"), 16u << 20);
  const std::string procs = g->procs_file();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (!MemoryCgroup::move_self_into(procs.c_str())) ::_exit(2);
    std::vector<char> block(64u << 20, 1);  // four times the limit, no swap to go to
    ::_exit(block[1] == 1 ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  EXPECT_GE(g->oom_kills(), 1u);
  g->remove();
}

TEST(MemoryCgroup, AStaleGroupIsReplacedAndABusyOneRefused) {
  const std::string name = name_for("stale");
  {
    CGROUP_OR_SKIP(first, name, 32u << 20);
    // Leave it behind as a killed run would (no processes in it).
    MemoryCgroup moved(std::move(*first));
    std::filesystem::path p = moved.path();
    ASSERT_TRUE(std::filesystem::exists(p));
    auto again = MemoryCgroup::create(name, 40u << 20);  // replaces the empty group of that name
    EXPECT_EQ(again.limit(), 40u << 20);
    int go[2];
    ASSERT_EQ(::pipe(go), 0);
    const pid_t pid = ::fork();
    if (pid == 0) {
      MemoryCgroup::move_self_into(again.procs_file().c_str());
      char c;
      (void)!::read(go[0], &c, 1);
      ::_exit(0);
    }
    while (again.processes().empty()) ::usleep(1000);
    try {
      MemoryCgroup::create(name, 32u << 20);
      ADD_FAILURE() << "a group with a process in it was taken over";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), lab_errc::already_exists);
      EXPECT_NE(std::string(e.what()).find(std::to_string(pid)), std::string::npos) << e.what();
    }
    ASSERT_EQ(::write(go[1], "x", 1), 1);
    ::waitpid(pid, nullptr, 0);
  }
}

TEST(MemoryCgroup, BadNamesAndLimitsAreRefusedByName) {
  for (const char* bad : {"", "../x", "a/b", ".hidden", "sp ace"}) {
    try {
      MemoryCgroup::create(bad, 32u << 20);
      ADD_FAILURE() << bad;
    } catch (const CgroupUnavailable&) {
      ADD_FAILURE() << "name '" << bad << "' reached the kernel";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument) << e.what();
    }
  }
  try {
    MemoryCgroup::create("idforge-test-small", 1000);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("memory limit 1000 bytes"), std::string::npos) << e.what();
  }
}

TEST(MemoryCgroup, StorageReadBytesOfGoneProcessesCountZero) {
  EXPECT_EQ(storage_read_bytes({}), 0u);
  EXPECT_EQ(storage_read_bytes({999'999'999}), 0u);
}

}  // namespace
}  // namespace idforge::lab
