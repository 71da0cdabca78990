#include "lab_db_memory.hpp"

#include <fmt/core.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <sstream>

#include "cli_support.hpp"
#include "idforge/lab/memory_cgroup.hpp"
#include "idforge/lab/memory_lab.hpp"
#include "idforge/lab/svg_chart.hpp"
#include "lab_output.hpp"
#include "output.hpp"
#include "stop_signals.hpp"

namespace idforge::cli {
namespace {

using namespace idforge::lab;

// What a stop leaves behind, by engine: SQLite runs in a worker process, not a server.
std::string stopped_what(DbEngine engine) {
  return engine == DbEngine::sqlite ? "the SQLite worker was stopped and its cgroup removed"
                                    : "the lab server was stopped and its cgroup removed";
}

std::vector<unsigned> parse_writers(const std::string& text) {
  std::vector<unsigned> out;
  if (text == "none") return out;
  if (text.empty())
    throw CommandFailure{"--writers '': a comma-separated list of writer counts, or none"};
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const auto n = static_cast<unsigned>(parse_count(item, "--writers", 256));
    if (std::find(out.begin(), out.end(), n) != out.end())
      throw CommandFailure{"--writers '" + text + "': " + std::to_string(n) +
                           " twice (each count is one point of the curve)"};
    out.push_back(n);
  }
  return out;
}

std::string ms(double v) {
  return v >= 10 ? fmt::format("{:.1f}", v) : fmt::format("{:.3f}", v);
}
std::string ratio(double a, double b) {
  return b > 0 ? fmt::format("{:.1f}x", a / b) : std::string("-");
}

// A rate beside its peer's in words that stay true either way round: "31.0x slower" when
// it is lower, "1.7x faster" when it is higher (a small run may see either).
std::string rate_words(double rate, double peer) {
  if (!(rate > 0) || !(peer > 0)) return "-";
  return rate <= peer ? fmt::format("{:.1f}x slower", peer / rate)
                      : fmt::format("{:.1f}x faster", rate / peer);
}

std::string rows_text(const std::optional<std::uint64_t>& rows) {
  return rows ? fmt::format("{} rows", *rows) : std::string("never");
}

void print_text(const MemoryLabResult& r) {
  const bool pg = r.engine == DbEngine::postgres;
  print_out(
      "{}: {} rows a kind in {} windows, {}\n{}\n", r.server_version, r.rows, r.windows,
      r.batch == 1
          ? std::string("one INSERT and commit a row")
          : fmt::format("batches of {} rows, the first {} rows of each window one a transaction",
                        r.batch, r.probe),
      r.settings);
  if (r.interrupted)
    print_out("Stopped by a signal: only the kinds and writer counts that finished are below.\n");
  print_out(
      "An index leaves memory above {} ({}); the cgroup held at most {}.\n",
      human_bytes(static_cast<double>(r.cache_limit)),
      r.engine == DbEngine::mariadb
          ? std::string("the buffer pool: O_DIRECT keeps InnoDB's pages out of the page cache")
          : fmt::format("the {} limit less the {} the engine's processes hold: what its cache and "
                        "the page cache "
                        "inside the cgroup share",
                        human_bytes(static_cast<double>(r.memory_bytes)),
                        human_bytes(static_cast<double>(r.process_bytes))),
      human_bytes(static_cast<double>(r.cgroup_peak)));
  for (const auto& k : r.results) {
    print_out(
        "\n{} ({}): the knee (an insert in ten reads from storage) at {}, the index leaves memory "
        "at {}\n",
        info(k.kind).name, k.column_type, rows_text(k.knee_rows), rows_text(k.crossing_rows));
    std::vector<std::vector<std::string>> rows;
    bool marked = false;
    for (const auto& w : k.windows) {
      std::vector<std::string> row{std::to_string(w.rows_end),
                                   human_bytes(static_cast<double>(w.index_bytes)),
                                   percent(w.fill_estimate),
                                   ms(w.p50_ms),
                                   ms(w.p99_ms),
                                   ms(w.mean_ms),
                                   fmt::format("{:.0f}", w.inserts_per_s),
                                   fmt::format("{:.3f}", w.misses_per_insert),
                                   fmt::format("{:.2f}", w.disk_kib_per_insert),
                                   fmt::format("{:.0f}", w.wal_bytes_per_insert)};
      if (pg) row.push_back(fmt::format("{:.3f}", w.fpi_per_insert));
      row.push_back(human_bytes(static_cast<double>(w.cgroup_bytes)));
      const bool knee = k.knee_rows && w.rows_end == *k.knee_rows;
      const bool here = !marked && k.crossing_rows && w.rows_end >= *k.crossing_rows;
      row.push_back(std::string(knee ? "<- knee " : "") + (here ? "<- leaves memory" : ""));
      marked = marked || here;
      rows.push_back(std::move(row));
    }
    std::vector<std::string> head{
        "rows",    "index",     "fill~",         "p50 ms",          "p99 ms",
        "mean ms", "inserts/s", "misses/insert", "disk KiB/insert", "WAL B/insert"};
    if (pg) head.push_back("FPI/insert");
    head.push_back("cgroup");
    head.push_back("");
    print_out("{}", format_table(head, rows));
  }
  print_out(
      "\nSummary (medians of the windows). before: the windows ahead of the knee; after: the last "
      "quarter of the windows. WAL: over the whole growth.\n");
  std::vector<std::vector<std::string>> sum;
  for (const auto& k : r.results)
    sum.push_back(
        {std::string(info(k.kind).name), k.column_type, rows_text(k.knee_rows),
         rows_text(k.crossing_rows), ms(k.p50_before_ms), ms(k.p50_after_ms),
         ratio(k.p50_after_ms, k.p50_before_ms), ms(k.mean_before_ms), ms(k.mean_after_ms),
         ms(k.p99_after_ms), fmt::format("{:.0f}", k.inserts_per_s_before),
         fmt::format("{:.0f}", k.inserts_per_s_after), fmt::format("{:.3f}", k.misses_after),
         fmt::format("{:.2f}", k.disk_kib_after), fmt::format("{:.0f}", k.wal_bytes_per_insert),
         pg ? fmt::format("{:.3f}", k.fpi_per_insert) : std::string("-"), percent(k.leaf_fill),
         human_bytes(static_cast<double>(k.index_bytes))});
  print_out("{}",
            format_table({"kind", "column", "knee at", "leaves memory at", "p50 before",
                          "p50 after", "after/before", "mean before", "mean after", "p99 after",
                          "inserts/s before", "inserts/s after", "misses/insert", "disk KiB/insert",
                          "WAL B/insert", "FPI/insert", "leaf fill", "index"},
                         sum));
  for (KeyKind random : {KeyKind::uuid4, KeyKind::uuid4_text}) {
    const MemoryKindResult* x = r.of(random);
    if (!x) continue;
    for (KeyKind ordered : {KeyKind::uuid7, KeyKind::snowflake, KeyKind::ulid}) {
      const MemoryKindResult* y = r.of(ordered);
      if (!y) continue;
      print_out(
          "{} against {} after: p50 {}, mean {}, p99 {}, inserts/s {}; WAL/insert {}, index "
          "{}{}\n",
          info(random).name, info(ordered).name, ratio(x->p50_after_ms, y->p50_after_ms),
          ratio(x->mean_after_ms, y->mean_after_ms), ratio(x->p99_after_ms, y->p99_after_ms),
          rate_words(x->inserts_per_s_after, y->inserts_per_s_after),
          ratio(x->wal_bytes_per_insert, y->wal_bytes_per_insert),
          ratio(static_cast<double>(x->index_bytes), static_cast<double>(y->index_bytes)),
          x->after_is_past_knee ? "" : " (not every window of the last quarter is past the knee)");
    }
  }
  if (!r.writers.empty()) {
    print_out("\nWriters (keys in memory, one row a transaction each): inserts/s\n");
    // A stopped run's last kind may have fewer points than the others: its row is padded.
    const auto longest = std::max_element(r.writers.begin(), r.writers.end(),
                                          [](const WritersResult& x, const WritersResult& y) {
                                            return x.points.size() < y.points.size();
                                          });
    std::vector<std::string> head{"kind"};
    for (const auto& p : longest->points) head.push_back(std::to_string(p.writers));
    head.push_back("most/1");
    std::vector<std::vector<std::string>> rows;
    for (const auto& w : r.writers) {
      std::vector<std::string> row{std::string(info(w.kind).name)};
      double best = 0;
      for (const auto& p : w.points) {
        row.push_back(fmt::format("{:.0f}", p.inserts_per_s));
        best = std::max(best, p.inserts_per_s);
      }
      row.resize(head.size() - 1, "-");
      row.push_back(w.points.empty() ? "-" : ratio(best, w.points.front().inserts_per_s));
      rows.push_back(std::move(row));
    }
    print_out("{}", format_table(head, rows));
  }
}

void write_svg(const MemoryLabResult& r, const std::string& path) {
  SvgChart chart(fmt::format(
      "{}: {} MiB memory cgroup, {}{}", r.server_version, r.memory_bytes >> 20,
      r.batch == 1 ? "one row a transaction" : "batched, single-row probes",
      r.interrupted ? "; stopped by a signal: only the kinds and writer counts that finished"
                    : ""));
  struct Metric {
    const char* title;
    const char* unit;
    bool log;
    double (*get)(const MemoryWindow&);
    bool knee, crossing;
  };
  const Metric metrics[] = {
      {"Single-row insert p50 latency (log scale); dashed: the knee", "p50 ms", true,
       [](const MemoryWindow& w) { return w.p50_ms; }, true, false},
      {"Single-row insert mean latency (log scale)", "mean ms", true,
       [](const MemoryWindow& w) { return w.mean_ms; }, true, false},
      {"Single-row insert p99 latency (log scale)", "p99 ms", true,
       [](const MemoryWindow& w) { return w.p99_ms; }, true, false},
      {"Inserts/s per window", "inserts/s", false,
       [](const MemoryWindow& w) { return w.inserts_per_s; }, true, false},
      {"KiB read from storage per insert (the engine's processes)", "KiB/insert", false,
       [](const MemoryWindow& w) { return w.disk_kib_per_insert; }, true, false},
      {"Pages read into the engine's own cache per insert", "misses/insert", false,
       [](const MemoryWindow& w) { return w.misses_per_insert; }, true, false},
      {"WAL / redo bytes per insert", "bytes/insert", false,
       [](const MemoryWindow& w) { return w.wal_bytes_per_insert; }, false, false},
      {"Index size; dashed: the index outgrows the memory it can be cached in", "MiB", false,
       [](const MemoryWindow& w) { return static_cast<double>(w.index_bytes) / 1048576.0; }, false,
       true},
  };
  for (const Metric& m : metrics) {
    LinePanel panel{m.title, "rows in the table", m.unit, {}};
    panel.log_y = m.log;
    for (std::size_t i = 0; i < r.results.size(); ++i) {
      const auto& k = r.results[i];
      const std::string name(info(k.kind).name);
      ChartSeries series{name, {}, {}};
      for (const auto& w : k.windows) {
        series.x.push_back(static_cast<double>(w.rows_end));
        series.y.push_back(m.get(w));
      }
      panel.series.push_back(std::move(series));
      if (m.knee && k.knee_rows)
        panel.markers.push_back({static_cast<double>(*k.knee_rows), name + " knee", i});
      if (m.crossing && k.crossing_rows)
        panel.markers.push_back(
            {static_cast<double>(*k.crossing_rows), name + " index > memory", i});
    }
    chart.add(panel);
  }
  if (!r.writers.empty()) {
    LinePanel w{
        "Inserts/s against concurrent writers, keys in memory (log x)", "writers", "inserts/s", {}};
    w.log_x = true;
    for (const auto& wr : r.writers) {
      ChartSeries s{std::string(info(wr.kind).name), {}, {}};
      for (const auto& p : wr.points) {
        s.x.push_back(p.writers);
        s.y.push_back(p.inserts_per_s);
      }
      w.series.push_back(s);
    }
    chart.add(w);
  }
  write_file(path, chart.render());
}

}  // namespace

void add_memory_options(CLI::App& cmd, MemoryArgs& a) {
  cmd.add_option("--memory-mb", a.memory_mb,
                 "Run with a real memory limit of this many MiB: a lab server (or SQLite worker) "
                 "of its own in a memory "
                 "cgroup; stops with one line if no cgroup can be made");
  cmd.add_option("--report", a.report,
                 "Print the tables (and --svg chart) of a recorded memory-limited run from its "
                 "--json file; runs nothing");
  cmd.add_option("--windows", a.windows, "With --memory-mb: windows the rows are measured in")
      ->check(CLI::Range(2u, 1000u))
      ->capture_default_str();
  cmd.add_option("--probe", a.probe,
                 "With --memory-mb and --batch > 1: rows at the start of each window inserted one "
                 "a transaction")
      ->check(CLI::Range(1u, 1000000u))
      ->capture_default_str();
  cmd.add_option("--writers", a.writers,
                 "With --memory-mb: concurrent writer counts for the hot-right-edge curve, or none")
      ->capture_default_str();
  cmd.add_option("--writer-kinds", a.writer_kinds,
                 "With --memory-mb: key kinds of the writers curve")
      ->capture_default_str();
  cmd.add_option("--writer-seconds", a.writer_seconds,
                 "With --memory-mb: seconds each writers point runs")
      ->check(CLI::Range(0.1, 600.0))
      ->capture_default_str();
  cmd.add_option("--writer-prefill", a.writer_prefill,
                 "With --memory-mb: rows in the writers' table before they start")
      ->capture_default_str();
  cmd.add_option("--port", a.port,
                 "With --memory-mb: the lab server's port on 127.0.0.1 (default 14441/14447 + "
                 "IDFORGE_PORT_OFFSET)")
      ->check(CLI::Range(1, 65535));
  cmd.add_option(
      "--data-dir", a.data_dir,
      "With --memory-mb: folder for the lab server's files (default $IDFORGE_DATA or .data)");
  cmd.add_flag("--sync-commit", a.sync_commit,
               "With --memory-mb: every commit waits for the WAL/redo flush");
}

void run_db_memory(const MemoryArgs& a) {
  if (!a.report.empty()) {
    const std::string text = read_file(a.report, "--report");
    MemoryLabResult r;
    try {
      r = memory_lab_from_json(text);
    } catch (const Error& e) {
      throw CommandFailure{"--report '" + a.report + "': " + e.what()};
    }
    if (a.json)
      print_out("{}\n", memory_lab_json(r));
    else
      print_text(r);
    if (!a.svg.empty()) write_svg(r, a.svg);
    return;
  }
  MemoryLabOptions o;
  o.engine = parse_db_engine(a.engine);
  o.memory_bytes = parse_count(a.memory_mb, "--memory-mb", 1 << 20) << 20;
  if (!a.cache_mb.empty()) o.cache_bytes = parse_count(a.cache_mb, "--cache-mb", 1 << 20) << 20;
  o.rows = parse_count(a.rows, "--rows", 1'000'000'000);
  o.windows = a.windows;
  o.batch = a.batch;
  o.probe = a.probe;
  o.kinds = parse_key_kinds(a.kinds);
  o.writers = parse_writers(a.writers);
  o.writer_kinds = parse_key_kinds(a.writer_kinds);
  o.writer_seconds = a.writer_seconds;
  o.writer_prefill =
      a.writer_prefill == "0" ? 0 : parse_count(a.writer_prefill, "--writer-prefill", 100'000'000);
  o.port = a.port;
  o.parent_dir = a.data_dir;
  o.synchronous_commit = a.sync_commit;
  // A limit above the machine's memory never binds: the run would measure nothing it claims.
  const auto ram = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                   static_cast<std::uint64_t>(sysconf(_SC_PAGE_SIZE));
  if (ram > 0 && o.memory_bytes > ram)
    throw CommandFailure{"--memory-mb " + a.memory_mb + ": more than this machine's " +
                         std::to_string(ram >> 20) + " MiB of memory, so the limit would not bind"};
  // Checked before a run of minutes, not after it.
  if (!a.svg.empty()) check_writable(a.svg, "--svg");
  if (!a.quiet) o.progress = [](const std::string& line) { note(line); };
  // A signal asks the run to stop between rows, so that the lab server is stopped and its
  // cgroup removed on the way out instead of being left behind.
  StopSignals signals;
  o.should_stop = [] { return g_stop_signal != 0; };
  MemoryLabResult r;
  try {
    r = run_memory_lab(o);
  } catch (const CgroupUnavailable& e) {
    throw CommandFailure{e.what()};
  } catch (const Error& e) {
    if (g_stop_signal != 0)
      throw CommandFailure{
          "stopped by signal " + std::to_string(g_stop_signal) + ": " + stopped_what(o.engine),
          128 + g_stop_signal};
    throw;
  }
  // The results first: a chart that cannot be written must not take them with it.
  if (a.json)
    print_out("{}\n", memory_lab_json(r));
  else
    print_text(r);
  if (!a.svg.empty()) write_svg(r, a.svg);
  if (r.interrupted) {
    std::string done;
    for (const auto& k : r.results)
      done += (done.empty() ? "" : ", ") + std::string(info(k.kind).name);
    throw CommandFailure{
        "stopped by signal " + std::to_string(g_stop_signal) + " after the growth of " + done +
            (r.writers.empty() ? "" : " and part of the writers curve") +
            ": what finished is above, the rest was not measured; " + stopped_what(o.engine),
        128 + g_stop_signal};
  }
}

}  // namespace idforge::cli
