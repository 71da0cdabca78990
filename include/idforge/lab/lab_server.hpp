// LabServer: a database server of the lab's own, started for one memory-limited run and
// stopped at its end. Its processes live in a MemoryCgroup from the first instruction they
// run, so the limit covers the server's memory, its shared buffers and its page cache.
//
//   PostgreSQL 15  initdb (as the postgres user) into a fresh folder, then `postgres` in the
//                  foreground with shared_buffers = cache_bytes, autovacuum off (an insert-only
//                  table would otherwise be vacuumed in the middle of a measurement),
//                  synchronous_commit off unless asked (see docs/INDEX-LAB.md); fsync and
//                  full_page_writes stay on, as in production; checkpoint_timeout 60 s, so
//                  that a run of minutes sees the checkpoints (and the full-page images after
//                  each) that a table growing for months sees every few minutes.
//   MariaDB 10.11  mariadb-install-db into a fresh folder, then `mariadbd --no-defaults` with
//                  innodb_buffer_pool_size = cache_bytes and innodb_flush_method = O_DIRECT
//                  (data pages bypass the page cache, so the buffer pool is the only cache),
//                  innodb_flush_log_at_trx_commit = 2 (or 1 with synchronous commit), and the
//                  other caches (Aria, MyISAM keys, query cache, performance schema) shrunk
//                  or off so that they do not eat the limit.
// Both listen on 127.0.0.1 only, on a port of their own (default: default_lab_port()), with
// their socket in their folder. The server is stopped, its cgroup removed and its folder
// deleted when the LabServer is destroyed, on every path out of a run.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "idforge/lab/db_bench.hpp"
#include "idforge/lab/memory_cgroup.hpp"

namespace idforge::lab {

/// How to start a lab server.
struct LabServerOptions {
  DbEngine engine = DbEngine::postgres;  ///< postgres or mariadb
  std::string parent_dir;  ///< the server's folder is made inside (default $IDFORGE_DATA or .data)
  int port = 0;            ///< 0: default_lab_port(engine)
  std::uint64_t memory_bytes = 0;  ///< the cgroup's limit; >= 16 MiB
  std::uint64_t cache_bytes = 0;  ///< shared_buffers / innodb_buffer_pool_size; 0: memory_bytes / 4
  bool synchronous_commit = false;  ///< wait for the WAL/redo flush at each commit
  unsigned max_connections = 60;    ///< enough for 32 writers and the lab's own
  std::string pg_bin_dir;           ///< default $IDFORGE_PG_BIN or /usr/lib/postgresql/15/bin
  bool keep_data = false;           ///< leave the folder behind (its path is in data_dir())
};

/// 14441 + IDFORGE_PORT_OFFSET for PostgreSQL, 14447 + IDFORGE_PORT_OFFSET for MariaDB (ports
/// chosen to fall between those of scripts/services.sh for every offset it uses).
int default_lab_port(DbEngine engine);

/// A running lab server. Not copyable; destroying it stops the server.
class LabServer {
 public:
  /// Makes the cgroup (CgroupUnavailable when it cannot: nothing else is started then), the
  /// folder and the server, and waits until it answers (up to 60 s). Throws Error naming the
  /// step, with the tail of the server's log, when a step fails; whatever it had started by
  /// then is stopped and removed.
  static std::unique_ptr<LabServer> start(const LabServerOptions& options);

  ~LabServer();
  LabServer(const LabServer&) = delete;
  LabServer& operator=(const LabServer&) = delete;

  /// Where to connect (pg_url, or mariadb_socket).
  DbConnection connection() const;
  /// The cgroup the server's processes are in.
  const MemoryCgroup& cgroup() const noexcept { return cgroup_; }
  /// The settings the server was started with, in words (for reports).
  const std::string& settings() const noexcept { return settings_; }
  /// The server's folder.
  const std::string& data_dir() const noexcept { return dir_; }
  /// The cache size asked for (shared_buffers / buffer pool).
  std::uint64_t cache_bytes() const noexcept { return cache_bytes_; }
  /// Bytes the server's processes have read from storage so far (see storage_read_bytes).
  std::uint64_t storage_read_bytes() const;
  /// Stops the server (fast shutdown, then SIGKILL after 60 s), removes the cgroup and, unless
  /// kept, the folder. Throws Error if the cgroup cannot be removed. Idempotent.
  void stop();

 private:
  LabServer(LabServerOptions options, MemoryCgroup cgroup, std::string dir);
  void start_postgres();
  void start_mariadb();
  void wait_until_ready();
  [[noreturn]] void fail(const std::string& step, const std::string& why);

  LabServerOptions options_;
  MemoryCgroup cgroup_;
  std::string dir_, settings_, log_;
  std::uint64_t cache_bytes_ = 0;
  pid_t pid_ = -1;
  bool stopped_ = false;
};

}  // namespace idforge::lab
