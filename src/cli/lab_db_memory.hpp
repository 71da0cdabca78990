// `idforge lab db --memory-mb M`: the memory-limited run of the index lab (see
// include/idforge/lab/memory_lab.hpp), its options, its tables and its chart.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace idforge::cli {

/// The options of a memory-limited run, as typed.
struct MemoryArgs {
  std::string memory_mb;  ///< set: this is a memory-limited run
  std::string report;     ///< set: print a recorded run (its --json file) instead of running
  std::string engine, rows, kinds, cache_mb, svg;
  std::uint32_t batch = 1, probe = 500;
  unsigned windows = 40;
  std::string writers = "1,2,4,8,16,32";
  std::string writer_kinds = "snowflake,uuid7,uuid4";
  double writer_seconds = 3;
  std::string writer_prefill = "100000";
  int port = 0;
  std::string data_dir;
  bool sync_commit = false, json = false, quiet = false;
};

/// Adds --memory-mb and the options only a memory-limited run reads to `lab db`.
void add_memory_options(CLI::App& cmd, MemoryArgs& a);

/// Runs it and prints a table per kind, the summary with the factors, the writers curve (or
/// JSON), and writes the SVG chart when asked.
void run_db_memory(const MemoryArgs& a);

}  // namespace idforge::cli
