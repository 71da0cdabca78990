// Every split of the 63 and 64 bits, against a reference model that knows nothing of the
// generator's stamp: it keeps (tick, sequence) as 128-bit numbers, so it cannot wrap, and
// packs the expected ID from them. For each layout (time 1..63 bits, node 0..32 bits,
// sequence 0..31 bits, both field orders, signed and unsigned, ticks of 1 ms, 10 ms, 1 s and a
// day, epochs at 1970 and at 2026) a generator on a ManualClock is driven through the
// readings where arithmetic could wrap: the first ticks, a full sequence, the last tick the
// field holds, just past it, twice past it, and 2^(64-S) ticks on (where tick << S wraps).
// Every ID must be exactly the model's; every refusal must be the model's, and a time field
// that ran out must be refused naming the date it ran out.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "expect_errc.hpp"
#include "idforge/error.hpp"
#include "idforge/snowflake_generator.hpp"
#include "idforge/time_format.hpp"

namespace idforge {
namespace {

using i128 = __int128;
constexpr std::int64_t kNsPerMs = 1'000'000;
// The latest instant a ManualClock (int64 ns) can show, in ms.
constexpr i128 kClockMaxMs = std::numeric_limits<std::int64_t>::max() / kNsPerMs;

// ---- the reference model ------------------------------------------------------------------

struct Model {
  int T, N, S;
  std::int64_t tick_ms, epoch_ms;
  bool time_first_node;  // time|node|sequence (else time|sequence|node)
  std::uint64_t node;
  // The generator's state 0 stands for "nothing issued", so the field's very first ID
  // (tick 0, sequence 0) counts as used from the start: never issued, never repeated.
  std::optional<i128> last_tick = 0;
  i128 last_seq = 0;

  i128 max_tick() const { return (i128{1} << T) - 1; }
  i128 ids_per_tick() const { return i128{1} << S; }
  // Unix ms of the first tick the field cannot hold.
  i128 end_ms() const { return i128{epoch_ms} + (max_tick() + 1) * tick_ms; }
  static i128 floor_div(i128 a, i128 b) {
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
  }
  i128 tick_at(i128 ms) const { return floor_div(ms - epoch_ms, tick_ms); }

  i128 pack(i128 tick, i128 seq) const {
    const i128 n = node;
    return time_first_node ? (tick << (N + S)) | (n << S) | seq
                           : (tick << (N + S)) | (seq << N) | n;
  }

  enum class Kind { id, exhausted, before_epoch };
  struct Outcome {
    Kind kind;
    i128 id = 0;
    i128 clock_after_ms = 0;  // a wait on a ManualClock jumps the clock to the next tick
  };
  // One next() at clock reading ms (whole ms), with no backward wait and no borrowing.
  Outcome next(i128 ms) {
    if (ms < epoch_ms) return {Kind::before_epoch};
    const i128 now = tick_at(ms);
    if (now > max_tick()) return {Kind::exhausted};
    i128 tick = now, seq = 0, clock = ms;
    if (last_tick && *last_tick >= now) {
      // The clock never steps back in this sweep, so the last tick is the current one.
      tick = *last_tick, seq = last_seq + 1;
      if (seq == ids_per_tick()) {
        tick += 1, seq = 0;
        if (tick > max_tick()) return {Kind::exhausted};
        clock = i128{epoch_ms} + tick * tick_ms;
      }
    }
    last_tick = tick, last_seq = seq;
    return {Kind::id, pack(tick, seq), clock};
  }
};

// ---- the sweep ----------------------------------------------------------------------------

struct Case {
  LayoutFields f;
  std::uint64_t node;
};

std::string describe_case(const Case& c) {
  return "time=" + std::to_string(c.f.time_bits) + ",dc=" + std::to_string(c.f.datacenter_bits) +
         ",worker=" + std::to_string(c.f.worker_bits) +
         ",seq=" + std::to_string(c.f.sequence_bits) + ",tick=" + std::to_string(c.f.tick_ms) +
         "ms,epoch=" + std::to_string(c.f.epoch_ms) +
         (c.f.order == FieldOrder::time_node_sequence ? ",time-node-seq" : ",time-seq-node") +
         (c.f.is_signed ? ",signed" : ",unsigned") + " node " + std::to_string(c.node);
}

std::vector<Case> every_split() {
  std::vector<Case> cases;
  const std::int64_t ticks[] = {1, 10, 1000, 86'400'000};
  const std::int64_t epochs[] = {0, 1'767'225'600'000 /* 2026-01-01 */};
  for (bool is_signed : {true, false})
    for (int T = 1; T <= 63; ++T)
      for (int S = 0; S <= 31; ++S) {
        const int N = (is_signed ? 63 : 64) - T - S;
        if (N < 0 || N > 32) continue;
        for (FieldOrder order : {FieldOrder::time_node_sequence, FieldOrder::time_sequence_node})
          for (std::int64_t tick : ticks)
            for (std::int64_t epoch : epochs) {
              LayoutFields f;
              f.name = "sweep";
              f.time_bits = T, f.sequence_bits = S, f.datacenter_bits = N / 2,
              f.worker_bits = N - N / 2;
              f.tick_ms = tick, f.epoch_ms = epoch, f.order = order, f.is_signed = is_signed;
              // The highest node exercises every node bit; 0 for a layout without them.
              cases.push_back({f, N == 0 ? 0 : (std::uint64_t{1} << N) - 1});
            }
      }
  return cases;
}

// Clock readings (Unix ms) where something happens for this layout, each reachable by a
// ManualClock and at or after the epoch, in increasing order.
std::vector<i128> readings(const Model& m) {
  std::vector<i128> r;
  const i128 e = m.epoch_ms, t = m.tick_ms;
  auto add = [&](i128 ms) {
    if (ms >= e && ms <= kClockMaxMs) r.push_back(ms);
  };
  add(e);
  add(e + 1);
  add(e + 5 * t + 3);
  const i128 end = m.end_ms();
  add(end - 2 * t);
  add(end - t);  // the last tick the field holds
  add(end - t + t / 2);
  add(end - 1);
  add(end);  // the first tick it cannot hold
  add(end + 1);
  add(2 * end - e);  // twice the field's length
  // Where now_tick << S wraps a 64-bit word: 2^(64 - S) ticks, and that plus the few ticks
  // above (the ticks an unchecked shift would alias to).
  if (64 - m.S < 100) {
    const i128 wrap_tick = i128{1} << (64 - m.S);
    add(e + wrap_tick * t);
    add(e + (wrap_tick + 5) * t + 3);
  }
  std::sort(r.begin(), r.end());
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

std::string date_of(i128 ms) {
  return format_iso8601_ms(
      static_cast<std::int64_t>(std::min<i128>(ms, std::numeric_limits<std::int64_t>::max())));
}

// Construction at the end of the field, and high-water marks at its edges.
std::string check_edges(const Case& c, const Layout& layout, const Model& m) {
  const i128 end = m.end_ms(), t = m.tick_ms;
  const std::string end_date = date_of(end);
  if (end <= kClockMaxMs) {
    ManualClock at_end(static_cast<std::int64_t>(end) * kNsPerMs);
    try {
      SharedSnowflakeGenerator gen(layout, c.node, at_end);
      return "constructed at " + end_date + " although the time field ran out then";
    } catch (const Error& e) {
      if (e.code() != errc::time_exhausted ||
          std::string(e.what()).find(end_date) == std::string::npos)
        return std::string("construction at the end: ") + e.what();
    }
    // The mark in the last tick: that tick is used, nothing is left.
    ManualClock last(static_cast<std::int64_t>(end - t) * kNsPerMs);
    SharedSnowflakeGenerator used(layout, c.node, last,
                                  {.issued_up_to_unix_ms = static_cast<std::int64_t>(end - 1)});
    try {
      return "issued " + std::to_string(used.next().value()) + " after a mark in the last tick";
    } catch (const Error& e) {
      if (e.code() != errc::time_exhausted)
        return std::string("mark in the last tick: ") + e.what();
    }
    // The mark one tick earlier: the last tick is still there, sequence 0.
    if (end - 2 * t >= m.epoch_ms) {
      SharedSnowflakeGenerator one_left(
          layout, c.node, last, {.issued_up_to_unix_ms = static_cast<std::int64_t>(end - 2 * t)});
      const std::uint64_t id = one_left.next().value();
      if (i128{id} != m.pack(m.max_tick(), 0))
        return "mark before the last tick: got " + std::to_string(id);
    }
  }
  // A mark beyond anything the field or a clock holds.
  ManualClock start(m.epoch_ms * kNsPerMs);
  SharedSnowflakeGenerator beyond(
      layout, c.node, start, {.issued_up_to_unix_ms = std::numeric_limits<std::int64_t>::max()});
  try {
    return "issued " + std::to_string(beyond.next().value()) + " after a mark at the end of time";
  } catch (const Error& e) {
    if (e.code() != errc::time_exhausted && e.code() != errc::clock_moved_backwards)
      return std::string("mark at the end of time: ") + e.what();
  }
  return "";
}

// Drives one layout; returns "" or what went wrong.
std::string check(const Case& c) {
  const Layout layout = Layout::make(c.f, std::numeric_limits<std::int64_t>::max());
  Model m{c.f.time_bits,
          c.f.datacenter_bits + c.f.worker_bits,
          c.f.sequence_bits,
          c.f.tick_ms,
          c.f.epoch_ms,
          c.f.order == FieldOrder::time_node_sequence,
          c.node};
  const std::vector<i128> rs = readings(m);
  if (rs.empty()) return "";
  ManualClock clock(static_cast<std::int64_t>(rs.front()) * kNsPerMs);
  const std::string end_date = date_of(m.end_ms());
  std::optional<SnowflakeGenerator> gen;
  try {
    gen.emplace(layout, c.node, clock, SnowflakePolicy{.max_backward_wait_ms = 0});
  } catch (const Error& e) {
    if (e.code() == errc::time_exhausted && rs.front() >= m.end_ms()) {
      if (std::string(e.what()).find(end_date) == std::string::npos)
        return "refusal does not name " + end_date + ": " + e.what();
      return "";
    }
    return std::string("construction failed: ") + e.what();
  }
  if (rs.front() >= m.end_ms()) return "constructed although the time field ran out at " + end_date;
  for (const i128 at : rs) {
    if (i128{clock.now_ns()} < at * kNsPerMs)
      clock.set_ns(static_cast<std::int64_t>(at * kNsPerMs));
    const i128 reading = clock.now_ns() / kNsPerMs;
    // Two calls per reading: the second lands in the same tick, or waits for the next one
    // when the tick holds a single ID.
    for (int k = 0; k < 2; ++k) {
      const Model::Outcome want = m.next(i128{clock.now_ns()} / kNsPerMs);
      try {
        const std::uint64_t got = gen->next().value();
        if (want.kind != Model::Kind::id)
          return "issued " + std::to_string(got) + " at " + date_of(reading) +
                 " where the model refuses";
        if (i128{got} != want.id)
          return "at " + date_of(reading) + ": got " + std::to_string(got) + ", model " +
                 std::to_string(static_cast<std::uint64_t>(want.id));
        if (c.f.is_signed && (got >> 63) != 0)
          return "signed layout issued an ID with the sign bit set";
        if (i128{clock.now_ns()} / kNsPerMs != want.clock_after_ms)
          return "at " + date_of(reading) + ": the clock was moved to " +
                 date_of(clock.now_ns() / kNsPerMs) + ", model " + date_of(want.clock_after_ms);
      } catch (const Error& e) {
        const errc expected =
            want.kind == Model::Kind::exhausted ? errc::time_exhausted : errc::clock_before_epoch;
        if (want.kind == Model::Kind::id)
          return "refused at " + date_of(reading) + " where the model issues: " + e.what();
        if (e.code() != expected) return std::string("wrong refusal: ") + e.what();
        if (expected == errc::time_exhausted &&
            std::string(e.what()).find(end_date) == std::string::npos)
          return "refusal does not name " + end_date + ": " + e.what();
      }
    }
  }
  return check_edges(c, layout, m);
}

TEST(SnowflakeLayoutSweep, EveryLayoutMatchesTheReferenceModelAndNeverWraps) {
  const std::vector<Case> cases = every_split();
  ASSERT_GT(cases.size(), 20'000u);
  int failures = 0;
  for (const Case& c : cases) {
    const std::string why = check(c);
    if (!why.empty() && ++failures <= 20) ADD_FAILURE() << describe_case(c) << ": " << why;
  }
  EXPECT_EQ(failures, 0) << "of " << cases.size() << " layouts";
}

// The two layouts the sweep was written for, as their own regressions.
TEST(SnowflakeLayoutSweep, TickShiftedPastSixtyFourBitsDoesNotAliasAnEarlierTick) {
  const std::int64_t epoch = 1'767'225'600'000;  // 2026-01-01T00:00:00Z
  const Layout l = parse_layout("time=32,dc=0,worker=0,seq=31,epoch=2026-01-01T00:00:00Z", epoch);
  ManualClock clock((epoch + 5000) * kNsPerMs);
  SharedSnowflakeGenerator gen(l, 0, clock);
  const Snowflake first = gen.next();
  clock.advance_ms(std::int64_t{1} << 33);  // 2^33 ms on: the 32-bit time field ran out long ago
  EXPECT_ERRC(gen.next(), errc::time_exhausted, "ran out at 2026-02-19T17:02:47.296Z");
}

TEST(SnowflakeLayoutSweep, ATimeFieldThatRanOutIn2010IsRefusedNamingTheDate) {
  const Layout l = parse_layout("time=31,dc=0,worker=1,seq=31", 1'288'834'974'657);
  ManualClock clock(1'767'225'600'000 * kNsPerMs);
  try {
    SharedSnowflakeGenerator gen(l, 0, clock);
    FAIL() << "a generator was made although the time field ran out in 2010";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::time_exhausted);
    EXPECT_NE(
        std::string(e.what()).find("ran out at " + format_iso8601_ms(describe(l).time_runs_out_ms)),
        std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("2010-11-28T22:14:18.305Z"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace idforge
