// sim::World: the page's little distributed system. Two machines (M1 = node 1, M2 = node 2)
// with a ManualClock each, the real generators, and one B+ tree (4-key leaves) that every
// ID is inserted into, numbered in creation order. World time advances 1 ms per request;
// a machine's clock reads world time plus its offset (an operator's step back); when a
// generator waits, its clock jumps and the world moves on with it.
// Private to the lab target; the public face is idforge/lab/page_sim.hpp.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "idforge/clock.hpp"
#include "idforge/lab/btree_sim.hpp"
#include "idforge/lab/page_sim.hpp"
#include "idforge/snowflake_generator.hpp"
#include "idforge/uuid.hpp"
#include "idforge/uuid_generator.hpp"

namespace idforge::lab::sim {

/// Bits of a Snowflake and of a UUID, as the page's bars draw them.
inline constexpr int kSnowflakeBits = std::numeric_limits<std::uint64_t>::digits;
inline constexpr int kUuidBits = static_cast<int>(sizeof(Uuid::Bytes)) * 8;

/// Keys a leaf page holds in the page's tree.
inline constexpr std::uint32_t kLeafKeys = 4;

/// The Snowflake layout the page uses: Twitter's (1 | 41 | 10 | 12, twepoch).
const Layout& page_layout();

/// The bit fields of kind, from the most significant bit, without values (for the bars).
nlohmann::json layout_json(SimKind kind);

/// What happened in one step, in order.
struct Entry {
  enum class Type { id, refused, clock_step, policy };
  Type type = Type::id;
  int machine = 0;              ///< 0 = M1, 1 = M2
  std::int64_t at_ms = 0;       ///< world time since the start
  std::int64_t clock_ms = 0;    ///< the machine's clock when asked (Unix ms)
  std::int64_t waited_ms = 0;   ///< how long the generator waited (its clock jumped)
  std::uint64_t n = 0;          ///< creation number (ids only)
  std::uint64_t snowflake = 0;  ///< the ID (Snowflake kind)
  Uuid uuid{};                  ///< the ID (UUID kinds)
  std::int64_t behind_ms = 0;   ///< refused: how far the clock was behind
  std::int64_t delta_ms = 0;    ///< clock_step: by how much; policy: the wait bound
  std::string message;          ///< refused: the generator's error text
};

class World {
 public:
  /// An empty table; the first request comes at start_ms. Snowflake machines start with
  /// the refuse policy (Twitter's original: no waiting when the clock is behind).
  World(SimKind kind, std::int64_t start_ms);

  /// Machine m handles one request, 1 ms after the previous request (the first at start).
  /// Returns the entry (an ID, or a refusal when the clock is too far behind).
  const Entry& request(int machine);
  /// Machine m handles n requests in the same millisecond: the first 1 ms after the
  /// previous request, the rest at once.
  void burst(int machine, std::size_t n);
  /// Steps machine m's clock by delta_ms (negative: back), as NTP or an operator would.
  void step_clock(int machine, std::int64_t delta_ms);
  /// Gives machine m a generator that waits up to max_wait_ms for a clock that is behind.
  /// A generator's policy is fixed, so m gets a new one that starts above the old one's
  /// last issued time (the high-water mark), as a restart does: no ID is issued twice.
  void set_wait_policy(int machine, std::int64_t max_wait_ms);

  SimKind kind() const noexcept { return kind_; }
  const std::vector<Entry>& entries() const noexcept { return entries_; }
  const lab::BTreeSim& tree() const noexcept { return tree_; }
  /// Slow-path counters of machine m's Snowflake generator (zero for UUID kinds).
  SnowflakeStats snowflake_stats(int machine) const;
  /// The bound on waiting for machine m's clock (ms); 0 means refuse.
  std::int64_t max_wait_ms(int machine) const;

  /// An entry as JSON: ids with id_str, text, bits and decoded fields.
  nlohmann::json entry_json(const Entry& e) const;
  /// The tree: leaves (keys with creation numbers and id_str), scoreboard. With
  /// max_leaves > 0 only the rightmost max_leaves are listed (omitted_leaves says how many
  /// are left out).
  nlohmann::json tree_json(std::size_t max_leaves = 0) const;

 private:
  struct Machine {
    ManualClock clock;
    std::int64_t offset_ms = 0;
    std::int64_t max_wait_ms = 0;
    std::unique_ptr<SnowflakeGenerator> snowflake;
    std::unique_ptr<UuidV7Generator> uuid7;
  };
  // One request; next_ms: it comes 1 ms after the previous one (else in the same ms).
  const Entry& ask(int machine, bool next_ms);
  void sync_clocks();
  void insert(Entry& e);

  SimKind kind_;
  std::int64_t start_ms_;
  std::int64_t world_ms_;
  bool started_ = false;
  std::array<Machine, 2> machines_;
  std::vector<Entry> entries_;
  std::vector<std::size_t> entry_of_n_;  // creation number - 1 -> index in entries_
  lab::BTreeSim tree_;
};

/// The 0/1 string of an ID (64 or 128 characters).
std::string bits_of(const Entry& e, SimKind kind);
/// The decoded fields of an ID entry: name, role, start bit, width, value.
nlohmann::json fields_of(const Entry& e, SimKind kind);
/// The ID as the page prints it: decimal for Snowflake, canonical text for UUIDs.
std::string text_of(const Entry& e, SimKind kind);

}  // namespace idforge::lab::sim
