// The Snowflake rule over state the caller holds (idforge_snowflake_rule_*, _step_next, the
// mark file's text): what a database that keeps its generator in shared memory steps with.
// The decision is core's pure SnowflakeRule::advance, the ID's bits and a tick's last stamp
// core's SnowflakeBits and SnowflakeTicks; this file adds only what the
// stateful generator does around it (the mark a tick needs, the wait decided in ms).
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "c_support.hpp"
#include "idforge/detail/printable.hpp"
#include "idforge/detail/snowflake_stamp.hpp"
#include "idforge/snowflake_generator.hpp"
#include "idforge/snowflake_rule.hpp"

static_assert(IDFORGE_NO_UNIX_MS == idforge::kNoUnixMs);

namespace idforge::c {
namespace {

constexpr std::size_t kSpecRoom = sizeof(idforge_snowflake_rule::spec);

std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
  const std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

std::int64_t tick_start_ms(const idforge_snowflake_rule& r, std::uint64_t tick) noexcept {
  return r.epoch_ms + static_cast<std::int64_t>(tick) * r.tick_ms;
}

detail::SnowflakeTicks ticks_of(const idforge_snowflake_rule& r) noexcept {
  return detail::SnowflakeTicks::of(r.epoch_ms, r.tick_ms, r.sequence_bits, r.max_tick);
}

// Reads "key <unsigned>" exactly (no sign, no empty field, nothing after).
template <class T>
bool keyed_number(std::string_view line, std::string_view key, T& v) noexcept {
  if (line.substr(0, key.size()) != key) return false;
  const auto r = std::from_chars(line.data() + key.size(), line.data() + line.size(), v);
  return r.ec == std::errc{} && r.ptr == line.data() + line.size();
}

// Text from a file, as messages quote it: escaped, and at most 64 bytes.
std::string shown(std::string_view text) {
  return detail::shortened(detail::printable(text), 64);
}

constexpr std::string_view kMarkRule =
    "a mark file holds a non-negative decimal Unix ms, then 'layout <spec>' and 'node <n>' "
    "lines, then 'system <id>' and 'timeline <n>' lines and an optional 'backup <id>' line (or "
    "the mark alone)";

}  // namespace
}  // namespace idforge::c

using namespace idforge;
using idforge::c::guard;
using idforge::c::null_argument;

extern "C" {

idforge_status idforge_snowflake_rule_make(const char* layout, int64_t node, int64_t now_ms,
                                           idforge_snowflake_rule* out) {
  if (!out) return null_argument("idforge_snowflake_rule_make", "out");
  return guard([&] {
    const Layout l = layout ? parse_layout(layout, now_ms) : c::layout_or_default(nullptr);
    if (node < 0)  // in the words of Layout::check_node, which takes it unsigned
      throw Error(errc::node_out_of_range,
                  "node ID " + std::to_string(node) + " out of range: layout '" + l.name() +
                      "' has " + std::to_string(l.node_bits()) + " node bits, so 0.." +
                      std::to_string(l.node_count() - 1));
    l.check_node(static_cast<std::uint64_t>(node));
    const std::string spec = l.to_spec();
    if (spec.size() >= c::kSpecRoom)
      throw Error(errc::invalid_layout,
                  "layout '" + spec + "' has a canonical spec of " + std::to_string(spec.size()) +
                      " characters: a rule holds at most " + std::to_string(c::kSpecRoom - 1));
    idforge_snowflake_rule r{};
    r.sequence_bits = l.sequence_bits();
    r.time_shift = l.time_shift();
    r.node_shift = l.node_shift();
    r.sequence_shift = l.sequence_shift();
    r.max_tick = l.max_tick();
    r.epoch_ms = l.epoch_ms();
    r.tick_ms = l.tick_ms();
    r.node = static_cast<std::uint64_t>(node);
    r.is_signed = l.is_signed() ? 1 : 0;
    std::memcpy(r.spec, spec.c_str(), spec.size() + 1);
    *out = r;
    return IDFORGE_OK;
  });
}

uint64_t idforge_snowflake_resume_stamp(const idforge_snowflake_rule* r, int64_t mark_ms) {
  if (!r || mark_ms == IDFORGE_NO_UNIX_MS || mark_ms < r->epoch_ms) return 0;
  return c::ticks_of(*r).used_through(mark_ms);
}

int idforge_snowflake_fence_admits(const idforge_snowflake_rule* r, uint64_t stamp,
                                   int64_t fence_ms) {
  if (!r) return 0;
  // SnowflakeTicks::last_ending_by is what a generator's fence is set to (lease keeper).
  return stamp <= c::ticks_of(*r).last_ending_by(fence_ms) ? 1 : 0;
}

void idforge_snowflake_step_next(const idforge_snowflake_rule* r, uint64_t last, int64_t mark_ms,
                                 int64_t now_ms, int64_t reserve_ms, int64_t max_wait_ms,
                                 idforge_snowflake_step* out) {
  if (!r || !out) return;
  const std::int64_t wait_bound = max_wait_ms < 0 ? 0 : max_wait_ms;
  const std::int64_t now_tick = c::floor_div(now_ms - r->epoch_ms, r->tick_ms);
  // Rounded up to whole ticks, as the generator does, and then decided in ms below: a step
  // back of 1.998 s on a 1 s tick is one tick, but waiting it out would take 999 ms.
  const SnowflakeRule::Limits lim{r->sequence_bits, r->max_tick, 0,
                                  (wait_bound + r->tick_ms - 1) / r->tick_ms};
  // A stamp past the layout's last tick (all ones as "none yet", memory that was never a
  // stamp) would wrap to tick 0 in last + 1: nothing can follow it.
  if ((last >> r->sequence_bits) > r->max_tick) {
    *out = idforge_snowflake_step{IDFORGE_STEP_EXHAUSTED, 0, 0, IDFORGE_NO_UNIX_MS, 0, 0};
    return;
  }
  const auto step = SnowflakeRule::advance(last, now_tick, lim);
  *out = idforge_snowflake_step{IDFORGE_STEP_ISSUE, 0, 0,
                                IDFORGE_NO_UNIX_MS, 0, step.behind * r->tick_ms};
  using Kind = SnowflakeRule::Step::Kind;
  switch (step.kind) {
    case Kind::issue: {
      const std::uint64_t tick = step.stamp >> r->sequence_bits;
      const auto bits = detail::SnowflakeBits::of(r->sequence_bits, r->time_shift, r->node_shift,
                                                  r->sequence_shift);
      out->stamp = step.stamp;
      out->id = static_cast<std::int64_t>(bits.id_of(step.stamp, bits.node_bits(r->node)));
      // The mark covers whole ticks: every ID issued so far ends by mark_ms. An ID of a later
      // tick needs a new mark on disk first; it reaches reserve_ms beyond the tick so the
      // next writes come once per window, not once per tick.
      const std::int64_t tick_last_ms = c::tick_start_ms(*r, tick) + r->tick_ms - 1;
      if (mark_ms == IDFORGE_NO_UNIX_MS || tick_last_ms > mark_ms)
        out->new_mark_ms = tick_last_ms + (reserve_ms < 0 ? 0 : reserve_ms);
      break;
    }
    case Kind::wait: {
      out->kind = IDFORGE_STEP_WAIT;
      out->wait_ms = c::tick_start_ms(*r, static_cast<std::uint64_t>(step.until_tick)) - now_ms;
      if (out->wait_ms < 1) out->wait_ms = 1;
      // A full tick is waited out (the next one is at most a tick away); a clock behind
      // only while the wait stays within the bound.
      if (step.behind > 0 && out->wait_ms > wait_bound) {
        out->kind = IDFORGE_STEP_BEHIND;
        out->wait_ms = 0;
      }
      break;
    }
    case Kind::refuse_backwards:
      out->kind = IDFORGE_STEP_BEHIND;
      break;
    case Kind::time_exhausted:
      out->kind = IDFORGE_STEP_EXHAUSTED;
      break;
    case Kind::before_epoch:
      out->kind = IDFORGE_STEP_BEFORE_EPOCH;
      break;
  }
}

idforge_status idforge_snowflake_mark_format(const idforge_snowflake_rule* r, int64_t mark_ms,
                                             const idforge_mark_origin* origin, char* out,
                                             size_t size, size_t* needed) {
  if (!r) return null_argument("idforge_snowflake_mark_format", "rule");
  if (const idforge_status s = c::check_out("idforge_snowflake_mark_format", out, size)) return s;
  return guard([&] {
    std::string text = std::to_string(mark_ms) + "\nlayout " + r->spec + "\nnode " +
                       std::to_string(r->node) + "\n";
    if (origin && origin->system_id != 0) {
      text += "system " + std::to_string(origin->system_id) + "\ntimeline " +
              std::to_string(origin->timeline) + "\n";
      if (origin->backup_id != 0) text += "backup " + std::to_string(origin->backup_id) + "\n";
    }
    return c::write_text(text, out, size, needed);
  });
}

idforge_status idforge_snowflake_mark_parse(const char* text, size_t len, int64_t* mark_ms,
                                            char spec[256], int64_t* node,
                                            idforge_mark_origin* origin) {
  if (!text && len) return null_argument("idforge_snowflake_mark_parse", "text");
  if (!mark_ms || !spec || !node || !origin)
    return null_argument("idforge_snowflake_mark_parse", "an output");
  if (const idforge_status s = c::check_length("idforge_snowflake_mark_parse", len)) return s;
  return guard([&] {
    std::string_view s(text ? text : "", len);
    const auto line = [&s] {
      const auto nl = s.find('\n');
      const std::string_view l = s.substr(0, nl);
      s = nl == std::string_view::npos ? std::string_view{} : s.substr(nl + 1);
      return l;
    };
    const auto bad = [](const std::string& what) -> idforge_status {
      throw Error(errc::parse_error, what + ": " + std::string(c::kMarkRule));
    };
    const std::string_view first = line();
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(first.data(), first.data() + first.size(), v);
    if (first.empty() || ec != std::errc{} || end != first.data() + first.size() || v < 0)
      return bad("mark '" + c::shown(first) + "' is not a Unix time in ms");
    std::int64_t nv = -1;
    std::string_view recorded;
    idforge_mark_origin o{0, 0, 0};
    if (!s.empty()) {
      const std::string_view l = line(), n = line();
      if (l.substr(0, 7) != "layout " || l.size() == 7 || l.size() - 7 >= c::kSpecRoom ||
          !c::keyed_number(n, "node ", nv) || nv < 0)
        return bad("mark file after '" + c::shown(first) + "' holds '" + c::shown(l) + "' / '" +
                   c::shown(n) + "', not a layout and a node");
      recorded = l.substr(7);
      // The canonical spec of a layout: anything else (bytes that are not text, a spec that
      // does not parse) was not written by idforge_snowflake_mark_format.
      try {
        (void)parse_layout(recorded);
      } catch (const Error& e) {
        return bad("mark file's layout line '" + c::shown(l) + "' is not a layout (" + e.what() +
                   ")");
      }
      // Written by a version that records where: both lines or neither. A system identifier
      // is never 0 and timelines start at 1, so 0 stays free for "not recorded".
      if (!s.empty()) {
        const std::string_view sl = line(), tl = line();
        if (!c::keyed_number(sl, "system ", o.system_id) ||
            !c::keyed_number(tl, "timeline ", o.timeline) || o.system_id == 0 || o.timeline == 0)
          return bad("mark file after node " + std::to_string(nv) + " holds '" + c::shown(sl) +
                     "' / '" + c::shown(tl) +
                     "', not a system identifier and a timeline (both above 0)");
        // Written by a version that records the base backup: one more line, above 0.
        if (!s.empty()) {
          const std::string_view bl = line();
          if (!c::keyed_number(bl, "backup ", o.backup_id) || o.backup_id == 0 || !s.empty())
            return bad("mark file after timeline " + std::to_string(o.timeline) + " holds '" +
                       c::shown(bl) + "', not a base backup's identity (above 0) as its last line");
        }
      }
    }
    std::memcpy(spec, recorded.data(), recorded.size());
    spec[recorded.size()] = '\0';
    *node = nv;
    *mark_ms = v;
    *origin = o;
    return IDFORGE_OK;
  });
}

int idforge_layout_same(const char* a, const char* b) {
  int same = -1;
  const idforge_status s = guard([&] {
    same = c::layout_or_default(a) == c::layout_or_default(b) ? 1 : 0;
    return IDFORGE_OK;
  });
  return s == IDFORGE_OK ? same : -1;
}

}  // extern "C"
