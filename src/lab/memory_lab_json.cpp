// The memory lab's results as JSON and back: the CLI's --json, the SQLite worker's answer to
// its parent, and the files `lab cost --fill-from` and `advise --measured` read.
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "idforge/detail/printable.hpp"
#include "idforge/error.hpp"
#include "idforge/lab/memory_lab.hpp"

namespace idforge::lab {
namespace {

using nlohmann::json;

json window_json(const MemoryWindow& w) {
  return {{"rows_end", w.rows_end},
          {"rows", w.rows},
          {"seconds", w.seconds},
          {"inserts_per_s", w.inserts_per_s},
          {"single_rows", w.single_rows},
          {"p50_ms", w.p50_ms},
          {"p99_ms", w.p99_ms},
          {"mean_ms", w.mean_ms},
          {"batch_ms_per_row", w.batch_ms_per_row},
          {"misses_per_insert", w.misses_per_insert},
          {"disk_kib_per_insert", w.disk_kib_per_insert},
          {"wal_bytes_per_insert", w.wal_bytes_per_insert},
          {"fpi_per_insert", w.fpi_per_insert},
          {"index_bytes", w.index_bytes},
          {"fill_estimate", w.fill_estimate},
          {"cgroup_bytes", w.cgroup_bytes}};
}

MemoryWindow window_from(const json& j) {
  MemoryWindow w;
  w.rows_end = j.at("rows_end").get<std::uint64_t>();
  w.rows = j.at("rows").get<std::uint64_t>();
  w.seconds = j.at("seconds").get<double>();
  w.inserts_per_s = j.at("inserts_per_s").get<double>();
  w.single_rows = j.at("single_rows").get<std::uint64_t>();
  w.p50_ms = j.at("p50_ms").get<double>();
  w.p99_ms = j.at("p99_ms").get<double>();
  w.mean_ms = j.at("mean_ms").get<double>();
  w.batch_ms_per_row = j.at("batch_ms_per_row").get<double>();
  w.misses_per_insert = j.at("misses_per_insert").get<double>();
  w.disk_kib_per_insert = j.at("disk_kib_per_insert").get<double>();
  w.wal_bytes_per_insert = j.at("wal_bytes_per_insert").get<double>();
  w.fpi_per_insert = j.at("fpi_per_insert").get<double>();
  w.index_bytes = j.at("index_bytes").get<std::uint64_t>();
  w.fill_estimate = j.at("fill_estimate").get<double>();
  w.cgroup_bytes = j.at("cgroup_bytes").get<std::uint64_t>();
  return w;
}

}  // namespace

std::string memory_lab_json(const MemoryLabResult& r) {
  json out = {{"engine", std::string(engine_name(r.engine))},
              {"server_version", r.server_version},
              {"settings", r.settings},
              {"cgroup_version", r.cgroup_version},
              {"memory_bytes", r.memory_bytes},
              {"cache_bytes", r.cache_bytes},
              {"cache_limit", r.cache_limit},
              {"process_bytes", r.process_bytes},
              {"page_bytes", r.page_bytes},
              {"rows", r.rows},
              {"windows", r.windows},
              {"batch", r.batch},
              {"probe", r.probe},
              {"cgroup_peak", r.cgroup_peak},
              {"results", json::array()},
              {"writers", json::array()}};
  // Only a stopped run says so: a whole run's JSON is as it always was.
  if (r.interrupted) out["interrupted"] = true;
  for (const auto& k : r.results) {
    json j = {{"kind", std::string(info(k.kind).name)},
              {"column_type", k.column_type},
              {"rows", k.windows.empty() ? 0 : k.windows.back().rows_end},
              {"crossing_rows", k.crossing_rows ? json(*k.crossing_rows) : json(nullptr)},
              {"knee_rows", k.knee_rows ? json(*k.knee_rows) : json(nullptr)},
              {"entry_bytes", k.entry_bytes},
              {"index_bytes", k.index_bytes},
              {"leaf_pages", k.leaf_pages},
              {"leaf_fill", k.leaf_fill},
              {"fill_method", k.fill_method},
              {"seconds", k.seconds},
              {"p50_before_ms", k.p50_before_ms},
              {"p50_after_ms", k.p50_after_ms},
              {"p99_after_ms", k.p99_after_ms},
              {"mean_before_ms", k.mean_before_ms},
              {"mean_after_ms", k.mean_after_ms},
              {"inserts_per_s_before", k.inserts_per_s_before},
              {"inserts_per_s_after", k.inserts_per_s_after},
              {"misses_after", k.misses_after},
              {"disk_kib_after", k.disk_kib_after},
              {"wal_bytes_after", k.wal_bytes_after},
              {"fpi_after", k.fpi_after},
              {"wal_bytes_per_insert", k.wal_bytes_per_insert},
              {"fpi_per_insert", k.fpi_per_insert},
              {"after_is_past_knee", k.after_is_past_knee},
              {"windows", json::array()}};
    for (const auto& w : k.windows) j["windows"].push_back(window_json(w));
    out["results"].push_back(std::move(j));
  }
  for (const auto& w : r.writers) {
    json j = {{"kind", std::string(info(w.kind).name)}, {"points", json::array()}};
    for (const auto& p : w.points)
      j["points"].push_back({{"writers", p.writers},
                             {"rows", p.rows},
                             {"seconds", p.seconds},
                             {"inserts_per_s", p.inserts_per_s},
                             {"p50_ms", p.p50_ms},
                             {"p99_ms", p.p99_ms}});
    out["writers"].push_back(std::move(j));
  }
  return out.dump(1);
}

namespace {

// Every figure of a run is a count, a size, a time, a rate or a ratio: a negative one (which
// an unsigned read would wrap to 2^64 - n) or one past any machine's means the file was not
// written by the lab, and printing or advising from it would state nonsense as measured.
void check_figures(const json& j, const std::string& where) {
  if (j.is_number()) {
    const double v = j.get<double>();
    if (!(v >= 0) || v > 1e18)
      throw Error(errc::parse_error,
                  where + " is " + j.dump() + ": every figure of a run is a number from 0 to 1e18");
  } else if (j.is_object()) {
    for (const auto& [key, value] : j.items()) check_figures(value, where + "." + key);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i)
      check_figures(j[i], where + "[" + std::to_string(i) + "]");
  }
}

// A string of a run file as it may be printed: control bytes and bytes that are not UTF-8
// escaped, and at most 300 bytes (head and tail kept).
std::string file_text(const std::string& s) {
  return detail::shortened(detail::printable(s), 300);
}

// nlohmann's messages start with "[json.exception.type_error.302] "; the rest says what.
std::string without_prefix(const char* what) {
  const std::string s = what;
  const auto at = s.find("] ");
  return at == std::string::npos ? s : s.substr(at + 2);
}

}  // namespace

MemoryLabResult memory_lab_from_json(const std::string& text) {
  json j;
  // A run nests four levels deep; the checks below walk the document recursively, so a file
  // nested tens of thousands deep would overflow the stack: it is refused while parsing.
  constexpr int kMaxDepth = 16;
  bool too_deep = false;
  const json::parser_callback_t depth_guard = [&](int depth, json::parse_event_t, json&) {
    if (depth > kMaxDepth) {
      too_deep = true;
      throw std::length_error("nested too deep");
    }
    return true;
  };
  try {
    j = json::parse(text, depth_guard);
  } catch (const json::parse_error& e) {
    // Not the library's message: it quotes the bytes it stopped at, which for a file that is
    // not JSON at all may be anything.
    throw Error(errc::parse_error,
                "not JSON (syntax error at byte " + std::to_string(e.byte) +
                    "); expected the file 'idforge lab db --memory-mb M --json' writes");
  } catch (const json::exception&) {
    // A number past a double's range (1e999) is the one other way parsing fails.
    throw Error(errc::parse_error,
                "a number too large for a double: every figure of a run is a number from 0 to "
                "1e18; expected the file 'idforge lab db --memory-mb M --json' writes");
  } catch (const std::length_error&) {
    if (!too_deep) throw;
    throw Error(errc::parse_error, "JSON nested more than " + std::to_string(kMaxDepth) +
                                       " levels deep: not the file 'idforge lab db --memory-mb M "
                                       "--json' writes (it nests four)");
  }
  if (!j.is_object())
    throw Error(errc::parse_error,
                std::string("a JSON ") + j.type_name() +
                    ", not the object 'idforge lab db --memory-mb M --json' writes");
  check_figures(j, "run");
  try {
    MemoryLabResult r;
    r.engine = parse_db_engine(j.value("engine", std::string("sqlite")));
    // Text from a file reaches the terminal: escaped like every other quoted input, bounded.
    r.server_version = file_text(j.at("server_version").get<std::string>());
    r.settings = file_text(j.at("settings").get<std::string>());
    r.cgroup_version = j.value("cgroup_version", 0);
    r.memory_bytes = j.value("memory_bytes", std::uint64_t{0});
    r.cache_bytes = j.value("cache_bytes", std::uint64_t{0});
    r.cache_limit = j.value("cache_limit", std::uint64_t{0});
    r.process_bytes = j.value("process_bytes", std::uint64_t{0});
    r.page_bytes = j.at("page_bytes").get<std::uint32_t>();
    r.rows = j.value("rows", std::uint64_t{0});
    r.windows = j.value("windows", 0u);
    r.batch = j.value("batch", 1u);
    r.probe = j.value("probe", 0u);
    r.cgroup_peak = j.value("cgroup_peak", std::uint64_t{0});
    r.interrupted = j.value("interrupted", false);
    for (const auto& k : j.at("results")) {
      MemoryKindResult m;
      m.kind = parse_key_kind(k.at("kind").get<std::string>());
      m.column_type = file_text(k.at("column_type").get<std::string>());
      if (!k.at("crossing_rows").is_null())
        m.crossing_rows = k.at("crossing_rows").get<std::uint64_t>();
      if (!k.at("knee_rows").is_null()) m.knee_rows = k.at("knee_rows").get<std::uint64_t>();
      m.entry_bytes = k.at("entry_bytes").get<double>();
      m.index_bytes = k.at("index_bytes").get<std::uint64_t>();
      m.leaf_pages = k.at("leaf_pages").get<std::uint64_t>();
      m.leaf_fill = k.at("leaf_fill").get<double>();
      m.fill_method = file_text(k.at("fill_method").get<std::string>());
      m.seconds = k.at("seconds").get<double>();
      m.p50_before_ms = k.at("p50_before_ms").get<double>();
      m.p50_after_ms = k.at("p50_after_ms").get<double>();
      m.p99_after_ms = k.at("p99_after_ms").get<double>();
      m.mean_before_ms = k.at("mean_before_ms").get<double>();
      m.mean_after_ms = k.at("mean_after_ms").get<double>();
      m.inserts_per_s_before = k.at("inserts_per_s_before").get<double>();
      m.inserts_per_s_after = k.at("inserts_per_s_after").get<double>();
      m.misses_after = k.at("misses_after").get<double>();
      m.disk_kib_after = k.at("disk_kib_after").get<double>();
      m.wal_bytes_after = k.at("wal_bytes_after").get<double>();
      m.fpi_after = k.at("fpi_after").get<double>();
      m.wal_bytes_per_insert = k.at("wal_bytes_per_insert").get<double>();
      m.fpi_per_insert = k.at("fpi_per_insert").get<double>();
      m.after_is_past_knee = k.at("after_is_past_knee").get<bool>();
      for (const auto& w : k.at("windows")) m.windows.push_back(window_from(w));
      if (r.of(m.kind))
        throw Error(errc::parse_error, "results name " + std::string(info(m.kind).name) +
                                           " twice: a run measures each kind once");
      r.results.push_back(std::move(m));
    }
    if (j.contains("writers"))
      for (const auto& w : j.at("writers")) {
        WritersResult wr;
        wr.kind = parse_key_kind(w.at("kind").get<std::string>());
        for (const auto& p : w.at("points")) {
          WritersPoint pt;
          pt.writers = p.at("writers").get<unsigned>();
          pt.rows = p.at("rows").get<std::uint64_t>();
          pt.seconds = p.at("seconds").get<double>();
          pt.inserts_per_s = p.at("inserts_per_s").get<double>();
          pt.p50_ms = p.at("p50_ms").get<double>();
          pt.p99_ms = p.at("p99_ms").get<double>();
          wr.points.push_back(pt);
        }
        r.writers.push_back(std::move(wr));
      }
    if (r.results.empty())
      throw Error(errc::parse_error, "no results: the run measured no key kind");
    for (const MemoryKindResult& k : r.results)
      if (k.leaf_fill > 1)
        throw Error(errc::parse_error, std::string(info(k.kind).name) + " leaf_fill " +
                                           json(k.leaf_fill).dump() + ": a fill is at most 1");
    return r;
  } catch (const json::exception& e) {
    throw Error(errc::parse_error, "not a run from 'idforge lab db --memory-mb M --json': " +
                                       without_prefix(e.what()));
  }
}

}  // namespace idforge::lab
