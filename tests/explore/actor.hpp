// The actor side of the explorer: what runs inside holder processes. Each scripted thread
// is an actor that parks at every point (idforge::detail::explore_point, the clock, the
// store doubles, the start of each operation) until the scheduler lets it take one step.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "idforge/clock.hpp"
#include "scenario.hpp"
#include "world.hpp"

namespace idforge::explore {

/// Actor slots of a scenario: which slot each thread script and each fork child takes.
struct Slots {
  std::vector<std::vector<int>> of_script;   ///< [holder][script] -> slot, -1 if none yet
  std::vector<std::vector<int>> fork_child;  ///< [holder][script] -> slot of the child it forks
  int count = 0;
};
Slots assign_slots(const Scenario& sc);

/// Per run: where the file store lives and the key prefix of the doubles.
struct RunPlace {
  std::string dir;
  std::string prefix;
};
std::string url_of(const HolderSpec& h, const RunPlace& place);

/// Runs holder h in this freshly forked process: starts its thread actors (each parks
/// first) and never returns; the scheduler kills the process at the end of the run.
[[noreturn]] void holder_main(const Scenario& sc, const Slots& slots, const RunPlace& place, int h);

/// Parks the calling actor until the scheduler lets it go on; nothing outside an actor.
void park(Point p, const char* text, std::int64_t wait_until_ns = -1);

/// The calling thread's actor slot, or -1 (the scheduler, a thread of no actor).
int current_actor() noexcept;

/// A holder's clock: the world's true time plus the holder's offset. Reading it is a
/// point; waiting parks the actor until the scheduler moves the time far enough.
class SchedClock final : public Clock {
 public:
  explicit SchedClock(int holder) : holder_(holder) {}
  std::int64_t now_ns() noexcept override;
  void wait_until_ns(std::int64_t unix_ns) noexcept override;

 private:
  int holder_;
};

}  // namespace idforge::explore
