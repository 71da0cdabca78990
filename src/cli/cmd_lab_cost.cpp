// `idforge lab cost`: seed 000's index-size and monthly-cost tables, with the leaf fill taken
// from the simulator, from a measured `idforge lab db --json` run, or from the seed itself.
#include <fmt/core.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/lab/cost_model.hpp"
#include "idforge/lab/sim_run.hpp"
#include "idforge/lab/svg_chart.hpp"
#include "lab_output.hpp"

namespace idforge::cli {
namespace {

using namespace idforge::lab;
using nlohmann::json;

struct CostArgs {
  std::string rows = "1e9";
  unsigned copies = 5;
  std::string fill_from = "sim";
  std::string kinds = "snowflake,uuid7,uuid4,uuid4text";
  std::string sim_keys = "2000000";
  double rightmost_fill = 15.0 / 16.0;
  double usd_per_64gb = 650;
  bool json = false;
  std::string svg;
};

std::vector<CostInput> fills_from_sim(const std::vector<KeyKind>& kinds, const CostArgs& a) {
  SimOptions o;
  o.n = parse_count(a.sim_keys, "--sim-keys", 200'000'000);
  o.rightmost_fill = a.rightmost_fill;
  std::vector<CostInput> in;
  for (KeyKind k : kinds) {
    const SimResult r = run_simulation(k, o);
    // The mean over the run's second half: the steady state, not one point of a fill wave.
    in.push_back({k, r.leaf_fill_mean,
                  fmt::format("simulator (mean fill over the second half of {} keys), 16 KiB pages, right-edge splits keep {}", o.n,
                              percent(a.rightmost_fill))});
  }
  return in;
}

std::vector<CostInput> fills_from_seed(const std::vector<KeyKind>& kinds) {
  std::vector<CostInput> in;
  for (KeyKind k : kinds) in.push_back({k, info(k).time_ordered ? 0.95 : 0.70, "seed's assumption"});
  return in;
}

std::vector<CostInput> fills_from_file(const std::vector<KeyKind>& kinds, const std::string& path) {
  std::ifstream f(path);
  if (!f) throw CommandFailure{"--fill-from '" + path + "': no such file (use sim, seed, or a JSON file from 'idforge lab db --json')"};
  json j;
  try {
    j = json::parse(f);
  } catch (const json::exception& e) {
    throw CommandFailure{"--fill-from '" + path + "': not JSON: " + e.what()};
  }
  if (!j.contains("results") || !j["results"].is_array())
    throw CommandFailure{"--fill-from '" + path + "': no \"results\" array (expected the output of 'idforge lab db --json' or 'lab btree --json')"};
  const std::string what = j.contains("engine") ? "measured on " + j["engine"].get<std::string>() : "simulated";
  std::vector<CostInput> in;
  for (KeyKind k : kinds) {
    bool found = false;
    for (const auto& r : j["results"])
      if (r.value("kind", "") == info(k).name && r.contains("leaf_fill") && r["leaf_fill"].is_number()) {
        const auto rows = r.value("rows", r.value("inserts", std::uint64_t{0}));
        in.push_back({k, r["leaf_fill"].get<double>(), fmt::format("{}, {} rows ({})", what, rows, path)});
        found = true;
        break;
      }
    if (!found) throw CommandFailure{"--fill-from '" + path + "': no leaf_fill for kind '" + std::string(info(k).name) + "'"};
  }
  return in;
}

std::string gb(double bytes) { return fmt::format("{:.0f} GB", bytes / 1e9); }

void run_cost(const CostArgs& a) {
  CostOptions o;
  o.rows = static_cast<double>(parse_count(a.rows, "--rows", 1'000'000'000'000'000ULL));
  o.copies = a.copies;
  o.usd_per_gb_month = a.usd_per_64gb / 64.0;
  const auto kinds = parse_key_kinds(a.kinds);
  std::vector<CostInput> inputs;
  if (a.fill_from == "sim") inputs = fills_from_sim(kinds, a);
  else if (a.fill_from == "seed") inputs = fills_from_seed(kinds);
  else inputs = fills_from_file(kinds, a.fill_from);
  const auto table = cost_table(inputs, o);

  json out = {{"rows", o.rows}, {"copies", o.copies}, {"usd_per_gb_month", o.usd_per_gb_month},
              {"fill_from", a.fill_from}, {"results", json::array()}};
  std::vector<std::vector<std::string>> size_rows, cost_rows;
  for (const CostRow& r : table) {
    const auto& ki = info(r.input.kind);
    out["results"].push_back({{"kind", std::string(ki.name)}, {"key_bytes", ki.key_bytes},
                              {"leaf_fill", r.input.fill}, {"fill_source", r.input.fill_source},
                              {"raw_bytes", r.raw_bytes}, {"index_bytes", r.index_bytes},
                              {"server_gb", r.server_gb}, {"tight", r.tight},
                              {"usd_per_month", r.usd_per_month}});
    const std::string server = r.server_gb > 0 ? fmt::format("{:.0f} GB server{}", r.server_gb, r.tight ? " (tight)" : "")
                                               : std::string("beyond the largest tier");
    size_rows.push_back({std::string(ki.description), gb(r.raw_bytes), percent(r.input.fill), gb(r.index_bytes), server});
    cost_rows.push_back({std::string(ki.description), fmt::format("{:.0f} GB RAM", r.server_gb),
                         fmt::format("${:.0f}", r.usd_per_month)});
  }
  if (!a.svg.empty()) {
    SvgChart chart(fmt::format("Index size for {:.3g} rows, {} copies of the ID", o.rows, o.copies));
    BarPanel size{"Real index size (raw / fill)", "GB", {}, {}, {}};
    BarPanel fill{"Leaf fill used", "fill (%)", {}, {}, {}};
    for (const CostRow& r : table) {
      size.categories.emplace_back(info(r.input.kind).name);
      size.values.push_back(r.index_bytes / 1e9);
      size.labels.push_back(gb(r.index_bytes));
      fill.categories.emplace_back(info(r.input.kind).name);
      fill.values.push_back(r.input.fill * 100);
      fill.labels.push_back(percent(r.input.fill));
    }
    write_file(a.svg, chart.add(size).add(fill).render());
  }
  if (a.json) {
    fmt::print("{}\n", out.dump(2));
    return;
  }
  fmt::print("{:.3g} rows, the ID stored {} times (primary key + {} secondary indexes), GB = 1e9 bytes\n\n",
             o.rows, o.copies, o.copies - 1);
  fmt::print("{}\n", format_table({"ID format", "raw ID storage", "page fill", "real index size", "fits in RAM of"}, size_rows));
  fmt::print("{}\n", format_table({"ID format", "server needed", "approx. monthly cost"}, cost_rows));
  fmt::print("Fill from: {}\n", inputs.empty() ? std::string("-") : inputs.front().fill_source);
  fmt::print("Price: ${:.0f} a month per 64 GB of RAM (rough on-demand memory-optimised prices; --usd-per-64gb).\n",
             a.usd_per_64gb);
}

}  // namespace

void add_lab_cost(CLI::App& lab) {
  auto a = std::make_shared<CostArgs>();
  CLI::App* cmd = lab.add_subcommand("cost", "Index size and RAM cost of an ID format (seed 000's tables)");
  cmd->add_option("--rows", a->rows, "Rows in the table (1e9 notation accepted)")->capture_default_str();
  cmd->add_option("--copies", a->copies, "Times each row stores the ID (primary key + secondary indexes)")
      ->check(CLI::Range(1u, 1000u))->capture_default_str();
  cmd->add_option("--fill-from", a->fill_from, "Leaf fill from: sim (run the simulator), seed (95%/70% as the seed assumes), or a JSON file from 'idforge lab db --json'")
      ->capture_default_str();
  cmd->add_option("--kinds", a->kinds, "Key kinds, comma-separated")->capture_default_str();
  cmd->add_option("--sim-keys", a->sim_keys, "Keys the simulator inserts per kind for --fill-from sim")->capture_default_str();
  cmd->add_option("--rightmost-fill", a->rightmost_fill, "Simulator: share a full rightmost page keeps (InnoDB leaves 1/16 free)")
      ->check(CLI::Range(0.01, 1.0))->capture_default_str();
  cmd->add_option("--usd-per-64gb", a->usd_per_64gb, "Monthly price of 64 GB of server RAM")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_flag("--json", a->json, "Print JSON instead of tables");
  cmd->add_option("--svg", a->svg, "Also write an SVG chart to this file");
  cmd->callback([a] { run_cost(*a); });
}

}  // namespace idforge::cli
