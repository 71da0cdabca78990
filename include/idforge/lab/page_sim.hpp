// The simulation behind the web page (seed 003): two machines, M1 and M2, take turns
// making primary keys for one table, and every key goes into a B+ tree whose leaves hold
// 4 keys. Everything runs on the real parts: core's SnowflakeGenerator (Twitter layout,
// node 1 for M1 and node 2 for M2), UuidV7Generator and uuid_v4, each machine on its own
// ManualClock, and the lab's BTreeSim. Time is simulated: each request comes 1 ms after
// the one before, and a generator that waits moves its clock (and the world) on, so a demo
// gives the same numbers every time and never sleeps.
//
// The answers are JSON text (every ID also as a string, id_str); the server's /v1/sim
// routes pass them on and the page only draws them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace idforge::lab {

/// The ID kinds the page compares.
enum class SimKind { snowflake, uuid7, uuid4 };

/// "snowflake", "uuid7" or "uuid4".
std::string_view sim_kind_name(SimKind kind) noexcept;
/// The kind called name; Error(errc::invalid_argument) naming the value and the choices.
SimKind parse_sim_kind(std::string_view name);

/// Requests a run may make (each one also returns a snapshot of the tree).
inline constexpr unsigned kSimMaxRequests = 64;
/// The demos, numbered as in the seed.
inline constexpr int kSimDemoCount = 5;

/// The three bit layouts (fields, widths, roles) the page draws as bars.
std::string sim_layouts_json();

/// count requests (1..kSimMaxRequests), M1 and M2 taking turns, the first at start_ms
/// (Unix ms); each step with the ID, its bits and fields, and the tree after it.
/// Error(errc::invalid_argument) for a count or start outside its range.
std::string sim_run_json(SimKind kind, unsigned count, std::int64_t start_ms);

/// Demo n (1..5) of the seed, starting at start_ms. Error(errc::invalid_argument) for an n
/// or start outside its range.
std::string sim_demo_json(int demo, std::int64_t start_ms);

/// Earliest and latest start_ms a run or demo accepts: after the Twitter epoch, and far
/// enough before the end of its time field for the longest demo.
std::int64_t sim_min_start_ms() noexcept;
std::int64_t sim_max_start_ms() noexcept;

}  // namespace idforge::lab
