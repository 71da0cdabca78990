// `idforge lab cost`: seed 000's index-size and monthly-cost tables, with the leaf fill taken
// from the simulator, from a measured `idforge lab db --json` run, or from the seed itself.
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/error.hpp"
#include "idforge/lab/cost_model.hpp"
#include "idforge/lab/sim_run.hpp"
#include "idforge/lab/svg_chart.hpp"
#include "lab_output.hpp"
#include "option_checks.hpp"
#include "output.hpp"

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
                  fmt::format("simulator (mean fill over the second half of {} keys), 16 KiB "
                              "pages, right-edge splits keep {}",
                              o.n, percent(a.rightmost_fill))});
  }
  return in;
}

std::vector<CostInput> fills_from_seed(const std::vector<KeyKind>& kinds) {
  std::vector<CostInput> in;
  for (KeyKind k : kinds)
    in.push_back({k, info(k).time_ordered ? 0.95 : 0.70, "seed's assumption"});
  return in;
}

// "a number", "an array", ... for a message about a JSON value of the wrong type.
std::string a_type(const json& v) {
  const std::string t = v.type_name();
  return t == "null" ? t : (t == "array" || t == "object" ? "an " : "a ") + t;
}

// The file must be what `idforge lab db --json` or `lab btree --json` writes; every field
// read is checked for its type first, so a file of another shape is named with the field
// and the rule instead of ending in a JSON type error.
std::vector<CostInput> fills_from_file(const std::vector<KeyKind>& kinds, const std::string& path) {
  const std::string where = "--fill-from '" + path + "'";
  const auto fail = [&](const std::string& why) -> CommandFailure {
    return CommandFailure{
        where + ": " + why +
        " (expected the output of 'idforge lab db --json' or 'lab btree --json')"};
  };
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw CommandFailure{
        where + ": no such file (use sim, seed, or a JSON file from 'idforge lab db --json')"};
  const std::string text = read_file(path, "--fill-from");
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw fail(std::string("not JSON: ") + e.what());
  }
  if (!j.is_object()) throw fail("the top level is " + a_type(j) + ", not an object");
  if (!j.contains("results") || !j["results"].is_array()) throw fail("no \"results\" array");
  std::string what = "simulated";
  if (j.contains("engine")) {
    if (!j["engine"].is_string())
      throw fail("\"engine\" is " + a_type(j["engine"]) + ", not a string");
    what = "measured on " + j["engine"].get<std::string>();
  }
  const json& results = j["results"];
  for (std::size_t i = 0; i < results.size(); ++i) {
    const json& r = results[i];
    const std::string at = "results[" + std::to_string(i) + "]";
    if (!r.is_object()) throw fail(at + " is " + a_type(r) + ", not an object");
    if (r.contains("kind") && !r["kind"].is_string())
      throw fail(at + ".kind is " + a_type(r["kind"]) + ", not a string");
    for (const char* count : {"rows", "inserts"})
      if (r.contains(count) && !r[count].is_number_unsigned())
        throw fail(at + "." + count + " is " + r[count].dump() + ", not a whole number >= 0");
    if (r.contains("leaf_fill")) {
      const json& f = r["leaf_fill"];
      if (!f.is_number() || !(f.get<double>() > 0 && f.get<double>() <= 1))
        throw fail(at + ".leaf_fill is " + f.dump() + ", not a fraction above 0 and at most 1");
    }
  }
  std::vector<CostInput> in;
  if (!j.contains("engine")) {
    // The simulator's report (`lab btree --json`), read back by the lab that wrote it.
    SimReport report;
    try {
      report = sim_report_from_json(text);
    } catch (const Error& e) {
      throw fail(e.what());
    }
    for (KeyKind k : kinds) {
      const auto r = std::find_if(report.results.begin(), report.results.end(),
                                  [&](const SimResult& x) { return x.kind == k; });
      // A fill of 0 is one the file left out (a present one was checked to be above 0).
      if (r == report.results.end() || r->stats.leaf_fill <= 0)
        throw fail("no leaf_fill for kind '" + std::string(info(k).name) + "'");
      in.push_back(
          {k, r->stats.leaf_fill, fmt::format("{}, {} rows ({})", what, r->stats.inserts, path)});
    }
    return in;
  }
  for (KeyKind k : kinds) {
    const std::string name(info(k).name);
    const auto r = std::find_if(results.begin(), results.end(), [&](const json& x) {
      return x.contains("kind") && x["kind"] == name && x.contains("leaf_fill");
    });
    if (r == results.end()) throw fail("no leaf_fill for kind '" + name + "'");
    const auto rows = r->value("rows", r->value("inserts", std::uint64_t{0}));
    in.push_back(
        {k, (*r)["leaf_fill"].get<double>(), fmt::format("{}, {} rows ({})", what, rows, path)});
  }
  return in;
}

std::string gb(double bytes) {
  return fmt::format("{:.0f} GB", bytes / 1e9);
}

void run_cost(const CostArgs& a) {
  CostOptions o;
  o.rows = static_cast<double>(parse_count(a.rows, "--rows", 1'000'000'000'000'000ULL));
  o.copies = a.copies;
  o.usd_per_gb_month = a.usd_per_64gb / 64.0;
  const auto kinds = parse_key_kinds(a.kinds);
  std::vector<CostInput> inputs;
  if (a.fill_from == "sim")
    inputs = fills_from_sim(kinds, a);
  else if (a.fill_from == "seed")
    inputs = fills_from_seed(kinds);
  else
    inputs = fills_from_file(kinds, a.fill_from);
  const auto table = cost_table(inputs, o);

  json out = {{"rows", o.rows},
              {"copies", o.copies},
              {"usd_per_gb_month", o.usd_per_gb_month},
              {"fill_from", a.fill_from},
              {"results", json::array()}};
  std::vector<std::vector<std::string>> size_rows, cost_rows;
  for (const CostRow& r : table) {
    const auto& ki = info(r.input.kind);
    out["results"].push_back({{"kind", std::string(ki.name)},
                              {"key_bytes", ki.key_bytes},
                              {"leaf_fill", r.input.fill},
                              {"fill_source", r.input.fill_source},
                              {"raw_bytes", r.raw_bytes},
                              {"index_bytes", r.index_bytes},
                              {"server_gb", r.server_gb},
                              {"tight", r.tight},
                              {"usd_per_month", r.usd_per_month}});
    const std::string server =
        r.server_gb > 0 ? fmt::format("{:.0f} GB server{}", r.server_gb, r.tight ? " (tight)" : "")
                        : std::string("beyond the largest tier");
    size_rows.push_back({std::string(ki.description), gb(r.raw_bytes), percent(r.input.fill),
                         gb(r.index_bytes), server});
    cost_rows.push_back({std::string(ki.description), fmt::format("{:.0f} GB RAM", r.server_gb),
                         fmt::format("${:.0f}", r.usd_per_month)});
  }
  if (!a.svg.empty()) {
    SvgChart chart(
        fmt::format("Index size for {:.3g} rows, {} copies of the ID", o.rows, o.copies));
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
    print_out("{}\n", json_text(out, 2));
    return;
  }
  print_out(
      "{:.3g} rows, the ID stored {} times (primary key + {} secondary indexes), GB = 1e9 "
      "bytes\n\n",
      o.rows, o.copies, o.copies - 1);
  print_out("{}\n", format_table({"ID format", "raw ID storage", "page fill", "real index size",
                                  "fits in RAM of"},
                                 size_rows));
  print_out("{}\n",
            format_table({"ID format", "server needed", "approx. monthly cost"}, cost_rows));
  print_out("Fill from: {}\n", inputs.empty() ? std::string("-") : inputs.front().fill_source);
  print_out(
      "Price: ${:.0f} a month per 64 GB of RAM (rough on-demand memory-optimised prices; "
      "--usd-per-64gb).\n",
      a.usd_per_64gb);
}

}  // namespace

void add_lab_cost(CLI::App& lab) {
  auto a = std::make_shared<CostArgs>();
  CLI::App* cmd =
      lab.add_subcommand("cost", "Index size and RAM cost of an ID format (seed 000's tables)");
  cmd->add_option("--rows", a->rows, "Rows in the table (1e9 notation accepted)")
      ->capture_default_str();
  cmd->add_option("--copies", a->copies,
                  "Times each row stores the ID (primary key + secondary indexes)")
      ->transform(whole_number(1, 1000))
      ->capture_default_str();
  cmd->add_option("--fill-from", a->fill_from,
                  "Leaf fill from: sim (run the simulator), seed (95%/70% as the seed assumes), or "
                  "a JSON file from 'idforge lab db --json'")
      ->capture_default_str();
  cmd->add_option("--kinds", a->kinds, "Key kinds, comma-separated")->capture_default_str();
  cmd->add_option("--sim-keys", a->sim_keys,
                  "Keys the simulator inserts per kind for --fill-from sim")
      ->capture_default_str();
  cmd->add_option("--rightmost-fill", a->rightmost_fill,
                  "Simulator: share a full rightmost page keeps (InnoDB leaves 1/16 free)")
      ->check(real_number(0.01, 1.0))
      ->capture_default_str();
  cmd->add_option("--usd-per-64gb", a->usd_per_64gb, "Monthly price of 64 GB of server RAM")
      ->check(real_number(0.01, 1e12))
      ->capture_default_str();
  cmd->add_flag("--json", a->json, "Print JSON instead of tables");
  cmd->add_option("--svg", a->svg, "Also write an SVG chart to this file");
  cmd->callback([a] { run_cost(*a); });
}

}  // namespace idforge::cli
