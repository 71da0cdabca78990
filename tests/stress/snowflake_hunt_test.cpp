// Snowflake duplicate hunt: several processes (distinct node IDs), several threads each on
// one shared generator, clock steps of -1 ms, -5 ms, -6 ms, -1 s and +1 h injected while
// they run, and every process restarted (a new generator resuming from the old one's
// high-water mark) in each round. Every acknowledged ID is checked: unique in its process
// (exact: all kept and sorted), carrying its process's node (so unique across processes),
// and greater than its thread's previous ID.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "hunt.hpp"
#include "idforge/error.hpp"
#include "idforge/snowflake_generator.hpp"
#include "process_pool.hpp"

namespace idforge::stress {
namespace {

struct ChildReport {
  std::uint64_t attempted, acknowledged, refused, duplicated, order_violations, foreign_node;
};

constexpr std::int64_t kMs = 1'000'000;

// The faults, injected by thread 0 from inside its own loop as its share of the round
// progresses (fault k after k/6 of its IDs), so every fault lands while IDs are being made
// however loaded the machine is. The -1 s step is undone after 1,000 refused calls.
constexpr std::int64_t kFaults[] = {-1 * kMs, -5 * kMs, -6 * kMs, -1000 * kMs, 3'600'000 * kMs};
constexpr int kFaultCount = sizeof kFaults / sizeof kFaults[0];

ChildReport hunt_in_process(int index, const Profile& prof) {
  const Layout layout = presets::twitter();
  const std::uint64_t node = static_cast<std::uint64_t>(index) + 1;
  FaultClock clock;
  ChildReport rep{};
  std::vector<std::vector<Snowflake>> per_thread(prof.threads);
  const std::uint64_t per_round_thread =
      prof.snowflake_ids_per_process / (prof.rounds * prof.threads);
  for (auto& v : per_thread) v.reserve(per_round_thread * prof.rounds);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::minutes(prof.long_run ? 30 : 2);
  std::int64_t mark = std::numeric_limits<std::int64_t>::min();
  for (int round = 0; round < prof.rounds; ++round) {
    // A restart: a fresh generator that knows only the previous one's high-water mark.
    SharedSnowflakeGenerator gen(layout, node, clock,
                                 {.max_backward_wait_ms = 5, .issued_up_to_unix_ms = mark});
    std::vector<std::thread> threads;
    std::vector<ChildReport> counts(prof.threads);
    for (int t = 0; t < prof.threads; ++t)
      threads.emplace_back([&, t] {
        auto& out = per_thread[t];
        auto& c = counts[t];
        Snowflake prev = out.empty() ? Snowflake{} : out.back();
        const std::size_t start = out.size(), target = start + per_round_thread;
        int next_fault = 0;
        std::uint64_t refused_since_back = 0;
        bool stepped_back_1s = false;
        while (out.size() < target && std::chrono::steady_clock::now() < deadline) {
          if (t == 0 && next_fault < kFaultCount &&
              (out.size() - start) * (kFaultCount + 1) >= per_round_thread * (next_fault + 1)) {
            clock.step_ns(kFaults[next_fault]);
            stepped_back_1s = kFaults[next_fault] == -1000 * kMs;
            ++next_fault;
          }
          if (stepped_back_1s && refused_since_back >= 1000) {
            clock.step_ns(1000 * kMs);
            stepped_back_1s = false;
          }
          ++c.attempted;
          try {
            const Snowflake id = gen.next();
            ++c.acknowledged;
            if (id <= prev) ++c.order_violations;
            prev = id;
            out.push_back(id);
          } catch (const Error&) {
            ++c.refused;
            ++refused_since_back;
          }
        }
      });
    for (auto& th : threads) th.join();
    for (const auto& c : counts) {
      rep.attempted += c.attempted, rep.acknowledged += c.acknowledged, rep.refused += c.refused;
      rep.order_violations += c.order_violations;
    }
    mark = gen.last_unix_ms();
  }
  std::vector<Snowflake> all;
  for (auto& v : per_thread) {
    for (Snowflake id : v)
      if (decompose(layout, id).node != node) ++rep.foreign_node;
    all.insert(all.end(), v.begin(), v.end());
    std::vector<Snowflake>().swap(v);
  }
  std::sort(all.begin(), all.end());
  for (std::size_t i = 1; i < all.size(); ++i) rep.duplicated += all[i] == all[i - 1];
  return rep;
}

TEST(SnowflakeHunt, NoDuplicateAcrossProcessesThreadsRestartsAndClockFaults) {
  const Profile prof = profile_from_env();
  const auto reports =
      run_in_children<ChildReport>(prof.processes, [&](int i) { return hunt_in_process(i, prof); });
  HuntReport total;
  total.generator = "snowflake (shared, faults)";
  std::uint64_t foreign = 0;
  for (const auto& r : reports) {
    total +=
        HuntReport{"", r.attempted, r.acknowledged, r.refused, r.duplicated, r.order_violations};
    foreign += r.foreign_node;
  }
  publish(total);
  EXPECT_EQ(total.duplicated, 0u);
  EXPECT_EQ(total.order_violations, 0u);
  EXPECT_EQ(foreign, 0u);
  EXPECT_EQ(total.acknowledged,
            static_cast<std::uint64_t>(prof.processes) * prof.snowflake_ids_per_process);
  EXPECT_GT(total.refused, 0u) << "the -1 s step should have been refused at least once";
}

}  // namespace
}  // namespace idforge::stress
