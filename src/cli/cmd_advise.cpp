// `idforge advise`: which ID scheme for a situation (seed 000's decision matrix), with the
// measured numbers behind the answer; --json for tools.
#include <fmt/core.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/error.hpp"
#include "idforge/lab/advice.hpp"
#include "lab_output.hpp"
#include "option_checks.hpp"
#include "output.hpp"

namespace idforge::cli {
namespace {

using namespace idforge::lab;
using nlohmann::ordered_json;

struct AdviseArgs {
  Situation s;
  std::string rows = "1e6";
  std::optional<std::string> measured;
  bool json = false;
};

MeasuredFigures load_measured(const std::string& path) {
  const std::string text = read_file(path, "--measured");
  MemoryLabResult run;
  try {
    run = memory_lab_from_json(text);
  } catch (const Error& e) {
    throw CommandFailure{"--measured '" + path + "': " + e.what()};
  }
  return figures_from(run, run.server_version + ", " + run.settings + " (" + path + ")");
}

ordered_json to_json(const Advice& a, const Situation& s) {
  ordered_json j;
  j["scheme"] = a.scheme;
  j["key"] = a.key;
  j["command"] = a.command;
  j["settings"] = a.settings;
  j["reasons"] = a.reasons;
  j["warnings"] = a.warnings;
  j["situation"] = {{"databases", s.databases},
                    {"writes_per_second", s.writes_per_second},
                    {"rows", s.rows},
                    {"memory_gb", s.memory_gb},
                    {"copies", s.copies},
                    {"serverless", s.serverless},
                    {"secret", s.secret},
                    {"must_fit_64_bits", s.must_fit_64_bits},
                    {"js_clients", s.js_clients}};
  j["costs"] = ordered_json::array();
  for (const auto& c : a.costs)
    j["costs"].push_back({{"kind", std::string(info(c.kind).name)},
                          {"index_bytes", c.index_bytes},
                          {"server_gb", c.server_gb},
                          {"usd_per_month", c.usd_per_month},
                          {"fits_memory", c.fits_memory}});
  const MeasuredFigures& m = a.measured;
  j["measured"] = {{"source", m.source},
                   {"fill_ordered", m.fill_ordered},
                   {"fill_random", m.fill_random},
                   {"p50_ordered_ms", m.p50_ordered_ms},
                   {"p50_random_before_ms", m.p50_random_before_ms},
                   {"p50_random_after_ms", m.p50_random_after_ms},
                   {"slowdown_vs_ordered", m.slowdown_vs_ordered},
                   {"throughput_vs_ordered", m.throughput_vs_ordered},
                   {"wal_vs_ordered", m.wal_vs_ordered},
                   {"index_vs_ordered", m.index_vs_ordered},
                   {"text_index_vs_binary", m.text_index_vs_binary},
                   {"random_past_memory", m.random_past_memory}};
  return j;
}

void print_text(const Advice& a, const Situation& s) {
  print_out("Use: {}\n  make it with: {}\n", a.scheme, a.command);
  auto list = [](const char* title, const std::vector<std::string>& items) {
    if (items.empty()) return;
    print_out("{}\n", title);
    for (const auto& i : items) print_out("  - {}\n", i);
  };
  list("Settings:", a.settings);
  list("Why:", a.reasons);
  list("Watch out:", a.warnings);
  if (a.key != "token") {
    print_out(
        "\nIndex of the key for {:.3g} rows stored {} times, with the measured fills ({} ordered, "
        "{} random):\n",
        s.rows, s.copies, percent(a.measured.fill_ordered), percent(a.measured.fill_random));
    std::vector<std::vector<std::string>> rows;
    for (const auto& c : a.costs)
      rows.push_back(
          {std::string(info(c.kind).description), fmt::format("{:.3g} GB", c.index_bytes / 1e9),
           c.server_gb > 0 ? fmt::format("{:.0f} GB", c.server_gb) : std::string("beyond 16 TB"),
           fmt::format("${:.0f}", c.usd_per_month),
           s.memory_gb > 0 ? (c.fits_memory ? "yes" : "no") : "-"});
    print_out("{}",
              format_table({"ID format", "index", "RAM tier", "monthly", "fits memory"}, rows));
  }
  print_out("\nMeasured: {}\n", a.measured.source);
}

void run_advise(AdviseArgs a) {
  a.s.rows = static_cast<double>(parse_count(a.rows, "--rows", 1'000'000'000'000'000ULL));
  const MeasuredFigures m = a.measured ? load_measured(*a.measured) : recorded_figures();
  const Advice advice = advise(a.s, m);
  if (a.json) {
    print_out("{}\n", json_text(to_json(advice, a.s), 2));
    return;
  }
  print_text(advice, a.s);
}

}  // namespace

void add_advise_command(CLI::App& app) {
  auto a = std::make_shared<AdviseArgs>();
  CLI::App* cmd = app.add_subcommand(
      "advise", "Which ID scheme for your situation, and the measured numbers behind it");
  cmd->add_option("--databases", a->s.databases, "Database servers that take writes")
      ->transform(whole_number(1, 1'000'000))
      ->capture_default_str();
  cmd->add_option("--writes-per-second", a->s.writes_per_second,
                  "Peak inserts a second, all servers together")
      ->check(real_number(0, 1e12))
      ->capture_default_str();
  cmd->add_option("--rows", a->rows,
                  "Rows the biggest table will hold (1e9 and 1_000_000 accepted)")
      ->capture_default_str();
  cmd->add_option("--memory-gb", a->s.memory_gb, "RAM of one database server in GB (0: not said)")
      ->check(real_number(0, 1e9));
  cmd->add_option(
         "--copies", a->s.copies,
         "Times a row stores its key (primary key + secondary indexes that repeat it, as InnoDB)")
      ->transform(whole_number(1, 1000))
      ->capture_default_str();
  cmd->add_flag("--serverless", a->s.serverless,
                "IDs are made in short-lived processes (Lambda, Workers, Cloud Run)");
  cmd->add_flag("--secret", a->s.secret,
                "The value must be unguessable (reset link, API key, invite URL)");
  cmd->add_flag("--must-fit-64-bits", a->s.must_fit_64_bits,
                "The column or an API takes a 64-bit integer");
  cmd->add_flag("--js-clients", a->s.js_clients, "JavaScript reads the IDs from JSON");
  cmd->add_option("--measured", a->measured,
                  "Take the measured figures from this 'idforge lab db --memory-mb M --json' file "
                  "instead of the recorded run");
  cmd->add_flag("--json", a->json, "Print JSON instead of text");
  cmd->callback([a] { run_advise(*a); });
}

}  // namespace idforge::cli
