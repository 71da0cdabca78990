// Leased Snowflake duplicate hunt: more processes than node IDs (4 processes, a file: store
// limited to 2 node IDs), so node IDs pass from process to process all the time. Every
// handover relies on the high-water mark the previous holder stored; clock steps of -1,
// -5, -6 ms and -1 s land while IDs are made. All IDs of all processes are compared.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "hunt.hpp"
#include "idforge/coord/lease.hpp"
#include "idforge/coord/leased_generator.hpp"
#include "idforge/error.hpp"
#include "process_pool.hpp"

namespace idforge::stress {
namespace {

struct ChildCounts {
  std::uint64_t attempted, acknowledged, refused, order_violations, acquisitions, space_full;
};

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kFaults[] = {-1 * kMs, -5 * kMs, -6 * kMs, -1000 * kMs};

ChildCounts leased_child(int index, const std::string& dir, const Profile& prof) {
  FaultClock clock;
  ChildCounts c{};
  const std::uint64_t per_round = prof.random_ids_per_thread;  // per process and round
  std::vector<Snowflake> mine;
  mine.reserve(per_round * prof.rounds);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::minutes(prof.long_run ? 30 : 3);
  for (int round = 0; round < prof.rounds && std::chrono::steady_clock::now() < deadline; ++round) {
    std::unique_ptr<coord::SharedLeasedSnowflakeGenerator> gen;
    while (!gen && std::chrono::steady_clock::now() < deadline) {
      try {
        gen = std::make_unique<coord::SharedLeasedSnowflakeGenerator>(
            coord::open_lease_store("file:" + dir + "?nodes=2&ttl=3000", clock), presets::twitter(),
            clock, SnowflakePolicy{.max_backward_wait_ms = 5});
        ++c.acquisitions;
      } catch (const coord::LeaseError&) {
        ++c.space_full;  // both node IDs held: another process will release one soon
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
    if (!gen) break;
    Snowflake prev = mine.empty() ? Snowflake{} : mine.back();
    const std::size_t start = mine.size();
    int next_fault = 0;
    std::uint64_t refused_since_back = 0;
    bool back_1s = false;
    while (mine.size() - start < per_round && std::chrono::steady_clock::now() < deadline) {
      if (next_fault < 4 && (mine.size() - start) * 5 >= per_round * (next_fault + 1)) {
        clock.step_ns(kFaults[next_fault]);
        back_1s = kFaults[next_fault] == -1000 * kMs;
        ++next_fault;
      }
      if (back_1s && refused_since_back >= 1000) clock.step_ns(1000 * kMs), back_1s = false;
      ++c.attempted;
      try {
        const Snowflake id = gen->next();
        ++c.acknowledged;
        // Order holds inside one holding; across holdings a process may get another node.
        if (mine.size() > start && id <= prev) ++c.order_violations;
        prev = id;
        mine.push_back(id);
      } catch (const Error&) {
        ++c.refused, ++refused_since_back;
      }
    }
    if (back_1s) clock.step_ns(1000 * kMs);
    gen.reset();  // releases the node ID, storing the mark
  }
  std::ofstream out(dir + "/ids." + std::to_string(index), std::ios::binary);
  out.write(reinterpret_cast<const char*>(mine.data()),
            static_cast<std::streamsize>(mine.size() * sizeof(Snowflake)));
  return c;
}

TEST(LeasedHunt, NoDuplicateAcrossLeaseHandoversAndClockFaults) {
  const Profile prof = profile_from_env();
  char tmpl[] = "/tmp/idforge-leased-hunt-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  constexpr int kProcesses = 4;
  const auto counts =
      run_in_children<ChildCounts>(kProcesses, [&](int i) { return leased_child(i, dir, prof); });
  HuntReport total;
  total.generator = "snowflake (file: leases, 4 procs / 2 nodes)";
  std::uint64_t acquisitions = 0;
  for (const auto& c : counts) {
    total += HuntReport{"", c.attempted, c.acknowledged, c.refused, 0, c.order_violations};
    acquisitions += c.acquisitions;
  }
  std::vector<Snowflake> all;
  for (int i = 0; i < kProcesses; ++i) {
    const std::string path = dir + "/ids." + std::to_string(i);
    std::vector<Snowflake> v(std::filesystem::file_size(path) / sizeof(Snowflake));
    std::ifstream(path, std::ios::binary)
        .read(reinterpret_cast<char*>(v.data()),
              static_cast<std::streamsize>(v.size() * sizeof(Snowflake)));
    all.insert(all.end(), v.begin(), v.end());
  }
  std::sort(all.begin(), all.end());
  for (std::size_t i = 1; i < all.size(); ++i) total.duplicated += all[i] == all[i - 1];
  publish(total);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(total.duplicated, 0u);
  EXPECT_EQ(total.order_violations, 0u);
  EXPECT_EQ(all.size(), total.acknowledged);
  EXPECT_EQ(acquisitions, static_cast<std::uint64_t>(kProcesses * prof.rounds))
      << "every round should get a node ID";
  EXPECT_EQ(total.acknowledged,
            static_cast<std::uint64_t>(kProcesses * prof.rounds) * prof.random_ids_per_thread);
}

// Operator faults: processes 0 and 1 are configured with the same fixed node ID 0 and
// processes 2 and 3 lease any of nodes 0..1, so the fixed node is refused while another
// holds it; every holder removes its own lock file by hand a quarter of a second into each
// holding: the main name in even holdings, every name of the lock in odd ones (then a
// newcomer can take the node before the holder's next renewal notices and fences). Each
// process runs for a bounded time and keeps at most a bounded number of IDs.
struct OperatorCounts {
  std::uint64_t attempted, acknowledged, refused, order_violations, holdings, locks_removed, lost,
      held_refusals;
};

// Removes DIR/node-N.lock, or every name of it (node-N.lock.<nonce> too).
void remove_lock(const std::string& dir, std::uint64_t node, bool every_name) {
  const std::string name = "node-" + std::to_string(node) + ".lock";
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string f = e.path().filename().string();
    if (f == name || (every_name && f.rfind(name + ".", 0) == 0)) std::filesystem::remove(e.path());
  }
}

OperatorCounts operator_child(int index, const std::string& dir, const Profile& prof) {
  using clock = std::chrono::steady_clock;
  OperatorCounts c{};
  const auto run_for = prof.long_run ? std::chrono::seconds(120) : std::chrono::seconds(4);
  const std::uint64_t cap = prof.long_run ? 25'000'000 : 1'000'000;  // IDs kept per process
  const std::uint64_t per_holding = prof.long_run ? 200'000 : 100'000;
  std::vector<Snowflake> mine;
  mine.reserve(cap);
  coord::LeasedOptions options;
  if (index < 2) options.keeper.node = 0;  // the same node ID configured twice
  const auto end = clock::now() + run_for;
  while (clock::now() < end && mine.size() < cap) {
    std::unique_ptr<coord::SharedLeasedSnowflakeGenerator> gen;
    try {
      gen = std::make_unique<coord::SharedLeasedSnowflakeGenerator>(
          coord::open_lease_store("file:" + dir + "?nodes=2&ttl=600"), presets::twitter(),
          SnowflakePolicy{}, options);
    } catch (const coord::LeaseError& e) {
      if (e.reason() == coord::LeaseFailure::held) ++c.held_refusals;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    ++c.holdings;
    const auto start = clock::now();
    const std::size_t first = mine.size();
    bool removed = false;
    Snowflake prev{};
    while (clock::now() < start + std::chrono::milliseconds(700) && clock::now() < end &&
           mine.size() < cap) {
      if (!removed && clock::now() >= start + std::chrono::milliseconds(250)) {
        remove_lock(dir, gen->node(), c.holdings % 2 == 0);
        removed = true;
        ++c.locks_removed;
      }
      // Past the quota (bounded memory) one call a millisecond: enough to see the loss.
      if (mine.size() - first >= per_holding)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      ++c.attempted;
      try {
        const Snowflake id = gen->next();
        ++c.acknowledged;
        if (mine.size() > first && id <= prev) ++c.order_violations;
        prev = id;
        mine.push_back(id);
      } catch (const coord::LeaseError& e) {
        ++c.refused;
        if (e.reason() == coord::LeaseFailure::lost) {
          ++c.lost;
          break;
        }
      } catch (const Error&) {
        ++c.refused;
      }
    }
    try {
      gen.reset();
    } catch (const Error&) {
    }
  }
  std::ofstream out(dir + "/ids." + std::to_string(index), std::ios::binary);
  out.write(reinterpret_cast<const char*>(mine.data()),
            static_cast<std::streamsize>(mine.size() * sizeof(Snowflake)));
  return c;
}

TEST(LeasedHunt, NoDuplicateWhenLockFilesAreRemovedAndTheSameNodeIsConfiguredTwice) {
  const Profile prof = profile_from_env();
  char tmpl[] = "/tmp/idforge-operator-hunt-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  constexpr int kProcesses = 4;
  const auto counts = run_in_children<OperatorCounts>(
      kProcesses, [&](int i) { return operator_child(i, dir, prof); });
  HuntReport total;
  total.generator =
      "snowflake (file: leases, 2 procs on fixed node 0 + 2 leased over 2 nodes, lock files "
      "removed)";
  OperatorCounts sum{};
  for (const auto& c : counts) {
    total += HuntReport{"", c.attempted, c.acknowledged, c.refused, 0, c.order_violations};
    sum.holdings += c.holdings, sum.locks_removed += c.locks_removed, sum.lost += c.lost;
    sum.held_refusals += c.held_refusals;
  }
  std::vector<Snowflake> all;
  for (int i = 0; i < kProcesses; ++i) {
    const std::string path = dir + "/ids." + std::to_string(i);
    std::vector<Snowflake> v(std::filesystem::file_size(path) / sizeof(Snowflake));
    std::ifstream(path, std::ios::binary)
        .read(reinterpret_cast<char*>(v.data()),
              static_cast<std::streamsize>(v.size() * sizeof(Snowflake)));
    all.insert(all.end(), v.begin(), v.end());
  }
  std::sort(all.begin(), all.end());
  for (std::size_t i = 1; i < all.size(); ++i) total.duplicated += all[i] == all[i - 1];
  publish(total);
  std::printf(
      "hunt: operator faults: %llu holdings, %llu lock files removed, %llu leases lost at renewal, "
      "%llu "
      "starts of the fixed node refused while held\n",
      static_cast<unsigned long long>(sum.holdings),
      static_cast<unsigned long long>(sum.locks_removed), static_cast<unsigned long long>(sum.lost),
      static_cast<unsigned long long>(sum.held_refusals));
  std::filesystem::remove_all(dir);
  EXPECT_EQ(total.duplicated, 0u);
  EXPECT_EQ(total.order_violations, 0u);
  EXPECT_EQ(all.size(), total.acknowledged);
  EXPECT_GT(total.acknowledged, 0u);
  EXPECT_GT(sum.locks_removed, 0u);
  EXPECT_GT(sum.lost, 0u) << "no holder noticed its lock file was gone";
  EXPECT_GT(sum.held_refusals, 0u) << "the fixed node configured twice was never refused";
}

}  // namespace
}  // namespace idforge::stress
