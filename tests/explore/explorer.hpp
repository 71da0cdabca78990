// The deterministic interleaving explorer. A run starts the scenario's holders as processes
// (their threads and forked children are actors), then takes steps: either one actor runs
// from its point to its next one, or the environment makes a move. After every step the
// invariants are checked:
//   1. no ID issued twice (by any holder, thread or child);
//   2. each thread's IDs increase;
//   3. a holder that takes a node starts above every ID an earlier holder of it issued,
//      then or later;
//   4. every ID issued with a node lies in a tick at or below the node's mark as the store
//      holds it now (after a power loss: as the disk holds it);
//   5. no call begun after its holder released or lost the lease returns an ID;
//   6. no actor blocks outside a point (a deadlock), no process dies unasked, and a forked
//      child that exits finishes exiting.
// Schedules are explored depth-first up to a bound on preemptions (switching away from an
// actor that could go on) and on environment moves, then at random from a seed. A schedule
// is a list of choices ("a3" runs actor 3, "e1" makes the scenario's environment move 1);
// replaying it reproduces its run exactly.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "scenario.hpp"

namespace idforge::explore {

struct Choice {
  bool env = false;
  int index = 0;
  friend bool operator==(const Choice&, const Choice&) = default;
};

std::string to_string(const std::vector<Choice>& schedule);
std::vector<Choice> parse_schedule(const std::string& text);

struct RunResult {
  std::vector<Choice> schedule;        ///< every choice taken
  int preemptions = 0, env_moves = 0;  ///< the non-default choices among them
  std::optional<std::string> violation;
  std::string trace;  ///< what each step did, for a failure report
};

struct Bounds {
  int preemptions = 2;
  int env_moves = 2;
  std::int64_t max_runs = 50'000;
};

struct Summary {
  std::int64_t runs = 0;
  bool exhaustive = false;  ///< every schedule within the bounds was run
  std::optional<RunResult> failure;
};

class Explorer {
 public:
  explicit Explorer(Scenario scenario);
  /// One run: the choices of prefix first (one that is not possible then is skipped), then
  /// the default (or, with random, a random possible choice).
  RunResult run(const std::vector<Choice>& prefix, std::mt19937_64* random = nullptr);
  /// Every schedule within bounds, depth first; stops at the first violation.
  Summary exhaustive(const Bounds& bounds);
  /// runs random schedules from seed; stops at the first violation.
  Summary random(std::uint64_t seed, std::int64_t runs);
  const Scenario& scenario() const noexcept { return sc_; }

 private:
  struct Step;
  RunResult run_impl(const std::vector<Choice>& prefix, std::mt19937_64* random,
                     std::vector<Step>* steps, const Bounds* bounds);
  Scenario sc_;
};

}  // namespace idforge::explore
