// Cost of node-ID leases per store: acquire + release (one start-up), one renewal (paid every
// TTL/3 in the background), and the leased generator's next() beside the plain generator's.
// Stores come from IDFORGE_REDIS_URL / IDFORGE_ETCD_URL (scripts/services.sh start); a
// missing one is skipped. Run: build/bench/idforge_lease_bench
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "idforge/coord/lease.hpp"
#include "idforge/coord/leased_generator.hpp"

using namespace idforge;

namespace {

const Layout kTwitter = presets::twitter();

std::string store_url(const std::string& which) {
  const std::string prefix = "bench" + std::to_string(getpid());
  if (which == "file") {
    const std::string dir = "/tmp/idforge-lease-bench-" + std::to_string(getpid());
    std::filesystem::create_directories(dir);
    return "file:" + dir;
  }
  const char* base = std::getenv(which == "redis" ? "IDFORGE_REDIS_URL" : "IDFORGE_ETCD_URL");
  if (!base) return "";
  return std::string(base) + "?prefix=" + (which == "redis" ? prefix + ":" : "/" + prefix + "/");
}

void BM_AcquireRelease(benchmark::State& state, const std::string& which) {
  const std::string url = store_url(which);
  if (url.empty()) return state.SkipWithError("store URL not set");
  auto store = coord::open_lease_store(url);
  for (auto _ : state) {
    coord::Lease l = store->acquire(kTwitter);
    store->release(l, l.since_unix_ms);
  }
}

void BM_Renew(benchmark::State& state, const std::string& which) {
  const std::string url = store_url(which);
  if (url.empty()) return state.SkipWithError("store URL not set");
  auto store = coord::open_lease_store(url);
  coord::Lease l = store->acquire(kTwitter);
  std::int64_t mark = l.since_unix_ms;
  for (auto _ : state) store->renew(l, ++mark);
  store->release(l, mark);
}

void BM_PlainNext(benchmark::State& state) {
  SharedSnowflakeGenerator gen(kTwitter, 1);
  for (auto _ : state) benchmark::DoNotOptimize(gen.next());
}

void BM_LeasedNext(benchmark::State& state) {
  coord::SharedLeasedSnowflakeGenerator gen(coord::open_lease_store(store_url("file")), kTwitter);
  for (auto _ : state) benchmark::DoNotOptimize(gen.next());
}

}  // namespace

BENCHMARK_CAPTURE(BM_AcquireRelease, file, std::string("file"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_AcquireRelease, redis, std::string("redis"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_AcquireRelease, etcd, std::string("etcd"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Renew, file, std::string("file"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Renew, redis, std::string("redis"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Renew, etcd, std::string("etcd"))->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PlainNext);
BENCHMARK(BM_LeasedNext);
BENCHMARK_MAIN();
