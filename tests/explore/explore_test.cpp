// The interleaving explorer over every scenario: every schedule within the bounds (two
// preemptions, two moves of the environment), then random schedules from fixed seeds;
// and every schedule that ever found a violation, replayed. Nothing may violate the
// invariants (explorer.hpp). IDFORGE_EXPLORE_SCALE multiplies the run counts.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "explorer.hpp"
#include "scenarios.hpp"

namespace idforge::explore {
namespace {

std::int64_t scaled(std::int64_t n) {
  const char* s = std::getenv("IDFORGE_EXPLORE_SCALE");
  return s ? static_cast<std::int64_t>(static_cast<double>(n) * std::atof(s)) : n;
}

std::string report(const RunResult& r) {
  return *r.violation + "\nschedule (" + std::to_string(r.schedule.size()) + " steps, " +
         std::to_string(r.preemptions) + " preemptions, " + std::to_string(r.env_moves) +
         " moves of the environment): " + to_string(r.schedule) + "\n" + r.trace;
}

class Explore : public ::testing::TestWithParam<std::string> {};

TEST_P(Explore, NoScheduleWithinTheBoundsViolatesAnInvariant) {
  Explorer ex(scenario_named(GetParam()));
  const Summary s = ex.exhaustive({2, 2, scaled(1500)});
  RecordProperty("runs", static_cast<int>(s.runs));
  RecordProperty("exhaustive", s.exhaustive ? "yes" : "no");
  ASSERT_FALSE(s.failure) << report(*s.failure);
  std::printf("explore %s: %lld schedules%s\n", GetParam().c_str(), static_cast<long long>(s.runs),
              s.exhaustive ? " (all within the bounds)" : " (cap reached)");
}

TEST_P(Explore, NoRandomScheduleViolatesAnInvariant) {
  Explorer ex(scenario_named(GetParam()));
  const Summary s = ex.random(20261130, scaled(300));
  ASSERT_FALSE(s.failure) << report(*s.failure);
}

// Every schedule that found a violation, replayed: on the code before the fences held they
// issued an ID twice or past its mark (the violation each found is named); now none may.
struct Found {
  const char* scenario;
  const char* schedule;
};
const Found kFound[] = {
    // A child's exit wrote its stale mark over the parent's (and released its lease).
    {"fork-exit/file",
     "e0 a2 a0 a0 a2 a0 a0 a2 a0 a0 a0 a0 a0 a0 e0 a0 a0 a0 a1 a0 a0 a0 a1 a1 a0 a1 a0 a0 a1 a1"},
    {"fork-exit/redis",
     "a0 a2 a0 a0 a0 a2 a0 a0 a2 a0 a2 a0 a0 a0 a2 a0 e0 a2 a0 a0 a2 a0 a0 a0 a0 a0 a1 e0 a0 a1 "
     "a0 a1 a1 a1 a1 a1 a0 a0 a0"},
    // release() stored the last time while a call past its fence check claimed a later tick.
    {"release-in-flight/file", "a0 a0 a2 e0 a2 a2 e0 a0 a0 a0 a0 a0 a0 a0 a0 a1 a0 a1 a0 a1"},
    {"release-in-flight/redis",
     "a0 a0 a0 e0 a0 e0 a2 a2 a0 a0 a2 a2 a2 a2 a0 a2 a0 a0 a0 a0 a0 a0 a0 a0 a1 a0 a1 a1 a0"},
    {"release-in-flight/etcd",
     "e0 e0 a0 a2 a0 a0 a0 a2 a2 a2 a0 a2 a2 a0 a0 a2 a0 a0 a0 a0 a2 a0 a2 a0 a2 a2 a0 a0 a0 a0 "
     "a0 a0 a0 a1 a1 a0 a0 a1"},
    // The clock read again after a stale reading skipped the fence.
    {"stale-reading/redis",
     "e3 a0 a0 a0 a0 a2 a0 a2 e0 a2 a2 a0 a0 a0 a0 a0 a0 a0 a0 a1 a1 a1 a0 e1 a0 e2 a1 a0 a0 a0 "
     "a1 a0 a1"},
    {"stale-reading/etcd",
     "e0 a2 e3 a0 a2 a0 a0 a0 a0 a2 a2 a0 a0 a2 a0 a0 a2 a0 a0 a2 a2 a2 a0 a0 a0 a0 a0 a0 a1 a0 "
     "a0 e1 a1 a1 e2 a1 a1 a0 a0 a0"},
    // A fence in ms let the claim after the wait for the next tick land past the mark.
    {"tick-fence/file",
     "a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 e1 e0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 e99 a0"},
    // An unreadable mark was taken for none.
    {"unreadable-mark/file",
     "a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a1 a1 a1 e0 a1 a1 a1 a1 a1"},
    // The rename of the mark rolled back at the power loss (no fsync of the directory).
    {"power-loss/file", "a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a1 a1 e0"},
    // app-18446744073709551615?offset=1 wrapped to worker 0, app-0's.
    {"ordinal-alias/static", "a0 a0 a0 a0 a0 a0 a0 a0 a1 a1 a1 a1"},
};

TEST(Explore, EveryScheduleThatEverFoundAViolationFindsNoneNow) {
  for (const Found& f : kFound) {
    Explorer ex(scenario_named(f.scenario));
    const RunResult r = ex.run(parse_schedule(f.schedule));
    EXPECT_FALSE(r.violation) << f.scenario << ": " << report(r);
  }
}

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const Scenario& s : all_scenarios()) out.push_back(s.name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Scenarios, Explore, ::testing::ValuesIn(names()), [](const auto& info) {
  std::string n = info.param;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
});

}  // namespace
}  // namespace idforge::explore

namespace idforge::explore {
namespace {
// IDFORGE_EXPLORE_TRACE=scenario [IDFORGE_EXPLORE_SCHEDULE="a0 a1 ..."] prints one run.
TEST(Explore, TraceOfOneRunWhenAsked) {
  const char* name = std::getenv("IDFORGE_EXPLORE_TRACE");
  if (!name) GTEST_SKIP() << "set IDFORGE_EXPLORE_TRACE to a scenario name";
  const char* sched = std::getenv("IDFORGE_EXPLORE_SCHEDULE");
  Explorer ex(scenario_named(name));
  const RunResult r = ex.run(parse_schedule(sched ? sched : ""));
  std::printf("%s\nschedule: %s\nviolation: %s\n", r.trace.c_str(), to_string(r.schedule).c_str(),
              r.violation.value_or("none").c_str());
}
}  // namespace
}  // namespace idforge::explore
