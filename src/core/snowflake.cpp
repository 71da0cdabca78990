#include "idforge/snowflake.hpp"

#include <limits>
#include <string>

#include "idforge/detail/snowflake_stamp.hpp"
#include "idforge/error.hpp"

namespace idforge {
namespace {

void check_width(const char* field, std::uint64_t value, int bits) {
  if (bits < 64 && value >> bits != 0)
    throw Error(errc::invalid_argument, std::string(field) + " " + std::to_string(value) +
                                            " does not fit in " + std::to_string(bits) + " bits");
}

std::uint64_t field(std::uint64_t id, int shift, int bits) noexcept {
  return bits == 0 ? 0 : (id >> shift) & ((std::uint64_t{1} << bits) - 1);
}

}  // namespace

Snowflake compose(const Layout& layout, const SnowflakeParts& p) {
  check_width("tick", p.tick, layout.time_bits());
  check_width("node", p.node, layout.node_bits());
  check_width("sequence", p.sequence, layout.sequence_bits());
  // The bits packed where every generator, the C ABI and PostgreSQL pack them.
  const auto bits = detail::SnowflakeBits::of(layout.sequence_bits(), layout.time_shift(),
                                              layout.node_shift(), layout.sequence_shift());
  return Snowflake(
      bits.id_of((p.tick << layout.sequence_bits()) | p.sequence, bits.node_bits(p.node)));
}

SnowflakeParts decompose(const Layout& layout, Snowflake id) {
  const std::uint64_t v = id.value();
  if (layout.is_signed() && (v >> 63) != 0)
    throw Error(errc::invalid_argument,
                "ID " + std::to_string(v) + " has its sign bit set, but layout '" + layout.name() +
                    "' is signed (63 bits): no generator with this layout makes it");
  SnowflakeParts p;
  p.tick = field(v, layout.time_shift(), layout.time_bits());
  // A wide time field of long ticks reaches past 2^63 - 1 ms (year 292,278,994): such a
  // time is held at that ceiling, past any date shown, rather than wrapped negative.
  std::int64_t span = 0;
  if (__builtin_mul_overflow(static_cast<std::int64_t>(p.tick), layout.tick_ms(), &span) ||
      __builtin_add_overflow(layout.epoch_ms(), span, &p.unix_ms))
    p.unix_ms = std::numeric_limits<std::int64_t>::max();
  p.node = field(v, layout.node_shift(), layout.node_bits());
  p.worker =
      layout.worker_bits() == 0 ? 0 : p.node & ((std::uint64_t{1} << layout.worker_bits()) - 1);
  p.datacenter = p.node >> layout.worker_bits();
  p.sequence = field(v, layout.sequence_shift(), layout.sequence_bits());
  return p;
}

}  // namespace idforge
