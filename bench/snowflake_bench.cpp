// Snowflake generation: the clock read (the floor), next() and next_batch() while not
// saturated, a mutex-based generator as the baseline, and (after the Google Benchmark rows)
// the saturated rate against the layout's ceiling with 1 and 2 threads under each wait
// mode, with the CPU the waiting burns.
//
// Run: build/bench/idforge_bench_snowflake --benchmark_repetitions=5 \
//        --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <time.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "idforge/snowflake_generator.hpp"

namespace {

using namespace idforge;

// A layout whose 22-bit sequence (4M IDs per ms) is never exhausted at single-thread speed,
// so the rows below measure the cost of one call, not the wait for the next millisecond.
// Same code path as Twitter's layout (time + sequence bits <= 62): only the widths differ.
Layout unsaturated() {
  return parse_layout("name=wide,time=40,node=1,seq=22,epoch=1288834974657");
}

void BM_ClockGettimeRealtime(benchmark::State& state) {
  timespec ts;
  for (auto _ : state) {
    clock_gettime(CLOCK_REALTIME, &ts);
    benchmark::DoNotOptimize(ts);
  }
}
BENCHMARK(BM_ClockGettimeRealtime);

void BM_SnowflakeNext(benchmark::State& state) {
  SharedSnowflakeGenerator gen(unsaturated(), 0);
  for (auto _ : state) benchmark::DoNotOptimize(gen.next());
}
BENCHMARK(BM_SnowflakeNext);

void BM_LocalSnowflakeNext(benchmark::State& state) {
  SnowflakeGenerator gen(unsaturated(), 0);
  for (auto _ : state) benchmark::DoNotOptimize(gen.next());
}
BENCHMARK(BM_LocalSnowflakeNext);

void BM_SnowflakeBatchPerId(benchmark::State& state) {
  SharedSnowflakeGenerator gen(unsaturated(), 0);
  std::vector<Snowflake> buf(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    gen.next_batch(buf);
    benchmark::DoNotOptimize(buf.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["ns_per_id"] =
      benchmark::Counter(static_cast<double>(state.iterations() * state.range(0)),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_SnowflakeBatchPerId)->Arg(64)->Arg(1024);

// The textbook generator (Twitter's synchronized nextId): a mutex around last_ms/sequence.
class MutexSnowflake {
 public:
  explicit MutexSnowflake(const Layout& l) : l_(l) {}
  std::uint64_t next() {
    std::lock_guard<std::mutex> lock(mu_);
    timespec ts;
    for (;;) {
      clock_gettime(CLOCK_REALTIME, &ts);
      const std::int64_t ms = ts.tv_sec * 1000 + ts.tv_nsec / 1'000'000 - l_.epoch_ms();
      if (ms > last_) {
        last_ = ms, seq_ = 0;
        break;
      }
      if (ms == last_ && ++seq_ < l_.ids_per_tick()) break;
      if (ms < last_ - 5) throw std::runtime_error("clock moved backwards");
    }
    return (static_cast<std::uint64_t>(last_) << l_.time_shift()) | seq_;
  }

 private:
  Layout l_;
  std::mutex mu_;
  std::int64_t last_ = -1;
  std::uint64_t seq_ = 0;
};

// Multi-thread rows: Google Benchmark's time for Threads(N) is the run's wall time divided by
// the calls of all threads together (wall ns per ID, not per call per thread), so these rows
// use real time and also report IDs/s over all threads (items_per_second).
void BM_MutexSnowflakeNext(benchmark::State& state) {
  static MutexSnowflake gen(unsaturated());
  for (auto _ : state) benchmark::DoNotOptimize(gen.next());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MutexSnowflakeNext)->Threads(1)->Threads(2)->UseRealTime();

void BM_SnowflakeNextContended(benchmark::State& state) {
  static SharedSnowflakeGenerator gen(unsaturated(), 0);
  for (auto _ : state) benchmark::DoNotOptimize(gen.next());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SnowflakeNextContended)->Threads(1)->Threads(2)->UseRealTime();

// Saturated: Twitter's layout, 4096 IDs per ms per node, under each wait mode.
SystemClock spin_clock(WaitMode::spin), sleep_clock(WaitMode::sleep),
    hybrid_clock(WaitMode::hybrid);

double process_cpu_seconds() {
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// Exact saturation, independent of the harness's timing: N IDs from T threads; the IDs
// span some milliseconds, each of which holds 4096, so fill = N / (4096 * span). Printed
// after the Google Benchmark rows.
void saturation_table() {
  constexpr std::uint64_t kIds = 4'096'000;  // about one second at the ceiling
  const char* names[] = {"spin", "sleep", "hybrid"};
  Clock* clocks[] = {&spin_clock, &sleep_clock, &hybrid_clock};
  std::printf("\nsaturated, Twitter layout (ceiling 4,096,000 IDs/s), %llu IDs per row\n",
              static_cast<unsigned long long>(kIds));
  std::printf("%-8s %-8s %12s %12s %14s\n", "wait", "threads", "IDs/s", "of ceiling",
              "CPU per wall s");
  for (int m = 0; m < 3; ++m)
    for (int threads : {1, 2}) {
      SharedSnowflakeGenerator gen(presets::twitter(), 1, *clocks[m]);
      const std::int64_t first = decompose(gen.layout(), gen.next()).unix_ms;
      const double cpu0 = process_cpu_seconds();
      timespec w0, w1;
      clock_gettime(CLOCK_MONOTONIC, &w0);
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t)
        pool.emplace_back([&] {
          for (std::uint64_t i = 0; i < kIds / threads; ++i) benchmark::DoNotOptimize(gen.next());
        });
      for (auto& th : pool) th.join();
      clock_gettime(CLOCK_MONOTONIC, &w1);
      const double wall =
          static_cast<double>(w1.tv_sec - w0.tv_sec) + (w1.tv_nsec - w0.tv_nsec) / 1e9;
      const std::int64_t span_ms = gen.last_unix_ms() - first;  // whole ms after the first one
      const double fill = static_cast<double>(kIds) / (4096.0 * static_cast<double>(span_ms));
      std::printf("%-8s %-8d %12.0f %11.2f%% %14.2f\n", names[m], threads,
                  static_cast<double>(kIds) / wall, 100.0 * fill,
                  (process_cpu_seconds() - cpu0) / wall);
    }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  saturation_table();
}
