// The simulator's workload results as JSON and back: `idforge lab btree --json` writes
// them, `lab cost --fill-from` reads them.
#include <nlohmann/json.hpp>

#include <limits>
#include <string>
#include <type_traits>

#include "idforge/error.hpp"
#include "idforge/lab/sim_run.hpp"

namespace idforge::lab {
namespace {

using nlohmann::json;

// field of j into out when present; a value of another type (a negative or fractional
// count included: nlohmann would convert those silently) is a parse error naming where.
template <typename T>
void read(const json& j, const char* field, T& out, const std::string& where) {
  const auto it = j.find(field);
  if (it == j.end()) return;
  const auto wrong = [&](const char* rule) {
    return Error(errc::parse_error,
                 "simulator JSON: " + where + field + " is " + it->dump() + ", not " + rule);
  };
  if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) throw wrong("a string");
    out = it->get<std::string>();
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!it->is_number()) throw wrong("a number");
    out = it->get<T>();
  } else if constexpr (std::is_unsigned_v<T>) {
    if (!it->is_number_unsigned() || it->get<std::uint64_t>() > std::numeric_limits<T>::max())
      throw wrong("a whole number >= 0 that fits its field");
    out = static_cast<T>(it->get<std::uint64_t>());
  } else {
    static_assert(std::is_same_v<T, std::int64_t>);
    if (!it->is_number_integer()) throw wrong("a whole number");
    out = it->get<std::int64_t>();
  }
}

json result_json(const SimResult& r) {
  const BTreeStats& s = r.stats;
  json j = {
      {"kind", std::string(info(r.kind).name)},
      {"key_bytes", info(r.kind).key_bytes},
      {"inserts", s.inserts},
      {"splits", s.splits()},
      {"leaf_splits", s.leaf_splits},
      {"interior_splits", s.interior_splits},
      {"page_writes", s.page_writes},
      {"leaves", s.leaves},
      {"interior_pages", s.interior_pages},
      {"height", s.height},
      {"leaf_fill", s.leaf_fill},
      {"pool_misses", s.pool_misses},
      {"leaf_capacity", r.config.leaf_capacity},
      {"interior_fanout", r.config.interior_fanout},
      {"page_bytes", r.config.page_bytes},
      {"pool_pages", r.config.pool_pages},
      {"rightmost_fill", r.config.rightmost_fill},
      {"index_bytes", s.index_bytes},
      {"leaf_fill_mean", r.leaf_fill_mean},
      {"insert_seconds", r.insert_seconds},
      {"inserts_per_s", r.inserts_per_s},
      {"misses_per_insert",
       s.inserts > 0 ? static_cast<double>(s.pool_misses) / static_cast<double>(s.inserts) : 0.0},
      {"tenths", json::array()}};
  for (std::size_t t = 0; t < r.tenth_end.size(); ++t)
    j["tenths"].push_back({{"rows", r.tenth_end[t]},
                           {"inserts_per_s", r.tenth_inserts_per_s.at(t)},
                           {"misses_per_insert", r.tenth_miss_rate.at(t)}});
  return j;
}

SimResult result_from(const json& j, const std::string& at) {
  if (!j.is_object())
    throw Error(errc::parse_error, "simulator JSON: " + at + " is " + j.dump() + ", not an object");
  SimResult r;
  std::string kind;
  read(j, "kind", kind, at + ".");
  if (kind.empty()) throw Error(errc::parse_error, "simulator JSON: " + at + " has no kind");
  try {
    r.kind = parse_key_kind(kind);
  } catch (const Error& e) {
    throw Error(errc::parse_error, "simulator JSON: " + at + ".kind: " + e.what());
  }
  const std::string w = at + ".";
  BTreeStats& s = r.stats;
  read(j, "inserts", s.inserts, w);
  read(j, "leaf_splits", s.leaf_splits, w);
  read(j, "interior_splits", s.interior_splits, w);
  read(j, "page_writes", s.page_writes, w);
  read(j, "leaves", s.leaves, w);
  read(j, "interior_pages", s.interior_pages, w);
  read(j, "height", s.height, w);
  read(j, "leaf_fill", s.leaf_fill, w);
  read(j, "pool_misses", s.pool_misses, w);
  read(j, "index_bytes", s.index_bytes, w);
  read(j, "leaf_capacity", r.config.leaf_capacity, w);
  read(j, "interior_fanout", r.config.interior_fanout, w);
  read(j, "page_bytes", r.config.page_bytes, w);
  read(j, "pool_pages", r.config.pool_pages, w);
  read(j, "rightmost_fill", r.config.rightmost_fill, w);
  read(j, "leaf_fill_mean", r.leaf_fill_mean, w);
  read(j, "insert_seconds", r.insert_seconds, w);
  read(j, "inserts_per_s", r.inserts_per_s, w);
  if (const auto t = j.find("tenths"); t != j.end()) {
    if (!t->is_array())
      throw Error(errc::parse_error,
                  "simulator JSON: " + w + "tenths is " + t->dump() + ", not an array");
    for (std::size_t i = 0; i < t->size(); ++i) {
      const json& tj = (*t)[i];
      const std::string tw = w + "tenths[" + std::to_string(i) + "].";
      if (!tj.is_object())
        throw Error(errc::parse_error, "simulator JSON: " + w + "tenths[" + std::to_string(i) +
                                           "] is " + tj.dump() + ", not an object");
      std::uint64_t rows = 0;
      double rate = 0, misses = 0;
      read(tj, "rows", rows, tw);
      read(tj, "inserts_per_s", rate, tw);
      read(tj, "misses_per_insert", misses, tw);
      r.tenth_end.push_back(rows);
      r.tenth_inserts_per_s.push_back(rate);
      r.tenth_miss_rate.push_back(misses);
    }
  }
  return r;
}

}  // namespace

std::string sim_report_json(const SimReport& report) {
  const SimOptions& o = report.options;
  json out = {{"n", o.n},
              {"page_bytes", o.page_bytes},
              {"leaf_keys", o.leaf_keys},
              {"fanout", o.fanout},
              {"entry_overhead", o.entry_overhead},
              {"pool_pages", o.pool_pages},
              {"rightmost_fill", o.rightmost_fill},
              {"seed", o.keys.seed},
              {"start_unix_ms", o.keys.start_unix_ms},
              {"keys_per_ms", o.keys.keys_per_ms},
              {"snowflake_node", o.keys.snowflake_node},
              {"results", json::array()}};
  for (const SimResult& r : report.results) out["results"].push_back(result_json(r));
  // Kind names are ASCII; replace keeps a dump from throwing on anything else all the same.
  return out.dump(2, ' ', false, json::error_handler_t::replace);
}

SimReport sim_report_from_json(std::string_view text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw Error(errc::parse_error, std::string("simulator JSON: not JSON: ") + e.what());
  }
  if (!j.is_object())
    throw Error(errc::parse_error, std::string("simulator JSON: the top level is ") +
                                       (j.is_array() || j.is_object() ? "an " : "a ") +
                                       j.type_name() + ", not an object");
  SimReport report;
  SimOptions& o = report.options;
  read(j, "n", o.n, "");
  read(j, "page_bytes", o.page_bytes, "");
  read(j, "leaf_keys", o.leaf_keys, "");
  read(j, "fanout", o.fanout, "");
  read(j, "entry_overhead", o.entry_overhead, "");
  read(j, "pool_pages", o.pool_pages, "");
  read(j, "rightmost_fill", o.rightmost_fill, "");
  read(j, "seed", o.keys.seed, "");
  read(j, "start_unix_ms", o.keys.start_unix_ms, "");
  read(j, "keys_per_ms", o.keys.keys_per_ms, "");
  read(j, "snowflake_node", o.keys.snowflake_node, "");
  const auto results = j.find("results");
  if (results == j.end() || !results->is_array())
    throw Error(errc::parse_error, "simulator JSON: no \"results\" array");
  for (std::size_t i = 0; i < results->size(); ++i)
    report.results.push_back(result_from((*results)[i], "results[" + std::to_string(i) + "]"));
  return report;
}

}  // namespace idforge::lab
