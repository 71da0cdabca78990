// `idforge lab btree`: the B+ tree simulator, as seed 003's Demo 5 or at full scale.
#include <fmt/core.h>

#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/lab/sim_run.hpp"
#include "idforge/lab/svg_chart.hpp"
#include "lab_output.hpp"
#include "option_checks.hpp"
#include "output.hpp"

namespace idforge::cli {
namespace {

using namespace idforge::lab;
using nlohmann::json;

struct BtreeArgs {
  bool demo = false;
  std::optional<std::string> kinds;
  std::optional<std::string> n;
  std::uint32_t page_bytes = 16384;
  std::uint32_t leaf_keys = 0, fanout = 0, entry_overhead = 0;
  double rightmost_fill = 1.0;
  std::uint64_t pool_pages = 0;
  std::optional<std::uint64_t> seed;
  std::uint32_t keys_per_ms = 1;
  bool json = false;
  std::string svg;
};

json stats_json(KeyKind kind, const BTreeStats& s) {
  return {{"kind", std::string(info(kind).name)},
          {"key_bytes", info(kind).key_bytes},
          {"inserts", s.inserts},
          {"splits", s.splits()},
          {"leaf_splits", s.leaf_splits},
          {"interior_splits", s.interior_splits},
          {"page_writes", s.page_writes},
          {"leaves", s.leaves},
          {"interior_pages", s.interior_pages},
          {"height", s.height},
          {"leaf_fill", s.leaf_fill},
          {"pool_misses", s.pool_misses}};
}

void run_demo_cmd(const BtreeArgs& a) {
  DemoOptions o;
  if (a.seed) o.seed = *a.seed;
  if (a.kinds) o.kinds = parse_key_kinds(*a.kinds);
  if (a.leaf_keys) o.leaf_keys = a.leaf_keys;
  if (a.fanout) o.fanout = a.fanout;
  o.keys = static_cast<std::uint32_t>(parse_count(a.n.value_or("12"), "--n", 100000));
  const auto runs = run_demo(o);
  json out = {{"demo", "seed 003 demo 5"}, {"seed", o.seed},     {"keys", o.keys},
              {"leaf_keys", o.leaf_keys},  {"fanout", o.fanout}, {"results", json::array()}};
  std::string text = fmt::format("Demo 5: {} keys a kind, {} keys a leaf page, seed {}\n", o.keys,
                                 o.leaf_keys, o.seed);
  for (const DemoRun& r : runs) {
    json j = stats_json(r.kind, r.stats);
    j["keys_in_creation_order"] = json::array();
    for (const Key128& k : r.keys)
      j["keys_in_creation_order"].push_back(r.kind == KeyKind::snowflake ? std::to_string(k.hi)
                                                                         : to_uuid_text(k));
    j["leaf_pages"] = json::array();
    text += fmt::format("\n{}: {} leaves, {} splits, {} page writes, leaf fill {}\n",
                        info(r.kind).name, r.stats.leaves, r.stats.splits(), r.stats.page_writes,
                        percent(r.stats.leaf_fill));
    for (std::size_t p = 0; p < r.leaves.size(); ++p) {
      const LeafView& leaf = r.leaves[p];
      std::string cells;
      for (std::size_t i = 0; i < o.leaf_keys; ++i)
        cells += i < leaf.created.size() ? fmt::format(" {:>2}", leaf.created[i]) : " __";
      text += fmt::format("  p{} [{} ]  {} of {} slots used\n", p + 1, cells, leaf.keys.size(),
                          o.leaf_keys);
      json lj = {{"position", p + 1},
                 {"page", leaf.page},
                 {"created", leaf.created},
                 {"keys", json::array()}};
      for (const Key128& k : leaf.keys)
        lj["keys"].push_back(r.kind == KeyKind::snowflake ? std::to_string(k.hi) : to_uuid_text(k));
      j["leaf_pages"].push_back(lj);
    }
    out["results"].push_back(j);
  }
  text +=
      "\nEach key is shown by its creation number (1 = first made). Page writes: 1 per insert,\n"
      "3 for an insert that splits a page. Same seed, same keys, same tree (--seed N).\n";
  if (!a.svg.empty()) {
    SvgChart chart(fmt::format("Demo 5: {} keys, {} keys a leaf", o.keys, o.leaf_keys));
    BarPanel splits{"Page splits and page writes", "count", {}, {}, {}};
    BarPanel fill{"Leaf fill", "fill (%)", {}, {}, {}};
    for (const DemoRun& r : runs) {
      splits.categories.push_back(std::string(info(r.kind).name) + " splits");
      splits.values.push_back(static_cast<double>(r.stats.splits()));
      splits.categories.push_back(std::string(info(r.kind).name) + " writes");
      splits.values.push_back(static_cast<double>(r.stats.page_writes));
      fill.categories.emplace_back(info(r.kind).name);
      fill.values.push_back(r.stats.leaf_fill * 100);
      fill.labels.push_back(percent(r.stats.leaf_fill));
    }
    write_file(a.svg, chart.add(splits).add(fill).render());
  }
  print_out("{}", a.json ? json_text(out, 2) + "\n" : text);
}

void run_scale_cmd(const BtreeArgs& a) {
  SimOptions o;
  o.n = parse_count(a.n.value_or("1000000"), "--n", 1'000'000'000);
  o.page_bytes = a.page_bytes;
  o.leaf_keys = a.leaf_keys;
  o.fanout = a.fanout;
  o.entry_overhead = a.entry_overhead;
  o.rightmost_fill = a.rightmost_fill;
  o.pool_pages = a.pool_pages;
  o.keys.seed = a.seed.value_or(1);
  o.keys.keys_per_ms = a.keys_per_ms;
  const auto kinds = parse_key_kinds(a.kinds.value_or("snowflake,uuid7,ulid,uuid4"));
  SimReport report;
  report.options = o;
  for (KeyKind k : kinds) report.results.push_back(run_simulation(k, o));
  const std::vector<SimResult>& results = report.results;

  std::vector<std::vector<std::string>> rows;
  for (const SimResult& r : results) {
    rows.push_back({std::string(info(r.kind).name), std::to_string(info(r.kind).key_bytes),
                    std::to_string(r.config.leaf_capacity), std::to_string(r.stats.leaves),
                    std::to_string(r.stats.splits()), std::to_string(r.stats.page_writes),
                    percent(r.stats.leaf_fill), percent(r.leaf_fill_mean),
                    human_bytes(static_cast<double>(r.stats.index_bytes)),
                    std::to_string(r.stats.pool_misses),
                    fmt::format("{:.3f}", r.tenth_miss_rate.back()),
                    fmt::format("{:.1f}M", r.inserts_per_s / 1e6)});
  }
  if (!a.svg.empty()) {
    SvgChart chart(
        fmt::format("B+ tree simulator: {} keys a kind, {}-byte pages", o.n, o.page_bytes));
    LinePanel speed{"Simulator speed per tenth of the keys", "keys inserted", "keys/s", {}};
    LinePanel misses{
        "Buffer-pool misses per insert (" + std::to_string(o.pool_pages) + "-page LRU pool)",
        "keys inserted",
        "misses per insert",
        {}};
    BarPanel size{"Index size", "bytes", {}, {}, {}};
    BarPanel fill{
        "Leaf fill at the end (mean over the second half in the label)", "fill (%)", {}, {}, {}};
    for (const SimResult& r : results) {
      ChartSeries s{std::string(info(r.kind).name), {}, r.tenth_inserts_per_s};
      for (auto e : r.tenth_end) s.x.push_back(static_cast<double>(e));
      speed.series.push_back(s);
      s.y = r.tenth_miss_rate;
      misses.series.push_back(s);
      size.categories.emplace_back(info(r.kind).name);
      size.values.push_back(static_cast<double>(r.stats.index_bytes));
      size.labels.push_back(human_bytes(static_cast<double>(r.stats.index_bytes)));
      fill.categories.emplace_back(info(r.kind).name);
      fill.values.push_back(r.stats.leaf_fill * 100);
      fill.labels.push_back(percent(r.stats.leaf_fill) + " (" + percent(r.leaf_fill_mean) + ")");
    }
    if (o.pool_pages) chart.add(misses);
    chart.add(speed).add(size).add(fill);
    write_file(a.svg, chart.render());
  }
  if (a.json) {
    print_out("{}\n", sim_report_json(report));
    return;
  }
  print_out(
      "B+ tree simulator: {} keys a kind, {}-byte pages, rightmost split keeps {}, pool {}\n\n",
      o.n, o.page_bytes, percent(o.rightmost_fill),
      o.pool_pages ? std::to_string(o.pool_pages) + " pages (LRU)" : std::string("unlimited"));
  print_out("{}", format_table({"kind", "key B", "keys/leaf", "leaves", "splits", "page writes",
                                "leaf fill", "mean fill", "index size", "pool misses",
                                "miss/insert (last 10%)", "sim keys/s"},
                               rows));
  print_out(
      "\nKeys: snowflake from core's generator on a manual clock, the others from the lab's "
      "seeded\n"
      "key models (see docs/INDEX-LAB.md). Mean fill: averaged over the second half of the run;\n"
      "with random keys the fill swings in waves around ln 2 = 69.3% as leaves born together split "
      "together.\n");
}

}  // namespace

void add_lab_btree(CLI::App& lab) {
  auto a = std::make_shared<BtreeArgs>();
  CLI::App* cmd = lab.add_subcommand(
      "btree", "Simulate a B+ tree index: splits, page writes, leaf fill, pool misses");
  cmd->add_flag("--demo", a->demo, "Seed 003's Demo 5: 12 keys, 4 keys a leaf, every leaf shown");
  cmd->add_option("--kinds", a->kinds,
                  "Key kinds, comma-separated: snowflake,uuid7,ulid,uuid4,uuid4text or all");
  cmd->add_option("-n,--n", a->n, "Keys a kind, 1e7 notation accepted (default 1000000; demo: 12)");
  cmd->add_option("--page-bytes", a->page_bytes, "Page size in bytes")
      ->transform(whole_number(64, 1u << 20))
      ->capture_default_str();
  cmd->add_option("--leaf-keys", a->leaf_keys,
                  "Keys a leaf holds (overrides --page-bytes; demo: 4)")
      ->transform(whole_number(2, 1u << 24));
  cmd->add_option("--fanout", a->fanout,
                  "Children an interior page holds (default: from --page-bytes; demo: 16)")
      ->transform(whole_number(3, 1u << 24));
  cmd->add_option("--entry-overhead", a->entry_overhead, "Bytes each index entry adds to its key")
      ->transform(whole_number(0, 1u << 16));
  cmd->add_option("--rightmost-fill", a->rightmost_fill,
                  "Share a full rightmost page keeps when keys arrive at the right edge (1 = stays "
                  "full; PostgreSQL 0.9)")
      ->check(real_number(0.01, 1.0))
      ->capture_default_str();
  cmd->add_option("--pool-pages", a->pool_pages, "LRU buffer pool size in pages (0 = unlimited)")
      ->transform(whole_number(0, std::numeric_limits<std::uint64_t>::max()))
      ->capture_default_str();
  cmd->add_option("--seed", a->seed, "Seed of the key models (same seed, same keys)")
      ->transform(whole_number(0, std::numeric_limits<std::uint64_t>::max()));
  cmd->add_option("--keys-per-ms", a->keys_per_ms, "Keys made in each millisecond")
      ->transform(whole_number(1, 1u << 22))
      ->capture_default_str();
  cmd->add_flag("--json", a->json, "Print JSON instead of a table");
  cmd->add_option("--svg", a->svg, "Also write an SVG chart to this file");
  cmd->callback([a] {
    if (a->demo)
      run_demo_cmd(*a);
    else
      run_scale_cmd(*a);
  });
}

}  // namespace idforge::cli
