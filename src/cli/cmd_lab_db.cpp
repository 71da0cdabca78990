// `idforge lab db`: real inserts into SQLite, PostgreSQL or MariaDB, one table per key kind;
// with --memory-mb, the memory-limited run (lab_db_memory.cpp).
#include <fmt/core.h>

#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/lab/db_bench.hpp"
#include "idforge/lab/svg_chart.hpp"
#include "lab_db_memory.hpp"
#include "lab_output.hpp"
#include "option_checks.hpp"
#include "output.hpp"

namespace idforge::cli {
namespace {

using namespace idforge::lab;
using nlohmann::json;

struct DbArgs {
  std::string engine = "sqlite";
  std::string rows;   // default 100000, or 1e6 with --memory-mb
  std::string kinds;  // default all, or snowflake,uuid7,uuid4,uuid4text with --memory-mb
  std::optional<std::uint32_t> batch;  // default 1000, or 1 with --memory-mb
  std::string cache_mb;
  MemoryArgs memory;
  std::string sqlite_dir;
  std::uint64_t seed = 1;
  bool keep = false, json = false, quiet = false, model_keys = false;
  std::string svg;
};

void run_db(const DbArgs& a) {
  if (!a.memory.memory_mb.empty() || !a.memory.report.empty()) {
    MemoryArgs m = a.memory;
    m.engine = a.engine;
    m.rows = a.rows.empty() ? "1e6" : a.rows;
    m.kinds = a.kinds.empty() ? "snowflake,uuid7,uuid4,uuid4text" : a.kinds;
    m.batch = a.batch.value_or(1);
    m.cache_mb = a.cache_mb;
    m.json = a.json;
    m.quiet = a.quiet;
    m.svg = a.svg;
    run_db_memory(m);
    return;
  }
  DbRunOptions o;
  o.engine = parse_db_engine(a.engine);
  o.rows = parse_count(a.rows.empty() ? "100000" : a.rows, "--rows", 1'000'000'000);
  o.kinds = parse_key_kinds(a.kinds.empty() ? "all" : a.kinds);
  o.batch = a.batch.value_or(1000);
  if (!a.cache_mb.empty()) o.cache_bytes = parse_count(a.cache_mb, "--cache-mb", 1 << 20) << 20;
  if (!a.sqlite_dir.empty()) o.connection.sqlite_dir = a.sqlite_dir;
  o.keep_tables = a.keep;
  o.keys.seed = a.seed;
  // Core's real generators by default; the seeded models repeat a run exactly.
  if (!a.model_keys) o.make_source = [](KeyKind k) { return make_real_key_source(k); };
  // Real time order: many keys share a millisecond, as in a busy table.
  o.keys.keys_per_ms = 64;
  if (!a.quiet) o.progress = [](const std::string& line) { note(line); };
  const DbRunResult run = run_db_bench(o);

  json out = {{"engine", std::string(engine_name(run.engine))},
              {"keys", a.model_keys ? "lab key models, seed " + std::to_string(a.seed)
                                    : std::string("core generators")},
              {"server_version", run.server_version},
              {"cache", run.cache_note},
              {"page_bytes", run.page_bytes},
              {"rows", o.rows},
              {"batch", o.batch},
              {"results", json::array()}};
  std::vector<std::vector<std::string>> rows;
  const DbKindResult* fastest = nullptr;
  for (const auto& r : run.results)
    if (!fastest || r.inserts_per_s > fastest->inserts_per_s) fastest = &r;
  for (const auto& r : run.results) {
    json j = {{"kind", std::string(info(r.kind).name)},
              {"column_type", r.column_type},
              {"rows", r.rows},
              {"seconds", r.seconds},
              {"inserts_per_s", r.inserts_per_s},
              {"index_bytes", r.index_bytes},
              {"leaf_pages", r.leaf_pages},
              {"leaf_fill", r.leaf_fill},
              {"fill_method", r.fill_method},
              {"wal_bytes", r.wal_bytes ? json(*r.wal_bytes) : json(nullptr)},
              {"wal_full_page_images",
               r.wal_full_page_images ? json(*r.wal_full_page_images) : json(nullptr)},
              {"tenths", json::array()}};
    for (std::size_t t = 0; t < r.tenth_end.size(); ++t)
      j["tenths"].push_back(
          {{"rows", r.tenth_end[t]}, {"inserts_per_s", r.tenth_inserts_per_s[t]}});
    out["results"].push_back(j);
    rows.push_back(
        {std::string(info(r.kind).name), r.column_type, fmt::format("{:.0f}", r.inserts_per_s),
         fmt::format("{:.0f}", r.tenth_inserts_per_s.back()),
         fmt::format("{:.2f}", r.inserts_per_s / fastest->inserts_per_s),
         human_bytes(static_cast<double>(r.index_bytes)), std::to_string(r.leaf_pages),
         percent(r.leaf_fill), r.wal_bytes ? human_bytes(static_cast<double>(*r.wal_bytes)) : "-"});
  }
  if (!a.svg.empty()) {
    SvgChart chart(fmt::format("{}: {} rows a kind ({})", run.server_version, o.rows,
                               run.cache_note.substr(0, 60)));
    LinePanel rate{"Insert rate per tenth of the rows", "rows inserted", "inserts/s", {}};
    BarPanel size{"Primary-key index size", "bytes", {}, {}, {}};
    BarPanel fill{"Leaf fill", "fill (%)", {}, {}, {}};
    for (const auto& r : run.results) {
      ChartSeries s{std::string(info(r.kind).name), {}, r.tenth_inserts_per_s};
      for (auto e : r.tenth_end) s.x.push_back(static_cast<double>(e));
      rate.series.push_back(s);
      size.categories.emplace_back(info(r.kind).name);
      size.values.push_back(static_cast<double>(r.index_bytes));
      size.labels.push_back(human_bytes(static_cast<double>(r.index_bytes)));
      fill.categories.emplace_back(info(r.kind).name);
      fill.values.push_back(r.leaf_fill * 100);
      fill.labels.push_back(percent(r.leaf_fill));
    }
    write_file(a.svg, chart.add(rate).add(size).add(fill).render());
  }
  if (a.json) {
    print_out("{}\n", json_text(out, 2));
    return;
  }
  print_out("{}, {} rows a kind in batches of {}, {}-byte pages\ncache: {}\n\n", run.server_version,
            o.rows, o.batch, run.page_bytes, run.cache_note);
  print_out("{}", format_table({"kind", "column", "inserts/s", "last 10%/s", "vs fastest",
                                "index size", "leaf pages", "leaf fill", "WAL"},
                               rows));
  if (!run.results.empty()) print_out("\nleaf fill: {}\n", run.results.front().fill_method);
}

}  // namespace

void add_lab_db(CLI::App& lab) {
  auto a = std::make_shared<DbArgs>();
  CLI::App* cmd = lab.add_subcommand(
      "db", "Insert rows into a real database, one table per key kind; measure rate, size, fill");
  cmd->add_option("--engine", a->engine,
                  "sqlite, postgres (IDFORGE_PG_URL) or mariadb (IDFORGE_MARIADB_URL)")
      ->capture_default_str();
  cmd->add_option("--rows", a->rows,
                  "Rows a kind (1e6 notation accepted; default 100000, 1e6 with --memory-mb)");
  cmd->add_option("--kinds", a->kinds,
                  "Key kinds, comma-separated: snowflake,uuid7,ulid,uuid4,uuid4text or all "
                  "(default all; snowflake,uuid7,uuid4,uuid4text with --memory-mb)");
  cmd->add_option(
         "--batch", a->batch,
         "Rows a transaction (default 1000; 1 with --memory-mb: one INSERT and commit a row)")
      ->transform(whole_number(1, 100000));
  cmd->add_option("--cache-mb", a->cache_mb,
                  "Shrink the engine's cache to this many MiB (SQLite cache_size, InnoDB buffer "
                  "pool; PostgreSQL: reported, needs a restart). With --memory-mb: shared_buffers "
                  "/ buffer pool / cache_size of the run (default a quarter of the memory)");
  add_memory_options(*cmd, a->memory);
  cmd->add_option("--sqlite-dir", a->sqlite_dir,
                  "Folder for the SQLite file (default $IDFORGE_DATA/lab)");
  cmd->add_flag("--model-keys", a->model_keys,
                "Use the lab's seeded key models (repeatable) instead of core's generators");
  cmd->add_option("--seed", a->seed, "Seed of the key models (with --model-keys)")
      ->transform(whole_number(0, std::numeric_limits<std::uint64_t>::max()))
      ->capture_default_str();
  cmd->add_flag("--keep", a->keep, "Keep the tables afterwards");
  cmd->add_flag("--json", a->json, "Print JSON instead of a table");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress lines on stderr");
  cmd->add_option("--svg", a->svg, "Also write an SVG chart to this file");
  cmd->callback([a, cmd] {
    // An option only a memory-limited run reads, given without --memory-mb, would be dropped
    // in silence: the user meant a run that this is not.
    if (a->memory.memory_mb.empty() && a->memory.report.empty())
      for (const char* name :
           {"--windows", "--probe", "--writers", "--writer-kinds", "--writer-seconds",
            "--writer-prefill", "--port", "--data-dir", "--sync-commit"})
        if (cmd->count(name) > 0)
          throw CommandFailure{
              std::string(name) + " is read only by a memory-limited run: add --memory-mb M",
              kExitUsage};
    run_db(*a);
  });
}

}  // namespace idforge::cli
