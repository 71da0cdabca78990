// The C++ side of the PostgreSQL extension: idforge's core behind the C functions of
// idforge_pg_shim.h. Every function catches everything: an exception must never unwind
// through PostgreSQL's C frames (its longjmp-based error handling knows nothing of them).
#include "idforge_pg_shim.h"

#include "put_error.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "idforge/error.hpp"
#include "idforge/inspect.hpp"
#include "idforge/inspect_json.hpp"
#include "idforge/random.hpp"
#include "idforge/snowflake.hpp"
#include "idforge/snowflake_generator.hpp"
#include "idforge/snowflake_layout.hpp"
#include "idforge/typeid.hpp"
#include "idforge/ulid_generator.hpp"
#include "idforge/uuid_fields.hpp"
#include "idforge/uuid_generator.hpp"

namespace {

using idforge::Layout;
using Gen = idforge::UnsharedSnowflakeGenerator;

using idforge_pg::put_error;

// Runs f; turns any exception into -1 and its message.
template <class F>
int guarded(char* err, F&& f) noexcept {
  try {
    f();
    return 0;
  } catch (const std::exception& e) {
    put_error(err, e.what());
  } catch (...) {
    put_error(err, "unknown error in idforge");
  }
  return -1;
}

// The layout of the last spec asked for: parsing is far slower than decoding, and a
// backend keeps one idforge.layout for its life (the setting needs a restart).
const Layout& layout_of(const char* spec) {
  static std::string cached_spec;
  static std::optional<Layout> cached;
  if (!cached || cached_spec != spec) {
    cached.reset();
    cached = idforge::parse_layout(spec);
    cached_spec = spec;
  }
  return *cached;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
  const std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

Gen::Limits limits_of(const idf_sf_params& p, std::int64_t max_wait_ms) noexcept {
  return {p.sequence_bits, p.max_tick, 0, max_wait_ms < 0 ? 0 : max_wait_ms / p.tick_ms};
}

std::int64_t tick_start_ms(const idf_sf_params& p, std::uint64_t tick) noexcept {
  return p.epoch_ms + static_cast<std::int64_t>(tick) * p.tick_ms;
}

}  // namespace

extern "C" {

int idf_sf_prepare(const char* spec, int64_t node, int64_t now_ms, idf_sf_params* out, char* err) {
  return guarded(err, [&] {
    const Layout layout = idforge::parse_layout(spec, now_ms);
    if (node < 0)
      throw idforge::Error(
          idforge::errc::node_out_of_range,
          fmt::format("node {} is negative: a node ID is 0..{}", node, layout.node_count() - 1));
    layout.check_node(static_cast<std::uint64_t>(node));
    const std::string spec_text = layout.to_spec();
    if (spec_text.size() >= IDF_SPEC_SIZE)
      throw idforge::Error(idforge::errc::invalid_layout,
                           fmt::format("layout '{}' is too long for the mark file: its canonical "
                                       "spec '{}' has more than {} characters",
                                       spec, spec_text, IDF_SPEC_SIZE - 1));
    idf_sf_params p{};
    p.sequence_bits = layout.sequence_bits();
    p.time_shift = layout.time_shift();
    p.node_shift = layout.node_shift();
    p.sequence_shift = layout.sequence_shift();
    p.max_tick = layout.max_tick();
    p.epoch_ms = layout.epoch_ms();
    p.tick_ms = layout.tick_ms();
    p.node = static_cast<std::uint64_t>(node);
    p.is_signed = layout.is_signed() ? 1 : 0;
    std::memcpy(p.spec, spec_text.c_str(), spec_text.size() + 1);
    *out = p;
  });
}

uint64_t idf_sf_resume_stamp(const idf_sf_params* p, int64_t mark_ms) {
  if (mark_ms == IDF_NO_UNIX_MS || mark_ms < p->epoch_ms) return 0;
  auto tick = static_cast<std::uint64_t>((mark_ms - p->epoch_ms) / p->tick_ms);
  if (tick > p->max_tick) tick = p->max_tick;
  return (tick << p->sequence_bits) | ((std::uint64_t{1} << p->sequence_bits) - 1);
}

void idf_sf_next(const idf_sf_params* p, uint64_t last, int64_t mark_ms, int64_t now_ms,
                 int64_t reserve_ms, int64_t max_wait_ms, idf_sf_step* out) {
  const std::int64_t now_tick = floor_div(now_ms - p->epoch_ms, p->tick_ms);
  const auto step = Gen::advance(last, now_tick, limits_of(*p, max_wait_ms));
  *out = idf_sf_step{IDF_SF_ISSUE, 0, 0, IDF_NO_UNIX_MS, 0, step.behind * p->tick_ms};
  using Kind = Gen::Step::Kind;
  switch (step.kind) {
    case Kind::issue: {
      const std::uint64_t tick = step.stamp >> p->sequence_bits;
      const std::uint64_t seq = step.stamp & ((std::uint64_t{1} << p->sequence_bits) - 1);
      out->stamp = step.stamp;
      out->id = static_cast<std::int64_t>((tick << p->time_shift) | (p->node << p->node_shift) |
                                          (seq << p->sequence_shift));
      // The mark covers whole ticks: every ID issued so far ends by mark_ms. An ID of a later
      // tick needs a new mark on disk first; it reaches reserve_ms beyond the tick so the
      // next writes come once per window, not once per tick.
      const std::int64_t tick_last_ms = tick_start_ms(*p, tick) + p->tick_ms - 1;
      if (mark_ms == IDF_NO_UNIX_MS || tick_last_ms > mark_ms)
        out->new_mark_ms = tick_last_ms + (reserve_ms < 0 ? 0 : reserve_ms);
      break;
    }
    case Kind::wait:
      out->kind = IDF_SF_WAIT;
      out->wait_ms = tick_start_ms(*p, static_cast<std::uint64_t>(step.until_tick)) - now_ms;
      if (out->wait_ms < 1) out->wait_ms = 1;
      break;
    case Kind::refuse_backwards:
      out->kind = IDF_SF_BEHIND;
      break;
    case Kind::time_exhausted:
      out->kind = IDF_SF_EXHAUSTED;
      break;
    case Kind::before_epoch:
      out->kind = IDF_SF_BEFORE_EPOCH;
      break;
  }
}

int idf_sf_format_mark(const idf_sf_params* p, int64_t mark_ms, const idf_sf_origin* origin,
                       char* out, size_t size) {
  const int n =
      origin != nullptr && origin->system_id != 0
          ? std::snprintf(out, size, "%lld\nlayout %s\nnode %llu\nsystem %llu\ntimeline %u\n",
                          static_cast<long long>(mark_ms), p->spec,
                          static_cast<unsigned long long>(p->node),
                          static_cast<unsigned long long>(origin->system_id),
                          static_cast<unsigned>(origin->timeline))
          : std::snprintf(out, size, "%lld\nlayout %s\nnode %llu\n",
                          static_cast<long long>(mark_ms), p->spec,
                          static_cast<unsigned long long>(p->node));
  return (n < 0 || static_cast<std::size_t>(n) >= size) ? -1 : n;
}

int idf_sf_parse_mark(const char* text, size_t len, int64_t* mark_ms, char spec[IDF_SPEC_SIZE],
                      int64_t* node, idf_sf_origin* origin, char* err) {
  constexpr std::string_view kRule =
      "the file holds a non-negative decimal Unix ms, then 'layout <spec>' and 'node <n>' "
      "lines, then 'system <id>' and 'timeline <n>' lines (or the mark alone)";
  std::string_view s(text, len);
  const auto line = [&s] {
    const auto nl = s.find('\n');
    const std::string_view l = s.substr(0, nl);
    s = nl == std::string_view::npos ? std::string_view{} : s.substr(nl + 1);
    return l;
  };
  const std::string_view first = line();
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(first.data(), first.data() + first.size(), v);
  if (first.empty() || ec != std::errc{} || end != first.data() + first.size() || v < 0) {
    put_error(err,
              fmt::format("mark '{}' is not a Unix time in ms: {}", first.substr(0, 64), kRule));
    return -1;
  }
  spec[0] = '\0';
  *node = -1;
  idf_sf_origin o{0, 0};
  if (!s.empty()) {
    const std::string_view l = line(), n = line();
    std::int64_t nv = -1;
    const bool layout_ok =
        l.substr(0, 7) == "layout " && l.size() > 7 && l.size() - 7 < IDF_SPEC_SIZE;
    const auto nr = n.substr(0, 5) == "node "
                        ? std::from_chars(n.data() + 5, n.data() + n.size(), nv)
                        : std::from_chars_result{n.data(), std::errc::invalid_argument};
    if (!layout_ok || nr.ec != std::errc{} || nr.ptr != n.data() + n.size() || nv < 0) {
      put_error(err,
                fmt::format("mark file after '{}' holds '{}' / '{}', not a layout and a node: {}",
                            first, l.substr(0, 64), n.substr(0, 32), kRule));
      return -1;
    }
    // Written by a version that records where: both lines or neither. A system identifier is
    // never 0 and timelines start at 1, so 0 stays free for "unknown".
    if (!s.empty()) {
      const std::string_view sl = line(), tl = line();
      const auto number = [](std::string_view t, std::string_view key, auto& v) {
        // Unsigned from_chars takes neither a sign nor an empty field.
        if (t.substr(0, key.size()) != key) return false;
        const auto r = std::from_chars(t.data() + key.size(), t.data() + t.size(), v);
        return r.ec == std::errc{} && r.ptr == t.data() + t.size();
      };
      if (!number(sl, "system ", o.system_id) || !number(tl, "timeline ", o.timeline) ||
          o.system_id == 0 || o.timeline == 0 || !s.empty()) {
        put_error(err, fmt::format("mark file after node {} holds '{}' / '{}', not a system "
                                   "identifier and a timeline (both above 0): {}",
                                   nv, sl.substr(0, 64), tl.substr(0, 32), kRule));
        return -1;
      }
    }
    std::memcpy(spec, l.data() + 7, l.size() - 7);
    spec[l.size() - 7] = '\0';
    *node = nv;
  }
  *mark_ms = v;
  *origin = o;
  return 0;
}

int idf_sf_same_layout(const char* a, const char* b) {
  try {
    return idforge::parse_layout(a) == idforge::parse_layout(b) ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

int idf_sf_unix_ms(const char* spec, int64_t id, int64_t* unix_ms, char* err) {
  return guarded(err, [&] {
    const auto parts =
        idforge::decompose(layout_of(spec), idforge::Snowflake(static_cast<std::uint64_t>(id)));
    *unix_ms = parts.unix_ms;
  });
}

int idf_uuidv7(int64_t unix_ms, int64_t sub_ms_ns, unsigned char out[16], char* err) {
  if (unix_ms < 0 || unix_ms > static_cast<std::int64_t>(idforge::kMaxUnixMs48)) {
    put_error(err, fmt::format("timestamp {} ms is outside UUIDv7's 48-bit Unix millisecond "
                               "field (1970-01-01 .. 10889-08-02)",
                               unix_ms));
    return -1;
  }
  const auto fraction = static_cast<std::uint16_t>((sub_ms_ns * 4096) / 1'000'000);
  const idforge::Uuid u =
      idforge::compose_v7(static_cast<std::uint64_t>(unix_ms), fraction, idforge::random_u64());
  std::memcpy(out, u.bytes().data(), 16);
  return 0;
}

void idf_uuid4(unsigned char out[16]) {
  const idforge::Uuid u = idforge::new_uuid_v4();
  std::memcpy(out, u.bytes().data(), 16);
}

int idf_ulid(char out[27], char* err) {
  return guarded(err, [&] {
    // Made on first use, so in the backend that uses it (after the postmaster's fork).
    static idforge::UlidGenerator gen;
    *gen.next().to_chars(out) = '\0';
  });
}

int idf_typeid(const char* prefix, size_t len, char* out, char* err) {
  return guarded(err, [&] {
    static idforge::UuidV7Generator gen;
    const idforge::TypeId t(std::string_view(prefix, len), gen.next());
    *t.to_chars(out) = '\0';
  });
}

char* idf_inspect_json(const char* text, size_t len, const char* spec, char* err) {
  char* result = nullptr;
  guarded(err, [&] {
    idforge::InspectOptions opt;
    opt.layout = layout_of(spec);
    const std::string j =
        idforge::inspection_to_json_with_warning(idforge::inspect(std::string_view(text, len), opt))
            .dump();
    result = static_cast<char*>(std::malloc(j.size() + 1));
    if (result == nullptr) throw std::bad_alloc();
    std::memcpy(result, j.c_str(), j.size() + 1);
  });
  return result;
}

}  // extern "C"
