// The page's runs and the seed's five demos, each a scenario on sim::World. Each answer
// carries the log (entries in creation order), the tree(s), the IDs for the bits panel
// (latest) and the demo's own numbers (result), all measured from what the generators
// and the tree did; the page words them.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "idforge/error.hpp"
#include "idforge/snowflake.hpp"
#include "sim_world.hpp"

namespace idforge::lab {
namespace {

using nlohmann::json;
using sim::Entry;
using sim::World;

constexpr int M1 = 0, M2 = 1;
// Demo 5's comparison of many runs: enough that the shares are stable to about 1%.
constexpr int kTrialRuns = 1000;

void check_start(std::int64_t start_ms) {
  if (start_ms < sim_min_start_ms() || start_ms > sim_max_start_ms())
    throw Error(
        errc::invalid_argument,
        fmt::format(
            "start_ms={} must be from {} to {} (Unix ms within the Twitter layout's {}-bit time)",
            start_ms, sim_min_start_ms(), sim_max_start_ms(), sim::page_layout().time_bits()));
}

json tree_entry(const World& w, const char* title, std::size_t max_leaves = 0) {
  return {{"title", title}, {"tree", w.tree_json(max_leaves)}};
}

json log_of(const World& w) {
  json log = json::array();
  for (const Entry& e : w.entries()) log.push_back(w.entry_json(e));
  return log;
}

// M1 and M2 take turns, n requests, 1 ms apart.
void take_turns(World& w, unsigned n) {
  for (unsigned i = 0; i < n; ++i) w.request(i % 2 == 0 ? M1 : M2);
}

const Entry& last_id(const World& w) {
  for (auto it = w.entries().rbegin(); it != w.entries().rend(); ++it)
    if (it->type == Entry::Type::id) return *it;
  throw Error(errc::invalid_argument, "the simulation made no ID");
}

// Demo 1: one ID on each machine; which fields tell them apart.
json demo1(std::int64_t start_ms) {
  World w(SimKind::snowflake, start_ms);
  const Entry a = w.request(M1);
  const Entry b = w.request(M2);
  const json fa = sim::fields_of(a, w.kind()), fb = sim::fields_of(b, w.kind());
  json differ = json::array(), same = json::array();
  for (std::size_t i = 0; i < fa.size(); ++i)
    (fa[i]["value"] == fb[i]["value"] ? same : differ).push_back(fa[i]["name"]);
  return {{"kind", "snowflake"},
          {"log", log_of(w)},
          {"latest", {w.entry_json(a), w.entry_json(b)}},
          {"trees", {tree_entry(w, "Snowflake")}},
          {"result", {{"differing_fields", differ}, {"same_fields", same}}}};
}

// Demo 2: 4,097 requests to M1 in one millisecond; the sequence has 4,096 values.
json demo2(std::int64_t start_ms) {
  const std::size_t requests = sim::page_layout().ids_per_tick() + 1;
  World w(SimKind::snowflake, start_ms);
  w.burst(M1, requests);
  const auto& es = w.entries();
  std::set<std::uint64_t> distinct;
  std::size_t first_ms = 0, waited = 0;
  for (const Entry& e : es) {
    distinct.insert(e.snowflake);
    if (e.clock_ms == es.front().clock_ms && e.waited_ms == 0) ++first_ms;
    if (e.waited_ms > 0) ++waited;
  }
  const Entry& last = es.back();
  const json last_fields = sim::fields_of(last, w.kind());
  // The log lists the first and last three; the page says how many lie between.
  constexpr std::size_t kEnds = 3;
  json log = json::array();
  for (std::size_t i = 0; i < es.size(); ++i)
    if (i < kEnds || i + kEnds >= es.size()) log.push_back(w.entry_json(es[i]));
  return {{"kind", "snowflake"},
          {"log", log},
          {"log_elided_after", kEnds},
          {"log_elided", es.size() - 2 * kEnds},
          {"log_elided_machine", "M1"},
          {"latest", {w.entry_json(es[es.size() - 2]), w.entry_json(last)}},
          {"trees", {tree_entry(w, "Snowflake", 4)}},
          {"result",
           {{"requests", es.size()},
            {"distinct", distinct.size()},
            {"issued_without_waiting", first_ms},
            {"waited_requests", waited},
            {"sequence_exhausted_waits", w.snowflake_stats(M1).exhausted_waits},
            {"last",
             {{"n", last.n},
              {"waited_ms", last.waited_ms},
              {"sequence", last_fields[3]["value"]},
              {"timestamp_after_first_ms",
               decompose(sim::page_layout(), Snowflake(last.snowflake)).tick -
                   decompose(sim::page_layout(), Snowflake(es.front().snowflake)).tick}}}}}};
}

// Demo 3: M2's clock steps back 5 ms. Requests keep coming 1 ms apart, so when M2 is next
// asked its clock is 3 ms behind its last ID: refused. With a policy that waits, the
// following request (1 ms later, its clock 2 ms behind the last ID's millisecond, which
// counts as used) waits 3 ms for the next millisecond and gets an ID.
json demo3(std::int64_t start_ms) {
  World w(SimKind::snowflake, start_ms);
  w.request(M1);
  w.request(M2);
  w.step_clock(M2, -5);
  w.request(M1);
  const Entry refused = w.request(M2);
  const std::uint64_t refusals =
      w.snowflake_stats(M2).backward_refusals;  // before the generator is replaced
  w.set_wait_policy(M2, 5);
  const Entry waited = w.request(M2);
  json result{{"step_ms", -5}};
  if (refused.type == Entry::Type::refused)
    result["refused"] = {
        {"machine", "M2"}, {"behind_ms", refused.behind_ms}, {"message", refused.message}};
  if (waited.type == Entry::Type::id)
    result["waited"] = {{"machine", "M2"},
                        {"n", waited.n},
                        {"waited_ms", waited.waited_ms},
                        {"id_str", sim::text_of(waited, w.kind())}};
  result["refusals"] = refusals;
  return {{"kind", "snowflake"},
          {"log", log_of(w)},
          {"latest", {w.entry_json(waited)}},
          {"trees", {tree_entry(w, "Snowflake")}},
          {"result", result}};
}

// Demo 4: eight IDs of each UUID kind, sorted as a table's primary key sorts them; how many
// neighbouring pairs keep creation order.
json sorted_table(const World& w) {
  std::vector<const Entry*> rows;
  for (const Entry& e : w.entries()) rows.push_back(&e);
  std::sort(rows.begin(), rows.end(),
            [](const Entry* a, const Entry* b) { return a->uuid < b->uuid; });
  json out = json::array();
  std::size_t in_order = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out.push_back({{"n", rows[i]->n},
                   {"machine", rows[i]->machine == 0 ? "M1" : "M2"},
                   {"id_str", sim::text_of(*rows[i], w.kind())}});
    if (i > 0 && rows[i - 1]->n < rows[i]->n) ++in_order;
  }
  return {{"kind", sim_kind_name(w.kind())},
          {"rows", out},
          {"pairs", rows.size() - 1},
          {"pairs_in_order", in_order}};
}

json demo4(std::int64_t start_ms) {
  constexpr unsigned kRows = 8;
  World v7(SimKind::uuid7, start_ms), v4(SimKind::uuid4, start_ms);
  take_turns(v7, kRows);
  take_turns(v4, kRows);
  json log = log_of(v7);
  for (const json& e : log_of(v4)) log.push_back(e);
  return {{"kind", "uuid7"},
          {"log", log},
          {"latest", {v7.entry_json(last_id(v7)), v4.entry_json(last_id(v4))}},
          {"trees", {tree_entry(v7, "UUIDv7"), tree_entry(v4, "UUIDv4")}},
          {"result", {{"tables", {sorted_table(v7), sorted_table(v4)}}}}};
}

// Demo 5's many-runs view: the same 12 inserts repeated with fresh IDs each time.
json trials(SimKind kind, unsigned keys, std::int64_t start_ms) {
  std::map<std::uint64_t, int> histogram;
  double splits = 0, writes = 0, fill = 0;
  for (int r = 0; r < kTrialRuns; ++r) {
    World w(kind, start_ms);
    take_turns(w, keys);
    const BTreeStats s = w.tree().stats();
    ++histogram[s.splits()];
    splits += static_cast<double>(s.splits());
    writes += static_cast<double>(s.page_writes);
    fill += s.leaf_fill;
  }
  json h = json::array();
  for (const auto& [k, count] : histogram) h.push_back({{"splits", k}, {"runs", count}});
  return {{"kind", sim_kind_name(kind)},         {"runs", kTrialRuns},
          {"mean_splits", splits / kTrialRuns},  {"mean_page_writes", writes / kTrialRuns},
          {"mean_leaf_fill", fill / kTrialRuns}, {"histogram", h}};
}

json demo5(std::int64_t start_ms) {
  constexpr unsigned kKeys = 12;
  World v7(SimKind::uuid7, start_ms), v4(SimKind::uuid4, start_ms);
  take_turns(v7, kKeys);
  take_turns(v4, kKeys);
  json log = log_of(v7);
  for (const json& e : log_of(v4)) log.push_back(e);
  return {{"kind", "uuid7"},
          {"log", log},
          {"latest", {v7.entry_json(last_id(v7)), v4.entry_json(last_id(v4))}},
          {"trees", {tree_entry(v7, "UUIDv7"), tree_entry(v4, "UUIDv4")}},
          {"result",
           {{"keys", kKeys},
            {"trials",
             {trials(SimKind::uuid7, kKeys, start_ms), trials(SimKind::uuid4, kKeys, start_ms)}}}}};
}

}  // namespace

std::string_view sim_kind_name(SimKind kind) noexcept {
  switch (kind) {
    case SimKind::snowflake:
      return "snowflake";
    case SimKind::uuid7:
      return "uuid7";
    case SimKind::uuid4:
      return "uuid4";
  }
  return "?";
}

SimKind parse_sim_kind(std::string_view name) {
  for (SimKind k : {SimKind::snowflake, SimKind::uuid7, SimKind::uuid4})
    if (name == sim_kind_name(k)) return k;
  throw Error(errc::invalid_argument,
              fmt::format("kind='{}' is not simulated; kinds: snowflake, uuid7, uuid4", name));
}

std::int64_t sim_min_start_ms() noexcept {
  return sim::page_layout().epoch_ms() + 1000;
}
std::int64_t sim_max_start_ms() noexcept {
  const Layout& l = sim::page_layout();
  return l.epoch_ms() + static_cast<std::int64_t>(l.max_tick()) - 60'000;
}

std::string sim_layouts_json() {
  json layouts = json::array();
  const std::pair<SimKind, const char*> kinds[] = {
      {SimKind::snowflake, "Snowflake"}, {SimKind::uuid7, "UUIDv7"}, {SimKind::uuid4, "UUIDv4"}};
  for (const auto& [kind, title] : kinds) {
    const int bits = kind == SimKind::snowflake ? sim::kSnowflakeBits : sim::kUuidBits;
    layouts.push_back({{"kind", sim_kind_name(kind)},
                       {"title", title},
                       {"bits", bits},
                       {"fields", sim::layout_json(kind)}});
  }
  return json{{"layouts", layouts},
              {"leaf_capacity", sim::kLeafKeys},
              {"snowflake_epoch_ms", sim::page_layout().epoch_ms()},
              {"snowflake_ids_per_ms", sim::page_layout().ids_per_tick()}}
      .dump();
}

std::string sim_run_json(SimKind kind, unsigned count, std::int64_t start_ms) {
  if (count < 1 || count > kSimMaxRequests)
    throw Error(errc::invalid_argument,
                fmt::format("count={} must be from 1 to {}", count, kSimMaxRequests));
  check_start(start_ms);
  World w(kind, start_ms);
  json steps = json::array();
  for (unsigned i = 0; i < count; ++i) {
    const Entry& e = w.request(i % 2 == 0 ? M1 : M2);
    steps.push_back({{"entry", w.entry_json(e)}, {"tree", w.tree_json()}});
  }
  return json{{"kind", sim_kind_name(kind)}, {"start_ms", start_ms}, {"steps", steps}}.dump();
}

std::string sim_demo_json(int demo, std::int64_t start_ms) {
  check_start(start_ms);
  json out;
  switch (demo) {
    case 1:
      out = demo1(start_ms);
      break;
    case 2:
      out = demo2(start_ms);
      break;
    case 3:
      out = demo3(start_ms);
      break;
    case 4:
      out = demo4(start_ms);
      break;
    case 5:
      out = demo5(start_ms);
      break;
    default:
      throw Error(errc::invalid_argument,
                  fmt::format("demo {} does not exist; demos are 1 to {}", demo, kSimDemoCount));
  }
  out["demo"] = demo;
  out["start_ms"] = start_ms;
  return out.dump();
}

}  // namespace idforge::lab
