// Against the shared Redis (IDFORGE_REDIS_URL) with a key prefix of the test's own, and
// against a private redis-server where the test stops or freezes the server.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>

#include <chrono>
#include <thread>

#include "expect_errc.hpp"
#include "idforge/coord/coord_errc.hpp"
#include "idforge/coord/lease.hpp"
#include "idforge/coord/leased_generator.hpp"
#include "test_support.hpp"

namespace idforge::coord {
namespace {

using namespace std::chrono_literals;
const Layout kTwitter = presets::twitter();

// A stopped Redis at start-up: a clear error naming the store, within the timeout.
TEST(RedisStore, StoppedServerAtStartUpGivesAClearErrorInBoundedTime) {
  test::PrivateRedis redis;
  if (!redis.start()) IDFORGE_SKIP_OR_FAIL("could not start a private redis-server");
  const std::string url = test::with_params(redis.url(), "timeout=300");
  // Frozen (SIGSTOP): the kernel still accepts the connection; the reply never comes.
  redis.signal(SIGSTOP);
  auto t0 = std::chrono::steady_clock::now();
  try {
    SharedLeasedSnowflakeGenerator gen(open_lease_store(url), kTwitter);
    FAIL();
  } catch (const LeaseError& e) {
    EXPECT_EQ(e.code(), coord_errc::store_unreachable);
    EXPECT_EQ(e.store(), url);
    // The first command on a connection names it (CLIENT SETNAME, store_generation.hpp).
    EXPECT_NE(std::string(e.what()).find("did not answer CLIENT SETNAME"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("(timeout 300 ms)"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);  // bounded by the 300 ms timeout
  // Stopped for good: connection refused.
  redis.signal(SIGKILL);
  redis.signal(SIGCONT);
  std::this_thread::sleep_for(100ms);
  t0 = std::chrono::steady_clock::now();
  EXPECT_ERRC_AS(LeaseError, SharedLeasedSnowflakeGenerator gen(open_lease_store(url), kTwitter),
                 coord_errc::store_unreachable, "cannot connect to Redis at 127.0.0.1:", url);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
}

// A Redis that answers every command with one error line, as a server still loading its
// data set from disk after a restart does ("-LOADING ..."). Serves until destroyed.
class AnsweringRedis {
 public:
  explicit AnsweringRedis(std::string line) : line_(std::move(line)) {
    fd_ = test::listen_on_loopback(port_);
    thread_ = std::thread([this] { serve(); });
  }
  ~AnsweringRedis() {
    stop_ = true;
    thread_.join();
    close(fd_);
  }
  int port() const { return port_; }

 private:
  void serve() {
    std::vector<int> clients;
    while (!stop_) {
      std::vector<pollfd> fds{{fd_, POLLIN, 0}};
      for (const int c : clients) fds.push_back({c, POLLIN, 0});
      if (poll(fds.data(), fds.size(), 50) <= 0) continue;
      if (fds[0].revents & POLLIN) clients.push_back(accept(fd_, nullptr, nullptr));
      for (std::size_t i = 1; i < fds.size(); ++i) {
        if (!(fds[i].revents & POLLIN)) continue;
        char buf[4096];
        if (read(fds[i].fd, buf, sizeof buf) > 0) {
          // One answer per command: commands arrive one at a time from the store.
          (void)!write(fds[i].fd, line_.data(), line_.size());
        }
      }
    }
    for (const int c : clients) close(c);
  }
  std::string line_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// A Redis restarted with a large data set answers "-LOADING" until it has read it: that is a
// store not answering yet (serve waits and tries again), not a refusal (which ends start-up).
TEST(RedisStore, AServerStillLoadingItsDataIsUnreachableNotARefusal) {
  for (const char* line :
       {"-LOADING Redis is loading the dataset in memory\r\n",
        "-BUSY Redis is busy running a script\r\n", "-MASTERDOWN Link with MASTER is down\r\n"}) {
    AnsweringRedis fake(line);
    const std::string url =
        "redis://127.0.0.1:" + std::to_string(fake.port()) + "?timeout=300&ttl=3000";
    try {
      open_lease_store(url)->acquire(kTwitter);
      ADD_FAILURE() << "acquired from a server answering " << line;
    } catch (const LeaseError& e) {
      EXPECT_EQ(e.reason(), LeaseFailure::unreachable) << e.what();
      EXPECT_NE(std::string(e.what()).find(std::string(line).substr(1, 4)), std::string::npos)
          << e.what();
    }
  }
}

// Redis frozen for a while during operation: the generator pauses at its fence and resumes
// after the next successful renewal, before the key could expire.
TEST(RedisStore, GeneratorPausesWhileRedisIsFrozenAndResumesAfterRenewal) {
  test::PrivateRedis redis;
  if (!redis.start()) IDFORGE_SKIP_OR_FAIL("could not start a private redis-server");
  LeasedOptions options;
  options.keeper.safety_margin_ms = 900;  // fence 2.1 s after a renewal, expiry at 3 s
  options.keeper.retry_ms = 100;
  SharedLeasedSnowflakeGenerator gen(
      open_lease_store(test::with_params(redis.url(), "ttl=3000&timeout=200")), kTwitter, {},
      options);
  // Freeze right after a renewal, so the fence comes before the key expires.
  const auto renewals = gen.keeper().status().renewals;
  for (auto end = std::chrono::steady_clock::now() + 3s;
       gen.keeper().status().renewals == renewals && std::chrono::steady_clock::now() < end;)
    std::this_thread::sleep_for(5ms);
  ASSERT_GT(gen.keeper().status().renewals, renewals);
  redis.signal(SIGSTOP);
  std::uint64_t before = gen.next().value();
  bool fenced = false;
  for (auto end = std::chrono::steady_clock::now() + 4s;
       !fenced && std::chrono::steady_clock::now() < end;) {
    try {
      before = gen.next().value();
      std::this_thread::sleep_for(1ms);
    } catch (const LeaseError& e) {
      EXPECT_EQ(e.reason(), LeaseFailure::fenced) << e.what();
      fenced = true;
    }
  }
  redis.signal(SIGCONT);
  ASSERT_TRUE(fenced) << "the generator kept issuing while no renewal succeeded";
  EXPECT_GT(gen.keeper().status().failures, 0u);
  bool resumed = false;
  std::uint64_t after = 0;
  for (auto end = std::chrono::steady_clock::now() + 3s;
       !resumed && std::chrono::steady_clock::now() < end;) {
    try {
      after = gen.next().value();
      resumed = true;
    } catch (const LeaseError& e) {
      ASSERT_EQ(e.reason(), LeaseFailure::fenced) << e.what();
      std::this_thread::sleep_for(20ms);
    }
  }
  ASSERT_TRUE(resumed);
  EXPECT_GT(after, before);
  EXPECT_FALSE(gen.keeper().status().lost);
}

}  // namespace
}  // namespace idforge::coord
