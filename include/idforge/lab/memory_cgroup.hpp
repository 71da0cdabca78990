// MemoryCgroup: a real memory limit for the index lab. The lab puts a database server (or its
// own SQLite worker process) into a memory cgroup of its own, so that everything the engine
// can cache an index in is small for real: the processes' own memory, their shared memory
// (PostgreSQL's shared_buffers) and the OS page cache of the files they read and write are
// all charged to the group and reclaimed inside it when it is full.
//
// cgroup v1 first (/sys/fs/cgroup/memory, memory.limit_in_bytes), then cgroup v2 (the first
// cgroup2 mount whose root offers the memory controller in cgroup.subtree_control,
// memory.max). Making a group needs root; the lab never changes which controllers a
// hierarchy enables and never falls back to running without a limit: when neither version
// can give a group, create() throws CgroupUnavailable saying why for each.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "idforge/error.hpp"
#include "idforge/lab/lab_errc.hpp"

namespace idforge::lab {

/// No memory cgroup could be made (not root, no memory controller, read-only hierarchy...).
/// what() is one line naming each hierarchy tried and why it failed.
class CgroupUnavailable : public Error {
 public:
  explicit CgroupUnavailable(const std::string& message)
      : Error(lab_errc::store_unreachable, message) {}
};

/// A memory cgroup that exists from create() until the object is destroyed (or remove()).
class MemoryCgroup {
 public:
  /// Makes the group `name` (letters, digits, '-', '_', '.') with a limit of limit_bytes
  /// (>= 1 MiB). A stale group of that name with no processes in it is removed and made
  /// again; one that still has processes is an Error(lab_errc::already_exists) naming them.
  /// Throws CgroupUnavailable when no hierarchy allows it.
  static MemoryCgroup create(const std::string& name, std::uint64_t limit_bytes);

  MemoryCgroup(MemoryCgroup&& other) noexcept;
  MemoryCgroup& operator=(MemoryCgroup&&) = delete;
  MemoryCgroup(const MemoryCgroup&) = delete;
  /// Removes the group (see remove()); errors are swallowed.
  ~MemoryCgroup();

  /// 1 or 2.
  int version() const noexcept { return version_; }
  /// The group's folder, e.g. /sys/fs/cgroup/memory/idforge-lab-21441.
  const std::string& path() const noexcept { return path_; }
  /// The cgroup.procs file; a process that writes "0" to it moves itself in (what a child
  /// does between fork and exec: see move_self_into()).
  const std::string& procs_file() const noexcept { return procs_file_; }

  /// Moves process pid (and, for its children from then on, them) into the group.
  void add_process(pid_t pid) const;
  /// Moves the calling process into the group. Async-signal-safe (open, write, close of a
  /// path taken beforehand), so it may run between fork() and exec(); returns false on failure.
  static bool move_self_into(const char* procs_file) noexcept;

  /// The process IDs in the group now.
  std::vector<pid_t> processes() const;
  /// The limit in bytes as the kernel reports it.
  std::uint64_t limit() const;
  /// Changes the limit (the lab lifts it after a run to measure the index without pressure).
  void set_limit(std::uint64_t bytes) const;
  /// Bytes charged to the group now (memory.usage_in_bytes / memory.current).
  std::uint64_t usage() const;
  /// The most bytes ever charged (v1 memory.max_usage_in_bytes, v2 memory.peak; 0 if absent).
  std::uint64_t peak() const;
  /// Starts peak() again from the present usage (v1 writes 0 to memory.max_usage_in_bytes,
  /// v2 writes to memory.peak, which kernels from 6.12 allow); false where it cannot.
  bool reset_peak() const noexcept;
  /// Anonymous memory of the group's processes now (memory.stat v1 "rss", v2 "anon"): what
  /// the kernel cannot reclaim without swap, so what a cache inside the group cannot use.
  std::uint64_t anon_bytes() const;
  /// Page cache charged to the group now (memory.stat: v1 "cache" less "shmem", v2 "file" less
  /// "shmem").
  std::uint64_t page_cache() const;
  /// Times a process in the group was killed for memory (v1 memory.oom_control oom_kill,
  /// v2 memory.events oom_kill; 0 when the kernel does not say).
  std::uint64_t oom_kills() const;
  /// Reclaims the group's page cache (v1 memory.force_empty, v2 memory.reclaim), so one run
  /// does not start with another's pages cached. Best effort: false if the kernel refused.
  bool drop_page_cache() const noexcept;

  /// Removes the group once its processes have gone (waits up to about 5 s for them). Throws
  /// Error(lab_errc::store_unreachable) naming the folder and the processes left if it cannot.
  void remove();

 private:
  MemoryCgroup(int version, std::string path);
  std::string read(const char* file) const;
  std::uint64_t stat_value(const std::string& key) const;

  int version_ = 0;
  std::string path_, procs_file_;
};

/// Bytes the processes read from storage, summed over pids (/proc/PID/io read_bytes: reads
/// served from the page cache are not counted). Processes that are gone count 0.
std::uint64_t storage_read_bytes(const std::vector<pid_t>& pids);

}  // namespace idforge::lab
