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
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(prof.long_run ? 30 : 3);
  for (int round = 0; round < prof.rounds && std::chrono::steady_clock::now() < deadline; ++round) {
    std::unique_ptr<coord::LeasedSnowflakeGenerator> gen;
    while (!gen && std::chrono::steady_clock::now() < deadline) {
      try {
        gen = std::make_unique<coord::LeasedSnowflakeGenerator>(
            coord::open_lease_store("file:" + dir + "?nodes=2&ttl=3000", clock), presets::twitter(), clock,
            SnowflakePolicy{.max_backward_wait_ms = 5});
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
  out.write(reinterpret_cast<const char*>(mine.data()), static_cast<std::streamsize>(mine.size() * sizeof(Snowflake)));
  return c;
}

TEST(LeasedHunt, NoDuplicateAcrossLeaseHandoversAndClockFaults) {
  const Profile prof = profile_from_env();
  char tmpl[] = "/tmp/idforge-leased-hunt-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  constexpr int kProcesses = 4;
  const auto counts = run_in_children<ChildCounts>(kProcesses, [&](int i) { return leased_child(i, dir, prof); });
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
    std::ifstream(path, std::ios::binary).read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(Snowflake)));
    all.insert(all.end(), v.begin(), v.end());
  }
  std::sort(all.begin(), all.end());
  for (std::size_t i = 1; i < all.size(); ++i) total.duplicated += all[i] == all[i - 1];
  publish(total);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(total.duplicated, 0u);
  EXPECT_EQ(total.order_violations, 0u);
  EXPECT_EQ(all.size(), total.acknowledged);
  EXPECT_EQ(acquisitions, static_cast<std::uint64_t>(kProcesses * prof.rounds)) << "every round should get a node ID";
  EXPECT_EQ(total.acknowledged, static_cast<std::uint64_t>(kProcesses * prof.rounds) * prof.random_ids_per_thread);
}

}  // namespace
}  // namespace idforge::stress
