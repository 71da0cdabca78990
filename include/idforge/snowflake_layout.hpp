// Snowflake layouts: how the 63 or 64 bits of an ID are split into fields.
//
// Field order, most significant first, for FieldOrder::time_node_sequence (Twitter):
//
//   [sign 0 or none][ time: T bits ][ datacenter: D ][ worker: W ][ sequence: S ]
//
// and for FieldOrder::time_sequence_node (Sonyflake):
//
//   [sign 0 or none][ time: T bits ][ sequence: S ][ datacenter: D ][ worker: W ]
//
// T + D + W + S is 63 for a signed layout (the top bit stays 0 so the ID is a positive
// BIGINT) and 64 for an unsigned one. Time is a count of ticks (tick_ms each) since epoch.
// The node is D + W bits; a layout without a datacenter split has D = 0.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace idforge {

/// Which of sequence and node sits right below the time field.
enum class FieldOrder : std::uint8_t {
  time_node_sequence,  ///< Twitter, Discord, Instagram, Baidu
  time_sequence_node,  ///< Sonyflake
};

/// The raw, unvalidated description of a layout. Defaults are Twitter's.
struct LayoutFields {
  std::string name = "custom";            ///< label shown by `idforge layout`
  int time_bits = 41;                     ///< 1..63
  int datacenter_bits = 5;                ///< 0..31; 0 means "no datacenter split"
  int worker_bits = 5;                    ///< 0..31
  int sequence_bits = 12;                 ///< 0..31
  std::int64_t tick_ms = 1;               ///< 1..86'400'000 (one day)
  std::int64_t epoch_ms = 1288834974657;  ///< Unix ms, >= 0 and not after now
  FieldOrder order = FieldOrder::time_node_sequence;
  bool is_signed = true;  ///< true: 63 usable bits; false: all 64
};

/// A validated layout with its shifts and masks precomputed. Cheap to copy.
/// Only Layout::make and the presets create one, so every Layout adds up.
class Layout {
 public:
  /// Validates fields against the rules in LayoutFields; now_unix_ms rejects a future epoch.
  /// Throws Error(errc::invalid_layout | errc::epoch_in_future) naming the numbers.
  static Layout make(const LayoutFields& fields, std::int64_t now_unix_ms);
  /// Same, with the system clock's now.
  static Layout make(const LayoutFields& fields);

  const LayoutFields& fields() const noexcept { return f_; }
  const std::string& name() const noexcept { return f_.name; }
  int time_bits() const noexcept { return f_.time_bits; }
  int datacenter_bits() const noexcept { return f_.datacenter_bits; }
  int worker_bits() const noexcept { return f_.worker_bits; }
  int node_bits() const noexcept { return f_.datacenter_bits + f_.worker_bits; }
  int sequence_bits() const noexcept { return f_.sequence_bits; }
  std::int64_t tick_ms() const noexcept { return f_.tick_ms; }
  std::int64_t epoch_ms() const noexcept { return f_.epoch_ms; }
  FieldOrder order() const noexcept { return f_.order; }
  bool is_signed() const noexcept { return f_.is_signed; }
  int total_bits() const noexcept { return f_.is_signed ? 63 : 64; }

  /// Largest tick the time field holds.
  std::uint64_t max_tick() const noexcept { return max_tick_; }
  /// Number of distinct node IDs (2^node_bits).
  std::uint64_t node_count() const noexcept { return std::uint64_t{1} << node_bits(); }
  /// IDs one node can issue in one tick (2^sequence_bits).
  std::uint64_t ids_per_tick() const noexcept { return std::uint64_t{1} << sequence_bits(); }
  /// Shift of the time field inside the ID.
  int time_shift() const noexcept { return time_shift_; }
  /// Shift of the node field (datacenter+worker) inside the ID.
  int node_shift() const noexcept { return node_shift_; }
  /// Shift of the sequence field inside the ID.
  int sequence_shift() const noexcept { return sequence_shift_; }

  /// Combines datacenter and worker into a node number; throws errc::node_out_of_range.
  std::uint64_t node_of(std::uint64_t datacenter, std::uint64_t worker) const;
  /// Checks a combined node number; throws errc::node_out_of_range naming the range.
  std::uint64_t check_node(std::uint64_t node) const;

  /// The layout as a spec string that parse_layout accepts back.
  std::string to_spec() const;

  friend bool operator==(const Layout& a, const Layout& b) noexcept;

 private:
  explicit Layout(const LayoutFields& f) noexcept;
  LayoutFields f_;
  std::uint64_t max_tick_ = 0;
  int time_shift_ = 0, node_shift_ = 0, sequence_shift_ = 0;
};

/// The named presets: twitter, discord, sonyflake, instagram, baidu.
namespace presets {
/// 41 ms / 5+5 / 12, epoch 2010-11-04T01:42:54.657Z, signed.
Layout twitter();
/// 42 ms / 5+5 / 12, epoch 2015-01-01, unsigned (64 bits).
Layout discord();
/// 39 bits of 10 ms / 8 sequence / 16 machine, epoch 2014-09-01, time|sequence|machine.
Layout sonyflake();
/// 41 ms / 13 shard / 10 sequence, epoch 2011-08-24T21:07:01.721Z, unsigned (64 bits).
Layout instagram();
/// Baidu uid-generator: 28 bits of seconds / 22 worker / 13 sequence, epoch 2016-05-20.
Layout baidu();
/// Names of all presets, in the order above.
const std::vector<std::string>& names();
}  // namespace presets

/// Parses a preset name or a spec of comma-separated key=value pairs, optionally starting
/// from a preset: "twitter", "discord,epoch=2020-01-01T00:00:00Z",
/// "time=41,dc=5,worker=5,seq=12,tick=1ms,epoch=1288834974657,order=time-node-seq,signed".
/// Keys: time, dc (or datacenter), worker, node (worker with dc=0), seq (or sequence), tick
/// (ms, or with a unit: 10ms, 1s), epoch (Unix ms or ISO-8601 UTC), order
/// (time-node-seq | time-seq-node), signed | unsigned, name.
/// Throws ParseError for bad syntax and Error(errc::invalid_layout...) for bad numbers.
Layout parse_layout(std::string_view spec, std::int64_t now_unix_ms);
/// Same, with the system clock's now.
Layout parse_layout(std::string_view spec);

/// What a layout can do, for `idforge layout`.
struct LayoutFacts {
  std::uint64_t nodes;            ///< distinct node IDs
  std::uint64_t ids_per_tick;     ///< per node
  double max_ids_per_second;      ///< per node
  std::int64_t time_runs_out_ms;  ///< Unix ms of the first tick the time field cannot hold
  std::int64_t js_safe_until_ms;  ///< Unix ms from which some IDs reach 2^53 (above 2^53 - 1)
  double years_of_time;           ///< length of the time field in years (365.25 days)
};
/// Computes LayoutFacts; pure.
LayoutFacts describe(const Layout& layout) noexcept;

}  // namespace idforge
