#include "idforge/lab/sim_run.hpp"

#include <algorithm>
#include <chrono>

#include "idforge/error.hpp"

namespace idforge::lab {

BTreeConfig sim_config(KeyKind kind, const SimOptions& o) {
  BTreeConfig c = BTreeConfig::for_page(o.page_bytes, info(kind).key_bytes, o.entry_overhead);
  if (o.leaf_keys != 0) c.leaf_capacity = o.leaf_keys;
  if (o.fanout != 0) c.interior_fanout = o.fanout;
  c.rightmost_fill = o.rightmost_fill;
  c.pool_pages = o.pool_pages;
  c.validate();
  return c;
}

SimResult run_simulation(KeyKind kind, const SimOptions& o) {
  if (o.n == 0) throw Error(errc::invalid_argument, "key count 0: insert at least 1 key");
  SimResult r;
  r.kind = kind;
  r.config = sim_config(kind, o);
  BTreeSim tree(r.config);
  auto source = make_model_key_source(kind, o.keys);
  std::vector<Key128> buf(std::min<std::uint64_t>(o.n, 1 << 16));
  using clock = std::chrono::steady_clock;
  std::uint64_t done = 0, misses0 = 0, tenth_start = 0;
  double tenth_seconds = 0, fill_sum = 0;
  int fill_samples = 0;
  for (int step = 1; step <= 100; ++step) {
    const std::uint64_t end = o.n * static_cast<std::uint64_t>(step) / 100;
    while (done < end) {
      const std::size_t m =
          static_cast<std::size_t>(std::min<std::uint64_t>(end - done, buf.size()));
      source->fill(std::span(buf.data(), m));
      const auto t0 = clock::now();
      tree.insert(buf.data(), m);
      tenth_seconds += std::chrono::duration<double>(clock::now() - t0).count();
      done += m;
    }
    const BTreeStats now = tree.stats();
    if (step > 50) {
      fill_sum += now.leaf_fill;
      ++fill_samples;
    }
    if (step % 10 != 0) continue;
    const double count = static_cast<double>(done - tenth_start);
    r.insert_seconds += tenth_seconds;
    r.tenth_end.push_back(done);
    r.tenth_inserts_per_s.push_back(tenth_seconds > 0 ? count / tenth_seconds : 0);
    r.tenth_miss_rate.push_back(count > 0 ? static_cast<double>(now.pool_misses - misses0) / count
                                          : 0);
    misses0 = now.pool_misses;
    tenth_start = done;
    tenth_seconds = 0;
  }
  r.leaf_fill_mean = fill_samples ? fill_sum / fill_samples : 0;
  r.stats = tree.stats();
  r.inserts_per_s = r.insert_seconds > 0 ? static_cast<double>(o.n) / r.insert_seconds : 0;
  return r;
}

std::vector<DemoRun> run_demo(const DemoOptions& o) {
  if (o.keys == 0) throw Error(errc::invalid_argument, "demo with 0 keys: insert at least 1 key");
  std::vector<DemoRun> runs;
  for (KeyKind kind : o.kinds) {
    BTreeConfig c;
    c.leaf_capacity = o.leaf_keys;
    c.interior_fanout = o.fanout;
    c.record_creation = true;
    BTreeSim tree(c);
    KeySourceOptions ko;
    ko.seed = o.seed;
    auto source = make_model_key_source(kind, ko);
    DemoRun run;
    run.kind = kind;
    for (std::uint32_t i = 0; i < o.keys; ++i) {
      run.keys.push_back(source->next());
      tree.insert(run.keys.back());
    }
    run.stats = tree.stats();
    run.leaves = tree.leaves();
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace idforge::lab
