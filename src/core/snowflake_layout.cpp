#include "idforge/snowflake_layout.hpp"

#include <charconv>
#include <limits>
#include <vector>

#include "idforge/clock.hpp"
#include "idforge/error.hpp"
#include "idforge/time_format.hpp"

namespace idforge {
namespace {

std::string bits_sum(const LayoutFields& f) {
  return "time " + std::to_string(f.time_bits) + " + datacenter " +
         std::to_string(f.datacenter_bits) + " + worker " + std::to_string(f.worker_bits) +
         " + sequence " + std::to_string(f.sequence_bits) + " = " +
         std::to_string(f.time_bits + f.datacenter_bits + f.worker_bits + f.sequence_bits);
}

[[noreturn]] void invalid(const LayoutFields& f, const std::string& rule) {
  throw Error(errc::invalid_layout, "layout '" + f.name + "': " + rule);
}

void check_range(const LayoutFields& f, const char* field, std::int64_t v, std::int64_t lo,
                 std::int64_t hi) {
  if (v < lo || v > hi)
    invalid(f, std::string(field) + " is " + std::to_string(v) + ", must be " + std::to_string(lo) +
                   ".." + std::to_string(hi));
}

// 9999-12-31T23:59:59.999Z, the last instant a four-digit ISO-8601 year can write.
constexpr std::int64_t kLastIsoMs = 253'402'300'799'999;

std::int64_t system_now_ms() {
  return SystemClock::instance().now_ns() / 1'000'000;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Layout

Layout::Layout(const LayoutFields& f) noexcept : f_(f) {
  const int n = f.datacenter_bits + f.worker_bits, s = f.sequence_bits;
  max_tick_ = f.time_bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << f.time_bits) - 1;
  if (f.order == FieldOrder::time_node_sequence) {
    sequence_shift_ = 0, node_shift_ = s, time_shift_ = n + s;
  } else {
    node_shift_ = 0, sequence_shift_ = n, time_shift_ = n + s;
  }
}

Layout Layout::make(const LayoutFields& f, std::int64_t now_unix_ms) {
  check_range(f, "time bits", f.time_bits, 1, 63);
  check_range(f, "datacenter bits", f.datacenter_bits, 0, 31);
  check_range(f, "worker bits", f.worker_bits, 0, 31);
  check_range(f, "sequence bits", f.sequence_bits, 0, 31);
  check_range(f, "node bits (datacenter + worker)", f.datacenter_bits + f.worker_bits, 0, 32);
  check_range(f, "tick (ms)", f.tick_ms, 1, 86'400'000);
  const int want = f.is_signed ? 63 : 64;
  const int sum = f.time_bits + f.datacenter_bits + f.worker_bits + f.sequence_bits;
  if (sum != want)
    invalid(f, "bits do not add up: " + bits_sum(f) + ", but " +
                   (f.is_signed ? "a signed layout has 63 usable bits (the sign bit stays 0)"
                                : "an unsigned layout has 64 bits"));
  if (f.epoch_ms < 0)
    invalid(f, "epoch " + std::to_string(f.epoch_ms) +
                   " ms is before 1970-01-01T00:00:00.000Z: the epoch must be a date from 1970 on");
  if (f.epoch_ms > now_unix_ms)
    throw Error(errc::epoch_in_future,
                "layout '" + f.name + "': epoch " +
                    (f.epoch_ms > kLastIsoMs ? std::string("after 9999-12-31")
                                             : format_iso8601_ms(f.epoch_ms)) +
                    " (" + std::to_string(f.epoch_ms) + " ms) is after now " +
                    format_iso8601_ms(now_unix_ms) + "; IDs would need negative time");
  return Layout(f);
}

Layout Layout::make(const LayoutFields& f) {
  return make(f, system_now_ms());
}

std::uint64_t Layout::check_node(std::uint64_t node) const {
  if (node >= node_count())
    throw Error(errc::node_out_of_range, "node ID " + std::to_string(node) +
                                             " out of range: layout '" + name() + "' has " +
                                             std::to_string(node_bits()) + " node bits, so 0.." +
                                             std::to_string(node_count() - 1));
  return node;
}

std::uint64_t Layout::node_of(std::uint64_t datacenter, std::uint64_t worker) const {
  const std::uint64_t dc_max = (std::uint64_t{1} << datacenter_bits()) - 1;
  const std::uint64_t w_max = (std::uint64_t{1} << worker_bits()) - 1;
  if (datacenter > dc_max)
    throw Error(errc::node_out_of_range, "datacenter " + std::to_string(datacenter) +
                                             " out of range: layout '" + name() + "' has " +
                                             std::to_string(datacenter_bits()) +
                                             " datacenter bits, so 0.." + std::to_string(dc_max));
  if (worker > w_max)
    throw Error(errc::node_out_of_range,
                "worker " + std::to_string(worker) + " out of range: layout '" + name() + "' has " +
                    std::to_string(worker_bits()) + " worker bits, so 0.." + std::to_string(w_max));
  return (datacenter << worker_bits()) | worker;
}

std::string Layout::to_spec() const {
  std::string s =
      "name=" + f_.name + ",time=" + std::to_string(f_.time_bits) +
      ",dc=" + std::to_string(f_.datacenter_bits) + ",worker=" + std::to_string(f_.worker_bits) +
      ",seq=" + std::to_string(f_.sequence_bits) + ",tick=" + std::to_string(f_.tick_ms) + "ms" +
      ",epoch=" + std::to_string(f_.epoch_ms) +
      ",order=" + (f_.order == FieldOrder::time_node_sequence ? "time-node-seq" : "time-seq-node") +
      (f_.is_signed ? ",signed" : ",unsigned");
  return s;
}

bool operator==(const Layout& a, const Layout& b) noexcept {
  const LayoutFields &x = a.f_, &y = b.f_;
  return x.time_bits == y.time_bits && x.datacenter_bits == y.datacenter_bits &&
         x.worker_bits == y.worker_bits && x.sequence_bits == y.sequence_bits &&
         x.tick_ms == y.tick_ms && x.epoch_ms == y.epoch_ms && x.order == y.order &&
         x.is_signed == y.is_signed;
}

// ---------------------------------------------------------------------------------------
// Presets. Epochs are in the past, so make() with any real "now" accepts them.

namespace presets {
namespace {
Layout preset(const LayoutFields& f) {
  return Layout::make(f, std::numeric_limits<std::int64_t>::max());
}
}  // namespace

Layout twitter() {
  return preset({"twitter", 41, 5, 5, 12, 1, 1288834974657, FieldOrder::time_node_sequence, true});
}
Layout discord() {
  return preset({"discord", 42, 5, 5, 12, 1, 1420070400000, FieldOrder::time_node_sequence, false});
}
Layout sonyflake() {
  return preset(
      {"sonyflake", 39, 0, 16, 8, 10, 1409529600000, FieldOrder::time_sequence_node, true});
}
Layout instagram() {
  return preset(
      {"instagram", 41, 0, 13, 10, 1, 1314220021721, FieldOrder::time_node_sequence, false});
}
Layout baidu() {
  return preset(
      {"baidu", 28, 0, 22, 13, 1000, 1463702400000, FieldOrder::time_node_sequence, true});
}

const std::vector<std::string>& names() {
  static const std::vector<std::string> n{"twitter", "discord", "sonyflake", "instagram", "baidu"};
  return n;
}
}  // namespace presets

namespace {

bool preset_fields(std::string_view name, LayoutFields& out) {
  if (name == "twitter") return out = presets::twitter().fields(), true;
  if (name == "discord") return out = presets::discord().fields(), true;
  if (name == "sonyflake") return out = presets::sonyflake().fields(), true;
  if (name == "instagram") return out = presets::instagram().fields(), true;
  if (name == "baidu") return out = presets::baidu().fields(), true;
  return false;
}

struct SpecParser {
  std::string_view spec;

  [[noreturn]] void fail(std::size_t pos, const std::string& reason) const {
    throw ParseError("layout spec", spec, pos, reason);
  }
  std::int64_t number(std::string_view v, std::size_t pos, std::string_view key) const {
    std::int64_t out = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (ec != std::errc{} || p != v.data() + v.size() || v.empty())
      fail(pos + (p - v.data()), "value of '" + std::string(key) +
                                     "' must be a whole number, got '" + std::string(v) + "'");
    return out;
  }
  // A width is read as int64 and range-checked here, so "time=4294967360" cannot narrow to 64.
  int bits(std::string_view v, std::size_t pos, std::string_view key) const {
    const std::int64_t n = number(v, pos, key);
    if (n < 0 || n > 64)
      fail(pos, "'" + std::string(key) + "' is a field width from 0 to 64 bits, got '" +
                    std::string(v) + "'");
    return static_cast<int>(n);
  }
  std::int64_t tick(std::string_view v, std::size_t pos) const {
    std::int64_t scale = 1;
    if (v.ends_with("ms")) {
      v.remove_suffix(2);
    } else if (v.ends_with("s")) {
      v.remove_suffix(1), scale = 1000;
    }
    const std::int64_t n = number(v, pos, "tick");
    // Seconds are scaled only when the product fits; anything that large is past the one-day
    // limit that Layout::make names anyway.
    if (n > std::numeric_limits<std::int64_t>::max() / scale ||
        n < std::numeric_limits<std::int64_t>::min() / scale)
      fail(pos, "tick must be from 1 ms to 86400000 ms (one day), got '" + std::string(v) +
                    (scale == 1000 ? "s'" : "'"));
    return n * scale;
  }
  std::int64_t epoch(std::string_view v, std::size_t pos) const {
    // "-1" is neither form; say what an epoch may be rather than how ISO-8601 parsing failed.
    if (v.starts_with('-'))
      fail(pos, "epoch must be a date from 1970-01-01 on (Unix ms >= 0 or ISO-8601 UTC), got '" +
                    std::string(v) + "'");
    if (!v.empty() && v.find_first_not_of("0123456789") == std::string_view::npos)
      return number(v, pos, "epoch");
    try {
      return parse_iso8601_ms(v);
    } catch (const ParseError& e) {
      fail(pos + e.position(), "epoch must be Unix ms or ISO-8601 UTC: " + e.reason());
    }
  }

  // The key a spelling sets: an alias is the same key ("seq" and "sequence"), and "signed"
  // and "unsigned" are two values of one.
  static std::string_view canonical(std::string_view key) {
    if (key == "datacenter") return "dc";
    if (key == "sequence") return "seq";
    if (key == "unsigned") return "signed";
    return key;
  }

  // Each key once: "time=41,time=40" is a paste or a merge gone wrong, and the last one
  // silently winning would hide it (lease store URLs refuse a repeated key the same way).
  // "node" sets the whole node field, so it goes with neither "dc" nor "worker".
  struct SeenKeys {
    const SpecParser& p;
    std::vector<std::string_view> written;  // each key as the spec spells it

    void add(std::string_view key, std::size_t pos) {
      const std::string_view k = canonical(key);
      for (const std::string_view w : written) {
        const std::string_view c = canonical(w);
        if (c == k) {
          const std::string both =
              w == key ? std::string()
                       : " (as '" + std::string(w) + "' and '" + std::string(key) + "')";
          p.fail(pos, "key '" + std::string(w) + "' is given twice" + both + "; give it once");
        }
        const bool node_with_part = (c == "node" && (k == "dc" || k == "worker")) ||
                                    (k == "node" && (c == "dc" || c == "worker"));
        if (node_with_part)
          p.fail(pos, "'" + std::string(w) + "' and '" + std::string(key) +
                          "' both set the node bits; give 'node', or 'dc' and 'worker'");
      }
      written.push_back(key);
    }
  };

  LayoutFields parse() const {
    LayoutFields f;
    bool named = false, modified = false, explicit_name = false;
    std::size_t start = 0;
    bool first = true;
    SeenKeys seen{*this, {}};
    while (start <= spec.size()) {
      std::size_t end = spec.find(',', start);
      if (end == std::string_view::npos) end = spec.size();
      const std::string_view tok = spec.substr(start, end - start);
      const std::size_t eq = tok.find('=');
      if (tok.empty()) fail(start, "empty field");
      if (eq == std::string_view::npos) {
        if (tok == "signed" || tok == "unsigned") {
          seen.add(tok, start);
          f.is_signed = tok == "signed";
        } else if (first && preset_fields(tok, f)) {
          named = true;
        } else {
          fail(start, "'" + std::string(tok) +
                          "' is neither a preset (twitter, discord, sonyflake, instagram, baidu) "
                          "nor key=value");
        }
      } else {
        const std::string_view key = tok.substr(0, eq), val = tok.substr(eq + 1);
        const std::size_t vpos = start + eq + 1;
        if (key == "time")
          f.time_bits = bits(val, vpos, key);
        else if (key == "dc" || key == "datacenter")
          f.datacenter_bits = bits(val, vpos, key);
        else if (key == "worker")
          f.worker_bits = bits(val, vpos, key);
        else if (key == "node")
          f.worker_bits = bits(val, vpos, key), f.datacenter_bits = 0;
        else if (key == "seq" || key == "sequence")
          f.sequence_bits = bits(val, vpos, key);
        else if (key == "tick")
          f.tick_ms = tick(val, vpos);
        else if (key == "epoch")
          f.epoch_ms = epoch(val, vpos);
        else if (key == "name")
          f.name = std::string(val);
        else if (key == "order") {
          if (val == "time-node-seq")
            f.order = FieldOrder::time_node_sequence;
          else if (val == "time-seq-node")
            f.order = FieldOrder::time_sequence_node;
          else
            fail(vpos,
                 "order must be time-node-seq or time-seq-node, got '" + std::string(val) + "'");
        } else {
          fail(start, "unknown key '" + std::string(key) +
                          "' (known: time, dc, worker, node, seq, tick, epoch, order, name, "
                          "signed, unsigned)");
        }
        seen.add(key, start);  // a known key: an unknown one was refused above
        if (key == "name")
          explicit_name = true;
        else
          modified = true;
      }
      first = false;
      start = end + 1;
    }
    if (named && modified && !explicit_name) f.name += "-custom";
    return f;
  }
};

}  // namespace

Layout parse_layout(std::string_view spec, std::int64_t now_unix_ms) {
  if (spec.empty())
    throw ParseError("layout spec", spec, 0, "empty; give a preset or key=value pairs");
  return Layout::make(SpecParser{spec}.parse(), now_unix_ms);
}

Layout parse_layout(std::string_view spec) {
  return parse_layout(spec, system_now_ms());
}

LayoutFacts describe(const Layout& l) noexcept {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  LayoutFacts facts{};
  facts.nodes = l.node_count();
  facts.ids_per_tick = l.ids_per_tick();
  facts.max_ids_per_second =
      static_cast<double>(l.ids_per_tick()) * 1000.0 / static_cast<double>(l.tick_ms());
  const auto ticks_to_ms = [&](std::uint64_t ticks) -> std::int64_t {
    const auto room =
        static_cast<std::uint64_t>(kMax - l.epoch_ms()) / static_cast<std::uint64_t>(l.tick_ms());
    return ticks > room ? kMax : l.epoch_ms() + static_cast<std::int64_t>(ticks) * l.tick_ms();
  };
  const std::uint64_t tick_count = l.max_tick() + 1;  // time_bits <= 63, so no overflow
  facts.time_runs_out_ms = ticks_to_ms(tick_count);
  // An ID stays below 2^53 while tick < 2^(53 - time_shift).
  if (l.time_shift() >= 53) {
    facts.js_safe_until_ms = l.epoch_ms();
  } else {
    const std::uint64_t safe_ticks = std::uint64_t{1} << (53 - l.time_shift());
    facts.js_safe_until_ms =
        safe_ticks >= tick_count ? facts.time_runs_out_ms : ticks_to_ms(safe_ticks);
  }
  facts.years_of_time =
      static_cast<double>(tick_count) * static_cast<double>(l.tick_ms()) / (365.25 * 86'400'000.0);
  return facts;
}

}  // namespace idforge
