// The memory-limited index lab: seed 000's Problem #3 ("once the primary-key index outgrows
// RAM, random keys make every insert read a cold page") on real engines with a real limit.
//
// The engine runs in a MemoryCgroup of memory_bytes: PostgreSQL and MariaDB as a LabServer
// started for the run, SQLite in a child process of the lab's that joins the cgroup before it
// opens the file. For each key kind a fresh table (the primary key is its only column) grows
// to `rows` rows in `windows` equal windows. In each window:
//   - rows go in one per transaction (batch 1, the default: one INSERT and its commit per
//     order, as in the seed's checkout) or in batches of `batch` rows, of which the first
//     `probe` rows of every window still go one per transaction so that the single-row
//     latency is measured at every size;
//   - p50 / p99 of the single-row latency, inserts/s over the window, engine cache misses
//     per insert (PostgreSQL idx_blks_read, InnoDB Innodb_buffer_pool_reads, SQLite cache
//     misses), bytes the engine's processes read from storage per insert (/proc/PID/io),
//     WAL/redo bytes per insert (and PostgreSQL full-page images per insert), the index's
//     size and a leaf fill estimated from it (rows x entry bytes / index bytes).
// The index "leaves memory" at the first window whose index is larger than the memory it can
// be cached in: for PostgreSQL and SQLite the cgroup's limit less the processes' own
// (anonymous) memory measured when the engine is up, which is what their caches and the page
// cache inside the cgroup can share; for InnoDB the buffer pool (O_DIRECT bypasses the page
// cache).
// After the last window the limit is lifted and the exact leaf fill read (pgstatindex, InnoDB
// buffer pages, SQLite dbstat).
//
// The writers curve (PostgreSQL and MariaDB): with the keys in memory (a table of
// writer_prefill rows), 1, 2, 4 ... concurrent writers, each on its own connection with its
// own generator (Snowflake node = writer number), insert one row a transaction for
// writer_seconds: inserts/s against writers shows whether the rightmost leaf becomes a
// contention point for ordered keys as writers grow. The curve runs with the cgroup's limit
// raised to 256 MiB (or the limit, if larger) + 8 MiB a writer: its keys are meant to be in
// memory, and every writer is a server process of its own.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "idforge/lab/db_bench.hpp"
#include "idforge/lab/key_kind.hpp"
#include "idforge/lab/lab_errc.hpp"

namespace idforge::lab {

/// One memory-limited run.
struct MemoryLabOptions {
  DbEngine engine = DbEngine::postgres;
  std::uint64_t memory_bytes = 64ull << 20;  ///< the cgroup's limit; >= 16 MiB (8 MiB for SQLite)
  std::uint64_t cache_bytes = 0;   ///< shared_buffers / buffer pool / cache_size; 0: memory / 4
  std::uint64_t rows = 1'000'000;  ///< rows a kind at the end; >= windows
  unsigned windows = 40;           ///< windows the rows are measured in; 2..1000
  std::uint32_t batch = 1;         ///< rows a transaction; 1 = single-row transactions
  std::uint32_t probe = 500;  ///< with batch > 1: single-row inserts at the start of each window
  std::vector<KeyKind> kinds{KeyKind::snowflake, KeyKind::uuid7, KeyKind::uuid4,
                             KeyKind::uuid4_text};
  bool synchronous_commit = false;  ///< commit waits for the WAL/redo flush
  /// Writers curve: counts of concurrent writers (empty: no curve; ignored for SQLite).
  std::vector<unsigned> writers{1, 2, 4, 8, 16, 32};
  std::vector<KeyKind> writer_kinds{KeyKind::snowflake, KeyKind::uuid7, KeyKind::uuid4};
  double writer_seconds = 3;               ///< time each point runs; 0.1..600
  std::uint64_t writer_prefill = 100'000;  ///< rows in the table before the first point
  int port = 0;                            ///< lab server port (0: default_lab_port)
  std::string parent_dir;  ///< lab server / SQLite folder parent (default $IDFORGE_DATA or .data)
  /// Called with a line of progress (optional).
  std::function<void(const std::string&)> progress;
  /// Polled between rows; true stops the run (the server is stopped and the cgroup removed).
  std::function<bool()> should_stop;
};

/// One window of rows.
struct MemoryWindow {
  std::uint64_t rows_end = 0;  ///< rows in the table at the window's end
  std::uint64_t rows = 0;      ///< rows inserted in the window
  double seconds = 0;
  double inserts_per_s = 0;         ///< rows / seconds, single and batched together
  std::uint64_t single_rows = 0;    ///< rows inserted one per transaction
  double p50_ms = 0, p99_ms = 0;    ///< single-row insert + commit latency
  double mean_ms = 0;               ///< its mean (stalls that p99 misses show here)
  double batch_ms_per_row = 0;      ///< batched rows: batch time / rows (0 when none)
  double misses_per_insert = 0;     ///< engine cache misses per row
  double disk_kib_per_insert = 0;   ///< KiB read from storage by the engine's processes per row
  double wal_bytes_per_insert = 0;  ///< WAL / redo bytes per row
  double fpi_per_insert = 0;        ///< PostgreSQL full-page images per row (0 elsewhere)
  std::uint64_t index_bytes = 0;    ///< index size at the window's end
  double fill_estimate = 0;         ///< rows_end x entry bytes / usable index bytes
  std::uint64_t cgroup_bytes = 0;   ///< memory charged to the cgroup at the window's end
};

/// One key kind's growth.
struct MemoryKindResult {
  KeyKind kind{};
  std::string column_type;
  std::vector<MemoryWindow> windows;
  std::optional<std::uint64_t> crossing_rows;  ///< rows when the index first exceeded cache_limit
  /// Rows at the end of the first window in which at least one insert in ten read a page from
  /// storage (disk reads per insert >= a tenth of a page): where the slowdown starts. It comes
  /// before the crossing where the table's heap, the WAL and the engine share the memory.
  std::optional<std::uint64_t> knee_rows;
  double entry_bytes = 0;         ///< bytes an index entry takes (for fill_estimate)
  std::uint64_t index_bytes = 0;  ///< at the end
  std::uint64_t leaf_pages = 0;
  double leaf_fill = 0;  ///< exact, after the run
  std::string fill_method;
  double seconds = 0;
  // Summaries: medians of window figures. "before": the windows before the knee (all of them
  // when there is none); "after": the last quarter of the windows.
  double p50_before_ms = 0, p50_after_ms = 0, p99_after_ms = 0;
  double mean_before_ms = 0, mean_after_ms = 0;
  double inserts_per_s_before = 0, inserts_per_s_after = 0;
  double misses_after = 0, disk_kib_after = 0, wal_bytes_after = 0, fpi_after = 0;
  double wal_bytes_per_insert = 0;  ///< over the whole growth (checkpoints fall where they fall)
  double fpi_per_insert = 0;        ///< PostgreSQL full-page images over the whole growth
  bool after_is_past_knee = false;  ///< every "after" window is at or past the knee
};

/// Concurrent writers on a table whose keys are in memory.
struct WritersPoint {
  unsigned writers = 0;
  std::uint64_t rows = 0;
  double seconds = 0;
  double inserts_per_s = 0;
  double p50_ms = 0, p99_ms = 0;
};

/// One kind's writers curve.
struct WritersResult {
  KeyKind kind{};
  std::vector<WritersPoint> points;
};

/// A whole run.
struct MemoryLabResult {
  DbEngine engine{};
  std::string server_version;
  std::string settings;  ///< how the engine ran, in words
  int cgroup_version = 0;
  std::uint64_t memory_bytes = 0;   ///< the cgroup's limit
  std::uint64_t cache_bytes = 0;    ///< shared_buffers / buffer pool / cache_size
  std::uint64_t cache_limit = 0;    ///< what an index must outgrow to leave memory (see the top)
  std::uint64_t process_bytes = 0;  ///< the engine's anonymous memory when it was up
  std::uint32_t page_bytes = 0;
  std::uint64_t rows = 0;
  unsigned windows = 0;
  std::uint32_t batch = 1, probe = 0;
  std::uint64_t cgroup_peak = 0;  ///< most bytes the cgroup held while limited to memory_bytes
  std::vector<MemoryKindResult> results;
  std::vector<WritersResult> writers;
  /// Stopped (MemoryLabOptions::should_stop) after at least one kind had grown: results and
  /// writers hold what finished, each whole; the rest was not measured.
  bool interrupted = false;
  /// The kind's result, or nullptr.
  const MemoryKindResult* of(KeyKind kind) const noexcept;
};

/// Runs it. Throws CgroupUnavailable (one line, nothing started) when no memory cgroup can be
/// made, Error(errc::invalid_argument) for bad options, Error(lab_errc::store_unreachable) when a
/// server cannot be started or fails; the server and the cgroup are gone on every way out.
MemoryLabResult run_memory_lab(const MemoryLabOptions& options);

/// The run as JSON (every window, every point), for `--json` and for files `lab cost` and
/// `advise` read.
std::string memory_lab_json(const MemoryLabResult& result);

/// The run back from memory_lab_json() text. Throws Error(errc::parse_error) naming what is
/// missing.
MemoryLabResult memory_lab_from_json(const std::string& text);

/// Bytes one primary-key entry takes in a leaf of engine for kind (key, tuple or record
/// header, slot): PostgreSQL MAXALIGN(8 + key) + 4, InnoDB key + 18 + 2 / 8 (directory),
/// SQLite key + 5 (cell pointer, payload size, record header). Used for the fill estimate.
double index_entry_bytes(DbEngine engine, KeyKind kind);

}  // namespace idforge::lab
