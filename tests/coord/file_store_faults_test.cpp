// Operator faults on a file: store: a mark file that cannot be read, a lock file deleted or
// replaced while its node is held, the same node ID configured twice, a far-future mark on
// node 0, a lease directory that does not exist.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "idforge/coord/lease.hpp"
#include "idforge/coord/leased_generator.hpp"
#include "idforge/snowflake.hpp"
#include "test_support.hpp"

namespace idforge::coord {
namespace {

using namespace std::chrono_literals;
const Layout kTwitter = presets::twitter();
constexpr std::int64_t kT = 1'800'000'000'000;
constexpr std::int64_t kMs = 1'000'000;

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// Runs fn in a child process (as user nobody when we are root, so that file permissions
// bite); returns its exit status.
template <typename Fn>
int in_child_as_nobody(Fn fn) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(99);
    _exit(fn());
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// An unreadable mark (EACCES here; EMFILE and EIO go the same way) is not "no mark": the
// node starting from scratch could reissue the IDs its last holder issued.
TEST(FileStoreFaults, AMarkFileThatCannotBeReadIsRefusedNotTakenForNone) {
  test::ScratchDir dir;
  chmod(dir.path().c_str(), 0777);
  const std::string lock = dir.path() + "/node-0.lock", mark = dir.path() + "/node-0.mark";
  write_file(lock, "");
  chmod(lock.c_str(), 0666);
  write_file(mark, std::to_string(kT) + "\n");
  chmod(mark.c_str(), 0600);
  if (geteuid() != 0) chmod(mark.c_str(), 0000);
  const std::string url = "file:" + dir.path() + "?nodes=1";
  const int status = in_child_as_nobody([&] {
    try {
      open_lease_store(url)->acquire(kTwitter);
      return 1;  // took the node as if it had never issued
    } catch (const LeaseError& e) {
      const std::string m = e.what();
      const bool named = m.find("cannot open high-water mark file " + mark) != std::string::npos &&
                         m.find("Permission denied") != std::string::npos;
      return e.reason() == LeaseFailure::rejected && named ? 0 : 2;
    }
  });
  EXPECT_EQ(status, 0) << "1: the unreadable mark was taken for no mark; 2: another error";
}

TEST(FileStoreFaults, AMarkPathThatIsADirectoryIsRefused) {
  test::ScratchDir dir;
  std::filesystem::create_directory(dir.path() + "/node-0.mark");
  try {
    open_lease_store("file:" + dir.path() + "?nodes=1")->acquire(kTwitter);
    FAIL();
  } catch (const LeaseError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory, not a regular file"), std::string::npos)
        << e.what();
  }
}

// Deleted by hand while held: the holder's second name keeps a newcomer off the node, and
// the holder's next renewal notices and reports the lease lost.
TEST(FileStoreFaults, ALockFileDeletedWhileHeldKeepsANewcomerOffAndLosesTheLease) {
  test::ScratchDir dir;
  const std::string url = "file:" + dir.path() + "?nodes=1";
  auto a = open_lease_store(url);
  Lease la = a->acquire(kTwitter);
  ASSERT_EQ(unlink((dir.path() + "/node-0.lock").c_str()), 0);
  try {
    const Lease lb = open_lease_store(url)->acquire(kTwitter);
    FAIL() << "a newcomer took node " << lb.node << " while its holder is alive";
  } catch (const LeaseError& e) {
    EXPECT_EQ(e.reason(), LeaseFailure::space_full) << e.what();
  }
  const auto rows = open_lease_store(url)->list(kTwitter);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].holder, la.holder);
  try {
    a->renew(la, kT);
    FAIL() << "renewed a lease whose lock file is gone";
  } catch (const LeaseError& e) {
    EXPECT_EQ(e.reason(), LeaseFailure::lost) << e.what();
    EXPECT_NE(std::string(e.what()).find("deleted or replaced by hand"), std::string::npos)
        << e.what();
  }
}

TEST(FileStoreFaults, ALockFileReplacedWhileHeldKeepsANewcomerOffAndLosesTheLease) {
  test::ScratchDir dir;
  const std::string url = "file:" + dir.path() + "?nodes=1";
  auto a = open_lease_store(url);
  Lease la = a->acquire(kTwitter);
  write_file(dir.path() + "/other", "");
  ASSERT_EQ(rename((dir.path() + "/other").c_str(), (dir.path() + "/node-0.lock").c_str()), 0);
  EXPECT_THROW(open_lease_store(url)->acquire(kTwitter), LeaseError);
  try {
    a->renew(la, kT);
    FAIL() << "renewed a lease whose lock file was replaced";
  } catch (const LeaseError& e) {
    EXPECT_EQ(e.reason(), LeaseFailure::lost) << e.what();
  }
}

// The whole chain: the keeper fences the generator for good at that renewal.
TEST(FileStoreFaults, AHolderWhoseLockFileWasDeletedStopsIssuingAtItsNextRenewal) {
  test::ScratchDir dir;
  ManualClock clock(kT * kMs);
  LeasedOptions options;
  options.keeper.renew_in_background = false;
  SharedLeasedSnowflakeGenerator gen(open_lease_store("file:" + dir.path()), kTwitter, clock, {},
                                     options);
  gen.next();
  ASSERT_EQ(unlink((dir.path() + "/node-0.lock").c_str()), 0);
  EXPECT_FALSE(gen.keeper().renew());
  EXPECT_TRUE(gen.keeper().status().lost);
  try {
    gen.next();
    FAIL() << "issued after the lease was lost";
  } catch (const LeaseError& e) {
    EXPECT_EQ(e.reason(), LeaseFailure::lost) << e.what();
  }
}

// A lost lease heals: the next renewal takes the same node again (a fresh lock file), and
// the generator issues again above everything before, with no restart.
TEST(FileStoreFaults, ALeaseLostToADeletedLockFileIsTakenAgainAtTheNextRenewal) {
  test::ScratchDir dir;
  ManualClock clock(kT * kMs);
  LeasedOptions options;
  options.keeper.renew_in_background = false;
  SharedLeasedSnowflakeGenerator gen(open_lease_store("file:" + dir.path()), kTwitter, clock, {},
                                     options);
  const std::uint64_t before = gen.next().value();
  ASSERT_EQ(unlink((dir.path() + "/node-0.lock").c_str()), 0);
  EXPECT_FALSE(gen.keeper().renew());
  EXPECT_THROW(gen.next(), LeaseError);
  ASSERT_TRUE(gen.keeper().renew()) << gen.keeper().status().last_error;
  EXPECT_FALSE(gen.keeper().status().lost);
  EXPECT_EQ(gen.keeper().status().reacquired, 1u);
  EXPECT_GT(gen.next().value(), before);
  // The new lock is a real one: another process (here another store) is refused the node.
  EXPECT_THROW(open_lease_store("file:" + dir.path())->acquire_node(kTwitter, 0), LeaseError);
}

// In the background the keeper heals by itself, within a few retries.
TEST(FileStoreFaults, TheBackgroundKeeperTakesALostLeaseAgainByItself) {
  test::ScratchDir dir;
  SharedLeasedSnowflakeGenerator gen(open_lease_store("file:" + dir.path() + "?ttl=300"), kTwitter);
  const std::uint64_t before = gen.next().value();
  ASSERT_EQ(unlink((dir.path() + "/node-0.lock").c_str()), 0);
  // Waits as long as the keeper may take (bounded): the loss shows, then the heal.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (gen.keeper().status().reacquired == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(gen.keeper().status().reacquired, 1u) << gen.keeper().status().last_error;
  // The renewal that found the loss had stored its reservation first: taken again, the node
  // issues above that mark (it cannot tell its own from another holder's), so the first ID
  // may wait for the clock to pass it.
  std::uint64_t after = 0;
  while (after == 0 && std::chrono::steady_clock::now() < deadline) {
    try {
      after = gen.next().value();
    } catch (const ClockBackwardsError&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  EXPECT_GT(after, before);
}

// Once the holder of a deleted lock file has gone, its node is free again.
TEST(FileStoreFaults, TheNodeOfADeletedLockFileIsFreeOnceItsHolderIsGone) {
  test::ScratchDir dir;
  const std::string url = "file:" + dir.path() + "?nodes=1";
  {
    auto a = open_lease_store(url);
    a->acquire(kTwitter);
    unlink((dir.path() + "/node-0.lock").c_str());
    EXPECT_THROW(open_lease_store(url)->acquire(kTwitter), LeaseError);
  }  // the holder's store closes: the kernel drops its lock, as when the process dies
  EXPECT_EQ(open_lease_store(url)->acquire(kTwitter).node, 0u);
}

TEST(FileStoreFaults, TheSameFixedNodeTwiceIsRefusedNamingTheHolder) {
  test::ScratchDir dir;
  const std::string url = "file:" + dir.path();
  auto a = open_lease_store(url);
  const Lease la = a->acquire_node(kTwitter, 5);
  EXPECT_EQ(la.node, 5u);
  try {
    open_lease_store(url)->acquire_node(kTwitter, 5);
    FAIL() << "took node 5 twice";
  } catch (const LeaseError& e) {
    EXPECT_EQ(e.reason(), LeaseFailure::held);
    EXPECT_NE(std::string(e.what()).find(la.holder), std::string::npos) << e.what();
  }
  // A leased node ID passes over it.
  EXPECT_EQ(open_lease_store(url)->acquire(kTwitter).node, 0u);
  EXPECT_THROW(open_lease_store(url)->acquire_node(kTwitter, 1024),
               LeaseError);  // out of the layout
}

// static:N with state=DIR takes the very lock file: leased and fixed processes on one host
// exclude each other.
TEST(FileStoreFaults, AStaticNodeWithAStateDirTakesTheSameLockAsAFileStore) {
  test::ScratchDir dir;
  auto a = open_lease_store("static:5?state=" + dir.path());
  Lease la = a->acquire(kTwitter);
  EXPECT_THROW(open_lease_store("static:5?state=" + dir.path())->acquire(kTwitter), LeaseError);
  EXPECT_THROW(open_lease_store("file:" + dir.path())->acquire_node(kTwitter, 5), LeaseError);
  EXPECT_THROW(open_lease_store("ordinal:web-5?state=" + dir.path())->acquire(kTwitter),
               LeaseError);
  a->release(la, kT);
  EXPECT_EQ(open_lease_store("file:" + dir.path())->acquire_node(kTwitter, 5).high_water_unix_ms,
            kT);
}

// A mark far in the future on node 0 (a clock that ran ahead, then was corrected) does not
// block start-up: a leased node moves on and says why; a fixed node refuses.
TEST(FileStoreFaults, AFarFutureMarkOnNodeZeroMovesALeasedNodeOn) {
  test::ScratchDir dir;
  const std::int64_t far = kT + 86'400'000;
  write_file(dir.path() + "/node-0.mark", std::to_string(far) + "\n");
  ManualClock clock(kT * kMs);
  {
    SharedLeasedSnowflakeGenerator gen(open_lease_store("file:" + dir.path()), kTwitter, clock);
    EXPECT_EQ(gen.node(), 1u);
    ASSERT_EQ(gen.keeper().skipped().size(), 1u);
    EXPECT_EQ(gen.keeper().skipped()[0].node, 0u);
    EXPECT_EQ(gen.keeper().skipped()[0].high_water_unix_ms, far);
    EXPECT_EQ(decompose(kTwitter, gen.next()).node, 1u);
  }
  EXPECT_EQ(clock.waited_ns(), 0);
  std::ifstream in(dir.path() + "/node-0.mark");
  std::int64_t kept = 0;
  in >> kept;
  EXPECT_EQ(kept, far) << "passing over node 0 changed its mark";
  LeasedOptions fixed;
  fixed.keeper.node = 0;
  EXPECT_THROW(SharedLeasedSnowflakeGenerator(open_lease_store("file:" + dir.path()), kTwitter,
                                              clock, {}, fixed),
               ClockBackwardsError);
}

// The whole folder deleted (`rm -rf`) under a live holder: the newcomer that re-creates it
// sees the holder's beacon, records the loss, and waits a window before issuing; a fresh
// folder with no holder of its path anywhere waits for nothing.
TEST(FileStoreFaults, TheFolderDeletedUnderAHolderMakesTheNewcomerWaitAWindow) {
  test::ScratchDir dir;
  const std::string folder = dir.path() + "/leases";
  const std::string url = "file:" + folder + "?nodes=1&ttl=3000";
  ManualClock clock(kT * kMs);
  LeasedOptions by_hand;
  by_hand.keeper.renew_in_background = false;
  SharedLeasedSnowflakeGenerator a(open_lease_store(url, clock), kTwitter, clock, {}, by_hand);
  EXPECT_EQ(a.keeper().status().store_reset_unix_ms, kNoMark) << "a fresh folder waited";
  EXPECT_EQ(a.start_wait_ms(), 0);
  const std::int64_t a_fence = a.keeper().fence_unix_ms();
  std::uint64_t last_a = 0;
  for (int i = 0; i < 100; ++i) last_a = a.next().value();
  std::filesystem::remove_all(folder);
  SharedLeasedSnowflakeGenerator b(open_lease_store(url, clock), kTwitter, clock, {}, by_hand);
  EXPECT_EQ(b.node(), a.node());
  EXPECT_EQ(b.keeper().status().store_reset_unix_ms, kT);
  EXPECT_GE(b.start_wait_ms(), 3000);
  const std::uint64_t first_b = b.next().value();
  EXPECT_GT(first_b, last_a);
  // The fence is one past the last ms the old holder may issue in.
  EXPECT_GE(static_cast<std::int64_t>((first_b >> 22) + kTwitter.epoch_ms()), a_fence);
  EXPECT_FALSE(a.keeper().renew());
  EXPECT_TRUE(a.keeper().status().lost);
  // The record says so to every newcomer of that window, not only to its creator.
  std::ifstream record(folder + "/generation");
  std::string line1, line2;
  std::getline(record, line1);
  std::getline(record, line2);
  EXPECT_TRUE(line1.starts_with("generation ")) << line1;
  EXPECT_EQ(line2, "reset " + std::to_string(kT));
}

// A garbled generation record is refused, naming the file, not taken for "none".
TEST(FileStoreFaults, AGarbledGenerationRecordIsRefused) {
  test::ScratchDir dir;
  write_file(dir.path() + "/generation", "rubbish\xff\n");
  try {
    open_lease_store("file:" + dir.path())->acquire(kTwitter);
    FAIL() << "took a node with a garbled generation record";
  } catch (const LeaseError& e) {
    EXPECT_EQ(e.reason(), LeaseFailure::rejected);
    EXPECT_NE(std::string(e.what()).find(dir.path() + "/generation"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("rubbish\\xff"), std::string::npos) << e.what();
  }
}

TEST(FileStoreFaults, ListingADirectoryThatDoesNotExistIsAnError) {
  const std::string url = "file:/nonexistent/idforge-" + test::unique_name();
  try {
    open_lease_store(url)->list(kTwitter);
    FAIL() << "listed a directory that does not exist as empty";
  } catch (const LeaseError& e) {
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace idforge::coord
