// Running the simulator on a key kind: the workload behind `idforge lab btree` and the
// cost model, and seed 003's Demo 5.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "idforge/lab/btree_sim.hpp"
#include "idforge/lab/key_kind.hpp"
#include "idforge/lab/key_source.hpp"

namespace idforge::lab {

/// One simulated workload: n keys of one kind into an index of the given page size.
struct SimOptions {
  std::uint64_t n = 1'000'000;       ///< keys to insert; >= 1
  std::uint32_t page_bytes = 16384;  ///< page size; capacities follow from it and the key size
  std::uint32_t leaf_keys = 0;  ///< keys a leaf holds, overriding page_bytes (0: from page_bytes)
  std::uint32_t fanout = 0;     ///< children an interior page holds (0: from page_bytes)
  std::uint32_t entry_overhead = 0;  ///< bytes an index entry adds to its key (0: keys only)
  double rightmost_fill = 1.0;       ///< see BTreeConfig
  std::uint64_t pool_pages = 0;      ///< LRU pool pages (0: unlimited)
  KeySourceOptions keys{};           ///< seed, clock start, keys per ms
};

/// What a workload did. Rates and misses per tenth of the keys show how they change as
/// the tree grows.
struct SimResult {
  KeyKind kind{};
  BTreeConfig config{};
  BTreeStats stats{};
  double insert_seconds = 0;                ///< time spent inside BTreeSim::insert
  double inserts_per_s = 0;                 ///< simulator speed: n / insert_seconds
  std::vector<double> tenth_inserts_per_s;  ///< simulator speed in each tenth
  std::vector<double> tenth_miss_rate;      ///< pool misses per insert in each tenth
  std::vector<std::uint64_t> tenth_end;     ///< keys inserted at the end of each tenth
  /// Leaf fill averaged over 50 points in the second half of the run. With random keys the
  /// fill at one moment swings in waves (leaves born together split together, most so with
  /// big pages: Glombiewski, Seeger and Graefe, "Waves of misery after index creation",
  /// BTW 2019); averaged over a doubling of the tree it is the steady state, near ln 2.
  double leaf_fill_mean = 0;
};

/// A workload run for several kinds: what `idforge lab btree --json` writes and
/// `lab cost --fill-from` reads back.
struct SimReport {
  SimOptions options{};
  std::vector<SimResult> results;  ///< one per kind, in the order run
};

/// report as JSON text: the options at the top level, and under "results" each kind's
/// scoreboard, index shape, speeds and its tenths (rows, inserts_per_s, misses_per_insert).
std::string sim_report_json(const SimReport& report);

/// The report back from sim_report_json() text. A field left out keeps its default (a file
/// may hold only kind and leaf_fill); one of the wrong type, an unknown kind or text that
/// is not JSON throws Error(errc::parse_error) naming the field and what it holds.
SimReport sim_report_from_json(std::string_view text);

/// The index shape for kind under options (capacities from page size and key size unless
/// overridden). Throws Error(errc::invalid_argument) as BTreeConfig does.
BTreeConfig sim_config(KeyKind kind, const SimOptions& options);

/// Inserts options.n keys of kind from make_model_key_source(kind, options.keys).
SimResult run_simulation(KeyKind kind, const SimOptions& options);

/// Seed 003's Demo 5: keys of each kind into a small tree, with every leaf's keys and their
/// creation numbers.
struct DemoOptions {
  std::uint32_t keys = 12;        ///< keys a kind
  std::uint32_t leaf_keys = 4;    ///< keys a leaf page holds
  std::uint32_t fanout = 16;      ///< interior pages hold this many children (so only leaves split)
  std::uint64_t seed = 20240501;  ///< seed of the key models
  std::vector<KeyKind> kinds{KeyKind::uuid7, KeyKind::uuid4};
};

/// One kind's run of the demo.
struct DemoRun {
  KeyKind kind{};
  std::vector<Key128> keys;  ///< in creation order (keys[i] has creation number i+1)
  BTreeStats stats{};
  std::vector<LeafView> leaves;
};

/// Runs the demo for each kind; the same options always give the same result.
std::vector<DemoRun> run_demo(const DemoOptions& options = {});

}  // namespace idforge::lab
