// The explorer's world, in one block of shared memory that the scheduler and every holder
// process (and every child they fork) map at the same address: the actors and the baton
// that lets exactly one of them run, the time, the logs the invariants are checked against,
// and the state of the Redis and etcd doubles. Plain data only (it is copied by fork and
// written by several processes); every field a process writes while another may read it is
// atomic.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace idforge::explore {

inline constexpr int kMaxActors = 16;
inline constexpr int kMaxHolders = 4;
inline constexpr int kMaxIssued = 2048;
inline constexpr int kMaxEvents = 256;
inline constexpr int kMaxKeys = 48;
inline constexpr int kMaxLeases = 16;
inline constexpr int kTextSize = 192;

/// Where an actor is parked. The first values mirror idforge::detail::ExplorePoint.
enum class Point : std::int32_t {
  claim,
  fence_check,
  store_request,
  store_reply,
  mark_read,
  mark_renamed,
  dir_synced,
  lock_wait,
  unlocked,  // not a park: a mutex was released
  // The explorer's own points.
  clock_read,
  clock_wait,     // waiting for the clock to reach wait_until_ns
  op_begin,       // about to run its next scripted operation
  after_fork,     // the parent right after fork()
  child_started,  // the child right after fork()
  finished,       // its script is done (state done)
};

const char* to_string(Point p) noexcept;

enum class ActorState : std::uint32_t { unused, starting, parked, running, done, dead };

struct ActorSlot {
  std::atomic<std::uint32_t> state;
  std::atomic<std::uint32_t> go;  // futex word: set to 1 to let the actor run
  std::atomic<std::int32_t> pid;
  std::int32_t holder;
  std::int32_t script;  // which script of its holder it runs
  std::int32_t op;      // index of the operation it is at
  Point point;
  char text[kTextSize];
  std::int64_t wait_until_ns;  // clock_wait: enabled once its holder's clock reaches it
  std::uint32_t unlock_gen;    // lock_wait: its process's unlock count when it parked
};

/// Something an actor did that the invariants look at.
enum class EventKind : std::int32_t {
  acquired,
  start_refused,
  released,
  lost,
  child_exited,
  refused
};

struct Event {
  EventKind kind;
  std::int32_t holder;
  std::int32_t actor;
  std::int64_t step;
  std::uint64_t node;
  std::int64_t mark;  // acquired: the mark the generator starts above
  char text[kTextSize];
};

struct Issued {
  std::uint64_t id;
  std::int32_t holder;
  std::int32_t actor;
  std::int64_t step;        // when it was returned
  std::int64_t call_begun;  // when the call began (its op_begin was left)
};

struct RedisKey {
  bool used;
  char key[96];
  char value[kTextSize];
  std::int64_t expires_ns;  // -1: never
};

struct EtcdKey {
  bool used;
  char key[96];
  char value[kTextSize];
  std::int64_t create_revision;
  std::int64_t lease;
};

struct EtcdLease {
  bool used;
  std::int64_t id;
  std::int64_t ttl_s;
  std::int64_t expires_ns;
};

/// A mark file as the durability model sees it: what a power loss would leave.
struct MarkFile {
  bool used;
  char path[kTextSize];
  bool durable_exists;
  char durable[32];
  bool pending;  // renamed since the directory was last synced
  char current[32];
};

struct World {
  // The baton.
  std::atomic<std::uint32_t> scheduler_wake;  // futex word the scheduler sleeps on
  ActorSlot actors[kMaxActors];
  std::atomic<std::int64_t> step;

  // Time: the true time; each holder's clock reads it plus its offset.
  std::atomic<std::int64_t> true_ns;
  std::int64_t clock_offset_ns[kMaxHolders];

  // Per holder process.
  std::atomic<std::int32_t> holder_pid[kMaxHolders];
  std::atomic<std::uint32_t> started[kMaxHolders];  // its generator exists
  std::atomic<std::uint32_t> unlock_gen[kMaxHolders];
  std::atomic<std::int64_t> fence_ms[kMaxHolders];       // its generator's fence, after each op
  std::atomic<std::int64_t> lease_ends_ms[kMaxHolders];  // its lease's deadline in the store

  // Logs.
  std::atomic<std::int32_t> issued_count;
  Issued issued[kMaxIssued];
  std::atomic<std::int32_t> event_count;
  Event events[kMaxEvents];

  // Faults armed by the scheduler, taken by the next actor that reaches the point.
  std::atomic<std::int32_t> fail_next_mark_read;  // errno, or 0
  std::atomic<std::int32_t> lose_next_reply;      // 1: the next store reply is lost (applied)

  // The Redis double.
  RedisKey redis[kMaxKeys];
  // The etcd double.
  EtcdKey etcd[kMaxKeys];
  EtcdLease etcd_leases[kMaxLeases];
  std::int64_t etcd_revision;
  std::int64_t etcd_next_lease;
  // The durability model of mark files.
  MarkFile marks[kMaxKeys];
};

/// The world of this process (mapped before any holder is forked).
World& world() noexcept;
/// Maps a fresh world (once per process) and zeroes it.
void reset_world() noexcept;

/// Copies text into a fixed field, cut to fit.
template <std::size_t N>
void put(char (&field)[N], const char* text) noexcept {
  std::size_t i = 0;
  for (; text && text[i] != '\0' && i + 1 < N; ++i) field[i] = text[i];
  field[i] = '\0';
}

}  // namespace idforge::explore
