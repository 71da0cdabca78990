// What the explorer runs: holders (each a process with scripted threads) on one lease
// store, and the environment's moves it may interleave with them (time jumps, crashes, a
// power loss, faults).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "idforge/coord/lease_keeper.hpp"
#include "idforge/snowflake_generator.hpp"

namespace idforge::explore {

/// An operation of a script. fork runs `child` (a script index of the same holder) in the
/// child process; exit destroys the holder's objects, as exit() runs a static object's
/// destructor, and ends the process.
struct Op {
  enum class Kind { start, next, release, renew, fork, exit } kind;
  int child = -1;
};

struct HolderSpec {
  std::string name;
  /// The store URL; "{dir}" is replaced by the run's directory, "{prefix}" by its key prefix.
  std::string url;
  std::optional<std::uint64_t> node;  ///< a fixed node ID (KeeperOptions::node)
  /// Scripts; thread[i] says whether script i runs as a thread from the start (else it is a
  /// fork child's). A thread whose script does not begin with start waits for the holder's
  /// generator to exist.
  std::vector<std::vector<Op>> scripts;
  std::vector<bool> thread;
  std::int64_t clock_offset_ms = 0;
};

/// A move of the environment.
struct EnvMove {
  enum class Kind {
    to_wait,         ///< jump the time to the earliest clock a parked actor waits for
    plus_tick,       ///< one tick of the layout
    plus_ms,         ///< arg ms
    to_fence,        ///< to holder arg's fence minus 1 ms (the last ms it may issue in)
    past_lease,      ///< 1 ms past holder arg's lease deadline in the store
    crash,           ///< kill -9 holder arg's process
    power_loss,      ///< kill every holder; mark files roll back to what was synced
    fail_mark_read,  ///< the next mark file read fails with EACCES
    lose_reply,      ///< the next store reply is lost after the store applied it
    delete_lock,     ///< delete node arg's lock file (file store) by hand
    delete_key,      ///< delete node arg's key (Redis, etcd) by hand
  } kind;
  std::int64_t arg = 0;
  int budget = 1;  ///< how often it may happen in one run
};

struct Scenario {
  std::string name;
  Layout layout = presets::twitter();
  SnowflakePolicy policy;
  coord::KeeperOptions keeper;  ///< renew_in_background is forced off: renewals are ops
  std::int64_t start_ms = 1'800'000'000'005;
  std::vector<HolderSpec> holders;
  std::vector<EnvMove> env;
  int max_time_jumps = 3;  ///< of the time moves together
  int max_steps = 400;
};

}  // namespace idforge::explore
