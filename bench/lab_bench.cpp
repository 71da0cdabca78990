// The index lab's simulator speed: keys inserted per second into a 16 KiB-page B+ tree,
// for time-ordered and random keys, beside a node-per-key baseline (std::set) over the
// same keys in the same run. Keys are made before timing; each iteration builds a fresh tree.
#include <benchmark/benchmark.h>

#include <set>
#include <vector>

#include "idforge/lab/btree_sim.hpp"
#include "idforge/lab/key_source.hpp"

namespace {

using namespace idforge::lab;

const std::vector<Key128>& keys_of(KeyKind kind, std::size_t n) {
  static std::vector<Key128> cache[5];
  auto& v = cache[static_cast<int>(kind)];
  if (v.size() != n) {
    auto src = make_model_key_source(kind);
    v.resize(n);
    src->fill(v);
  }
  return v;
}

void BM_BTreeSim(benchmark::State& state, KeyKind kind) {
  const auto& keys = keys_of(kind, static_cast<std::size_t>(state.range(0)));
  const BTreeConfig cfg = BTreeConfig::for_page(16384, info(kind).key_bytes);
  for (auto _ : state) {
    BTreeSim tree(cfg);
    tree.insert(keys.data(), keys.size());
    benchmark::DoNotOptimize(tree.stats().leaf_fill);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_BTreeSimPool(benchmark::State& state, KeyKind kind) {
  const auto& keys = keys_of(kind, static_cast<std::size_t>(state.range(0)));
  BTreeConfig cfg = BTreeConfig::for_page(16384, info(kind).key_bytes);
  cfg.pool_pages = 1000;
  for (auto _ : state) {
    BTreeSim tree(cfg);
    tree.insert(keys.data(), keys.size());
    benchmark::DoNotOptimize(tree.stats().pool_misses);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// Baseline: a red-black tree with one heap node per key.
void BM_StdSet(benchmark::State& state, KeyKind kind) {
  const auto& keys = keys_of(kind, static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    std::set<Key128> s(keys.begin(), keys.end());
    benchmark::DoNotOptimize(s.size());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

constexpr int kKeys = 2'000'000;
BENCHMARK_CAPTURE(BM_StdSet, uuid4, KeyKind::uuid4)->Arg(kKeys)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BTreeSim, snowflake, KeyKind::snowflake)
    ->Arg(kKeys)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BTreeSim, uuid7, KeyKind::uuid7)->Arg(kKeys)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BTreeSim, uuid4, KeyKind::uuid4)->Arg(kKeys)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BTreeSim, uuid4_10M, KeyKind::uuid4)
    ->Arg(10'000'000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_BTreeSimPool, uuid4_pool1000, KeyKind::uuid4)
    ->Arg(kKeys)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
