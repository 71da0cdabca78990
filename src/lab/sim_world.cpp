#include "sim_world.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "idforge/error.hpp"
#include "idforge/snowflake.hpp"
#include "idforge/time_format.hpp"
#include "idforge/uuid_fields.hpp"

namespace idforge::lab::sim {
namespace {

constexpr std::int64_t kNsPerMs = 1'000'000;

// One field of a bit bar. Widths come from the layout (Snowflake) or RFC 9562 §5.4/§5.7.
struct FieldSpec {
  const char* name;
  const char*
      role;  // colours the page uses: sign, time, machine, sequence, version, variant, random
  int width;
};

std::vector<FieldSpec> field_specs(SimKind kind) {
  switch (kind) {
    case SimKind::snowflake: {
      const Layout& l = page_layout();
      const int sign = kSnowflakeBits - l.time_bits() - l.node_bits() - l.sequence_bits();
      return {{"sign", "sign", sign},
              {"timestamp", "time", l.time_bits()},
              {"machine id", "machine", l.node_bits()},
              {"sequence", "sequence", l.sequence_bits()}};
    }
    case SimKind::uuid7:
      return {{"unix_ts_ms", "time", kUuidSplitABits},
              {"ver", "version", kUuidVersionBits},
              {"rand_a", "random", kUuidSplitBBits},
              {"var", "variant", kUuidVariantBits},
              {"rand_b", "random", kUuidSplitCBits}};
    case SimKind::uuid4:
      return {{"random_a", "random", kUuidSplitABits},
              {"ver", "version", kUuidVersionBits},
              {"random_b", "random", kUuidSplitBBits},
              {"var", "variant", kUuidVariantBits},
              {"random_c", "random", kUuidSplitCBits}};
  }
  return {};
}

lab::Key128 key_of(const Entry& e, SimKind kind) {
  if (kind == SimKind::snowflake) return {e.snowflake, 0};
  return {e.uuid.high(), e.uuid.low()};
}

std::string machine_name(int m) {
  return m == 0 ? "M1" : "M2";
}

std::string hex(std::uint64_t v) {
  return fmt::format("0x{:x}", v);
}

}  // namespace

const Layout& page_layout() {
  static const Layout layout = presets::twitter();
  return layout;
}

nlohmann::json layout_json(SimKind kind) {
  nlohmann::json fields = nlohmann::json::array();
  int start = 0;
  for (const FieldSpec& f : field_specs(kind)) {
    fields.push_back({{"name", f.name}, {"role", f.role}, {"start", start}, {"width", f.width}});
    start += f.width;
  }
  return fields;
}

std::string bits_of(const Entry& e, SimKind kind) {
  std::string out;
  auto put = [&out](std::uint64_t v) {
    for (int i = kSnowflakeBits - 1; i >= 0; --i) out += ((v >> i) & 1) ? '1' : '0';
  };
  if (kind == SimKind::snowflake) {
    put(e.snowflake);
  } else {
    put(e.uuid.high());
    put(e.uuid.low());
  }
  return out;
}

std::string text_of(const Entry& e, SimKind kind) {
  return kind == SimKind::snowflake ? std::to_string(e.snowflake) : e.uuid.to_string();
}

nlohmann::json fields_of(const Entry& e, SimKind kind) {
  nlohmann::json fields = layout_json(kind);
  // value: what the field holds; detail: what that means, where it means something.
  auto set = [&fields](std::size_t i, std::string value, std::string detail = {}) {
    fields[i]["value"] = std::move(value);
    if (!detail.empty()) fields[i]["detail"] = std::move(detail);
  };
  switch (kind) {
    case SimKind::snowflake: {
      const SnowflakeParts p = decompose(page_layout(), Snowflake(e.snowflake));
      set(0, "0", "always 0: the number stays positive");
      set(1, std::to_string(p.tick), "ms since twepoch = " + format_iso8601_ms(p.unix_ms));
      set(2, std::to_string(p.node),
          "datacenter " + std::to_string(p.datacenter) + ", worker " + std::to_string(p.worker));
      set(3, std::to_string(p.sequence), "IDs before it in this ms on this machine");
      break;
    }
    case SimKind::uuid7: {
      const UuidV7Fields f = decompose_v7(e.uuid);
      set(0, std::to_string(f.unix_ms), format_iso8601_ms(static_cast<std::int64_t>(f.unix_ms)));
      set(1, std::to_string(e.uuid.version()), "version 7");
      set(2, hex(f.rand_a),
          fmt::format("idforge: top {} bits of a {}-bit counter seeded at random each ms",
                      kUuidSplitBBits, UuidV7Stamp::kCounterBits));
      set(3, "10", "RFC 9562 variant");
      set(4, hex(f.rand_b),
          fmt::format("{} more counter bits, then {} fresh random bits",
                      UuidV7Stamp::kCounterInRandB,
                      kUuidSplitCBits - UuidV7Stamp::kCounterInRandB));
      break;
    }
    case SimKind::uuid4: {
      const UuidSplitFields f = decompose_split(e.uuid);
      set(0, hex(f.a), "random");
      set(1, std::to_string(e.uuid.version()), "version 4");
      set(2, hex(f.b), "random");
      set(3, "10", "RFC 9562 variant");
      set(4, hex(f.c), "random");
      break;
    }
  }
  return fields;
}

// ---------------------------------------------------------------------------------------
// World

World::World(SimKind kind, std::int64_t start_ms)
    : kind_(kind), start_ms_(start_ms), world_ms_(start_ms), tree_([] {
        lab::BTreeConfig c;
        c.leaf_capacity = kLeafKeys;
        c.interior_fanout = 16;  // only leaves split in the page's small trees
        c.rightmost_fill = 1.0;  // the seed's rule: an appended-to full page stays full
        c.record_creation = true;
        return c;
      }()) {
  for (int m = 0; m < 2; ++m) {
    Machine& mc = machines_[m];
    mc.clock.set_ms(start_ms);
    if (kind == SimKind::snowflake) {
      SnowflakePolicy policy;
      policy.max_backward_wait_ms = 0;  // refuse, as Twitter's generator does
      mc.snowflake = std::make_unique<SnowflakeGenerator>(page_layout(), m + 1, mc.clock, policy);
    } else if (kind == SimKind::uuid7) {
      mc.uuid7 = std::make_unique<UuidV7Generator>(mc.clock);
    }
  }
}

void World::sync_clocks() {
  for (Machine& mc : machines_) mc.clock.set_ms(world_ms_ + mc.offset_ms);
}

const Entry& World::request(int machine) {
  return ask(machine, true);
}

void World::burst(int machine, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) ask(machine, i == 0);
}

const Entry& World::ask(int machine, bool next_ms) {
  if (started_ && next_ms) ++world_ms_;
  started_ = true;
  sync_clocks();
  Machine& mc = machines_.at(machine);
  Entry e;
  e.machine = machine;
  e.at_ms = world_ms_ - start_ms_;
  e.clock_ms = mc.clock.now_ns() / kNsPerMs;
  const std::int64_t waited_before = mc.clock.waited_ns();
  switch (kind_) {
    case SimKind::snowflake:
      try {
        e.snowflake = mc.snowflake->next().value();
      } catch (const ClockBackwardsError& err) {
        e.type = Entry::Type::refused;
        e.behind_ms = err.behind_ms();
        e.message = err.what();
        entries_.push_back(std::move(e));
        return entries_.back();
      }
      break;
    case SimKind::uuid7:
      e.uuid = mc.uuid7->next();
      break;
    case SimKind::uuid4:
      e.uuid = new_uuid_v4();
      break;
  }
  // The generator's wait jumped its clock: that much time passed for everyone.
  e.waited_ms = (mc.clock.waited_ns() - waited_before) / kNsPerMs;
  world_ms_ += e.waited_ms;
  sync_clocks();
  insert(e);
  return entries_.back();
}

void World::insert(Entry& e) {
  e.n = tree_.stats().inserts + 1;
  tree_.insert(key_of(e, kind_));
  entry_of_n_.push_back(entries_.size());
  entries_.push_back(std::move(e));
}

void World::step_clock(int machine, std::int64_t delta_ms) {
  Machine& mc = machines_.at(machine);
  mc.offset_ms += delta_ms;
  sync_clocks();
  Entry e;
  e.type = Entry::Type::clock_step;
  e.machine = machine;
  e.at_ms = world_ms_ - start_ms_;
  e.clock_ms = mc.clock.now_ns() / kNsPerMs;
  e.delta_ms = delta_ms;
  entries_.push_back(std::move(e));
}

void World::set_wait_policy(int machine, std::int64_t max_wait_ms) {
  Machine& mc = machines_.at(machine);
  if (kind_ != SimKind::snowflake)
    throw Error(errc::invalid_argument,
                "only Snowflake generators have a backward-clock policy; kind is " +
                    std::string(sim_kind_name(kind_)));
  SnowflakePolicy policy;
  policy.max_backward_wait_ms = max_wait_ms;
  if (mc.snowflake->last_unix_ms() != kNoUnixMs)
    policy.issued_up_to_unix_ms = mc.snowflake->last_unix_ms();
  mc.snowflake = std::make_unique<SnowflakeGenerator>(page_layout(), machine + 1, mc.clock, policy);
  mc.max_wait_ms = max_wait_ms;
  Entry e;
  e.type = Entry::Type::policy;
  e.machine = machine;
  e.at_ms = world_ms_ - start_ms_;
  e.clock_ms = mc.clock.now_ns() / kNsPerMs;
  e.delta_ms = max_wait_ms;
  entries_.push_back(std::move(e));
}

SnowflakeStats World::snowflake_stats(int machine) const {
  const Machine& mc = machines_.at(machine);
  return mc.snowflake ? mc.snowflake->stats() : SnowflakeStats{};
}

std::int64_t World::max_wait_ms(int machine) const {
  return machines_.at(machine).max_wait_ms;
}

nlohmann::json World::entry_json(const Entry& e) const {
  nlohmann::json j{{"machine", machine_name(e.machine)},
                   {"at_ms", e.at_ms},
                   {"clock_ms", e.clock_ms},
                   {"clock", format_iso8601_ms(e.clock_ms)},
                   {"kind", sim_kind_name(kind_)}};
  switch (e.type) {
    case Entry::Type::id:
      j["type"] = "id";
      j["n"] = e.n;
      j["waited_ms"] = e.waited_ms;
      if (kind_ == SimKind::snowflake) {
        j["node"] = e.machine + 1;
        j["id"] = e.snowflake;
      } else {
        j["id"] = e.uuid.to_string();
      }
      j["id_str"] = text_of(e, kind_);
      j["bits"] = bits_of(e, kind_);
      j["fields"] = fields_of(e, kind_);
      break;
    case Entry::Type::refused:
      j["type"] = "refused";
      j["behind_ms"] = e.behind_ms;
      j["message"] = e.message;
      break;
    case Entry::Type::clock_step:
      j["type"] = "clock_step";
      j["delta_ms"] = e.delta_ms;
      break;
    case Entry::Type::policy:
      j["type"] = "policy";
      j["max_wait_ms"] = e.delta_ms;
      break;
  }
  return j;
}

nlohmann::json World::tree_json(std::size_t max_leaves) const {
  const std::vector<lab::LeafView> leaves = tree_.leaves();
  const std::size_t first =
      max_leaves > 0 && leaves.size() > max_leaves ? leaves.size() - max_leaves : 0;
  // Leaves are numbered p1, p2, ... in the order they were made (the simulator numbers
  // interior pages in the same sequence; the page shows leaves only).
  std::vector<std::uint32_t> made;
  for (const lab::LeafView& lv : leaves) made.push_back(lv.page);
  std::sort(made.begin(), made.end());
  nlohmann::json out_leaves = nlohmann::json::array();
  for (std::size_t i = first; i < leaves.size(); ++i) {
    const lab::LeafView& lv = leaves[i];
    const auto leaf_no = std::lower_bound(made.begin(), made.end(), lv.page) - made.begin() + 1;
    nlohmann::json keys = nlohmann::json::array();
    for (std::size_t k = 0; k < lv.keys.size(); ++k) {
      const std::uint64_t n = lv.created.at(k);
      const Entry& e = entries_.at(entry_of_n_.at(n - 1));
      keys.push_back(
          {{"n", n}, {"machine", machine_name(e.machine)}, {"id_str", text_of(e, kind_)}});
    }
    out_leaves.push_back({{"page", lv.page}, {"leaf_no", leaf_no}, {"keys", std::move(keys)}});
  }
  const lab::BTreeStats s = tree_.stats();
  return {{"kind", sim_kind_name(kind_)},
          {"leaf_capacity", kLeafKeys},
          {"leaves", std::move(out_leaves)},
          {"omitted_leaves", first},
          {"stats",
           {{"inserts", s.inserts},
            {"splits", s.splits()},
            {"leaf_splits", s.leaf_splits},
            {"page_writes", s.page_writes},
            {"leaves", s.leaves},
            {"interior_pages", s.interior_pages},
            {"height", s.height},
            {"leaf_fill", s.leaf_fill}}}};
}

}  // namespace idforge::lab::sim
