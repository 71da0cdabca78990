// advise: seed 000's decision matrix ("Which ID generator should you pick?") as a function of
// the situation, with the measured numbers behind each answer.
//
//   secrets (reset links, API keys)       -> a random token, never a time-based ID
//   one database, < 10,000 writes/s        -> the database's own identity column
//   serverless / short-lived processes     -> UUIDv7 (no node ID to lease)
//   many writers, billions of rows or a
//   64-bit column                          -> Snowflake (half the index of a UUID)
//   otherwise distributed                  -> UUIDv7
// Each answer carries the settings that go with it (column type, layout, strings in JSON for
// JavaScript clients), the reasons, warnings where the situation strains it, the index size
// and monthly RAM of every candidate for the given rows (lab cost's model with measured
// fills), and the lab's measured figures: leaf fill, the slowdown of UUIDv4 once its index
// outgrows memory, WAL per insert.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "idforge/lab/cost_model.hpp"
#include "idforge/lab/memory_lab.hpp"

namespace idforge::lab {

/// The situation to advise on.
struct Situation {
  unsigned databases = 1;          ///< database servers that take writes; >= 1
  double writes_per_second = 100;  ///< peak inserts a second, all servers together; >= 0
  double rows = 1e6;               ///< rows the biggest table will hold; >= 1
  double memory_gb = 0;            ///< RAM of one database server (0: not said)
  unsigned copies = 5;  ///< times a row stores its key (primary key + secondary indexes, as InnoDB)
  bool serverless = false;  ///< IDs made in short-lived processes (Lambda, Workers, Cloud Run)
  bool secret = false;      ///< the value must be unguessable (a token, not a key)
  bool must_fit_64_bits = false;  ///< the column or an API is a 64-bit integer
  bool js_clients = false;        ///< JavaScript reads the IDs from JSON
};

/// The measured figures an answer quotes, with where they come from.
struct MeasuredFigures {
  std::string source;         ///< run, command and machine, in words
  double fill_ordered = 0;    ///< leaf fill of UUIDv7 (time-ordered) keys, 0..1
  double fill_random = 0;     ///< leaf fill of UUIDv4 keys
  double p50_ordered_ms = 0;  ///< UUIDv7 single-row insert p50 once its table is past memory size
  double p50_random_before_ms = 0;   ///< UUIDv4 p50 while its index is in memory
  double p50_random_after_ms = 0;    ///< UUIDv4 p50 once its index is past memory
  double slowdown_vs_ordered = 0;    ///< p50_random_after / p50_ordered (past memory)
  double throughput_vs_ordered = 0;  ///< UUIDv4 inserts/s / UUIDv7 inserts/s past memory
  double wal_vs_ordered = 0;         ///< UUIDv4 WAL bytes per insert / UUIDv7's
  double index_vs_ordered = 0;       ///< UUIDv4 index bytes / UUIDv7's, same rows
  double text_index_vs_binary = 0;   ///< UUIDv4 as text / UUIDv4 binary index bytes
  bool random_past_memory =
      false;  ///< the "after" figures of UUIDv4 are past its index leaving memory
};

/// One candidate's index for the situation's rows.
struct CandidateCost {
  KeyKind kind{};
  double index_bytes = 0;  ///< rows x key bytes x copies / fill
  double server_gb = 0;    ///< smallest RAM tier holding it (0: beyond the largest)
  double usd_per_month = 0;
  bool fits_memory = true;  ///< index_bytes <= memory_gb (true when memory_gb is 0)
};

/// The answer.
struct Advice {
  std::string scheme;                 ///< e.g. "UUIDv7"
  std::string key;                    ///< short name: token, identity, uuid7, snowflake
  std::string command;                ///< how idforge makes it, e.g. "idforge gen uuid7"
  std::vector<std::string> settings;  ///< column type, layout, JSON form, ...
  std::vector<std::string> reasons;
  std::vector<std::string> warnings;
  std::vector<CandidateCost> costs;  ///< snowflake, uuid7, uuid4, uuid4text
  MeasuredFigures measured;
};

/// The answer for s with the figures m. Throws Error(errc::invalid_argument) naming the value
/// for databases 0, negative writes, rows < 1, copies 0 or negative memory.
Advice advise(const Situation& s, const MeasuredFigures& m);

/// The figures of the recorded full runs in docs/INDEX-LAB.md (PostgreSQL 15 and InnoDB with a
/// memory cgroup on this project's reference machine), with their commands as the source.
MeasuredFigures recorded_figures();

/// The figures from a memory-limited run (needs uuid7 and uuid4 in it; uuid4text is used when
/// present). Throws Error(errc::invalid_argument) naming the missing kind.
MeasuredFigures figures_from(const MemoryLabResult& run, const std::string& source);

}  // namespace idforge::lab
