// idforge beside one build of Boost.UUID, in one program, so every ratio comes from one run:
// UUID to_chars and parse (36 characters), UUIDv7 and UUIDv4 generation, and the clock read
// both generators pay. ULID text is timed on every idforge path; Boost has no ULID.
//
// Not built by CMake: Boost 1.90 and Boost's development head are not Debian packages.
// scripts/bench_boost.sh compiles this file once per Boost build (Debian's 1.81, 1.90, the
// head with its default flags, with -march=x86-64-v2 and with -march=x86-64-v3), each beside
// the same default build of libidforge_core.a (two versions of Boost cannot share one
// program), runs them in turns and prints the medians and ratios. IDF_VARIANT names the build.
#include <benchmark/benchmark.h>
#include <time.h>

#include <boost/uuid/random_generator.hpp>
#include <boost/uuid/uuid.hpp>
#include <boost/uuid/uuid_io.hpp>
// Releases before 1.86 have no v7 generator, before the head no from_chars.
#if __has_include(<boost/uuid/time_generator_v7.hpp>)
#include <boost/uuid/time_generator_v7.hpp>
#define IDF_BOOST_V7 1
#endif
#if __has_include(<boost/uuid/detail/from_chars.hpp>)
#define IDF_BOOST_FROM_CHARS 1
#else
#include <boost/uuid/string_generator.hpp>
#endif
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "idforge/detail/text_path.hpp"
#include "idforge/ulid.hpp"
#include "idforge/uuid_generator.hpp"
#include "text_pool.hpp"

#ifndef IDF_VARIANT
#define IDF_VARIANT "unnamed"
#endif

namespace {

using namespace idforge;

using bench::kPool;
using bench::text_pool;
using bench::uuid_pool;

std::vector<boost::uuids::uuid> boost_pool() {
  std::vector<boost::uuids::uuid> v(kPool);
  const auto ids = uuid_pool();
  for (std::size_t i = 0; i < kPool; ++i) std::memcpy(v[i].data, ids[i].bytes().data(), 16);
  return v;
}

std::vector<std::string> uuid_texts() {
  return text_pool([](const Uuid& u) { return u.to_string(); });
}

std::vector<std::string> ulid_texts() {
  return text_pool([](const Uuid& u) { return Ulid::from_uuid(u).to_string(); });
}

void floor_clock(benchmark::State& state) {
  timespec ts;
  for (auto _ : state) {
    clock_gettime(CLOCK_REALTIME, &ts);
    benchmark::DoNotOptimize(ts);
  }
}

void idforge_to_chars(benchmark::State& state) {
  const auto pool = uuid_pool();
  char out[Uuid::kTextSize];
  std::size_t i = 0;
  for (auto _ : state) {
    pool[i++ % kPool].to_chars(out);
    benchmark::DoNotOptimize(out);
  }
}

void boost_to_chars(benchmark::State& state) {
  const auto pool = boost_pool();
  char out[36];
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(boost::uuids::to_chars(pool[i++ % kPool], out, out + 36));
    benchmark::DoNotOptimize(out);  // inlined, the stores to an unread buffer could vanish
    benchmark::DoNotOptimize(out);
  }
}

void idforge_parse(benchmark::State& state) {
  const auto pool = uuid_texts();
  Uuid u;
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(parse_uuid(pool[i++ % kPool], u));
    benchmark::DoNotOptimize(u);
  }
}

void boost_parse(benchmark::State& state) {
  const auto pool = uuid_texts();
  boost::uuids::uuid u;
  std::size_t i = 0;
#ifdef IDF_BOOST_FROM_CHARS
  for (auto _ : state) {
    const std::string& s = pool[i++ % kPool];
    benchmark::DoNotOptimize(boost::uuids::from_chars(s.data(), s.data() + s.size(), u));
    benchmark::DoNotOptimize(u);
  }
#else
  const boost::uuids::string_generator parse;
  for (auto _ : state) {
    u = parse(pool[i++ % kPool]);
    benchmark::DoNotOptimize(u);
  }
#endif
}

// 256 UUIDs a line each into one buffer; the time is divided by 256 (ns per ID).
constexpr std::size_t kBatch = 256;

void idforge_batch_to_chars(benchmark::State& state) {
  const auto pool = uuid_pool();
  const std::span<const Uuid> ids(pool.data(), kBatch);
  std::string out(batch_text_size(kBatch, Uuid::kTextSize, "\n"), '\0');
  for (auto _ : state) {
    to_chars(ids, out.data(), "\n");
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kBatch));
}

void boost_batch_to_chars(benchmark::State& state) {
  const auto pool = boost_pool();
  std::string out(kBatch * 37, '\0');
  for (auto _ : state) {
    char* p = out.data();
    for (std::size_t i = 0; i < kBatch; ++i) {
      boost::uuids::to_chars(pool[i], p, p + 36);
      p[36] = '\n';
      p += 37;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kBatch));
}

void idforge_ulid_to_chars(benchmark::State& state) {
  std::vector<Ulid> pool;
  for (const Uuid& u : uuid_pool()) pool.push_back(Ulid::from_uuid(u));
  char out[Ulid::kTextSize];
  std::size_t i = 0;
  for (auto _ : state) {
    pool[i++ % kPool].to_chars(out);
    benchmark::DoNotOptimize(out);
  }
}

void idforge_ulid_parse(benchmark::State& state) {
  const auto pool = ulid_texts();
  Ulid u;
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(parse_ulid(pool[i++ % kPool], u));
    benchmark::DoNotOptimize(u);
  }
}

void idforge_v7(benchmark::State& state) {
  UuidV7Generator gen;
  for (auto _ : state) benchmark::DoNotOptimize(gen.next());
}

#ifdef IDF_BOOST_V7
void boost_v7(benchmark::State& state) {
  boost::uuids::time_generator_v7 gen;
  for (auto _ : state) benchmark::DoNotOptimize(gen());
}
#endif

void idforge_v4(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(new_uuid_v4());
}

void boost_v4(benchmark::State& state) {
  boost::uuids::random_generator gen;
  for (auto _ : state) benchmark::DoNotOptimize(gen());
}

using Fn = void (*)(benchmark::State&);

// Each idforge text row on the path chosen at start-up ("best") and on every path this CPU
// has, forced, so the table shows what each path costs.
void register_text(const char* op, Fn fn) {
  benchmark::RegisterBenchmark((std::string("idforge/") + op + "/best").c_str(), fn);
  for (detail::TextPath path : detail::kTextPaths) {
    if (!detail::text_path_available(path)) continue;
    benchmark::RegisterBenchmark(
        (std::string("idforge/") + op + "/" + detail::to_string(path)).c_str(),
        [path, fn](benchmark::State& st) {
          detail::use_text_path(path);
          fn(st);
          detail::use_best_text_path();
        });
  }
}

const bool kRegistered = [] {
  const std::string boost = std::string("boost_") + IDF_VARIANT + "/";
  benchmark::RegisterBenchmark("floor/clock_gettime", floor_clock);
  register_text("uuid_to_chars", idforge_to_chars);
  benchmark::RegisterBenchmark((boost + "uuid_to_chars").c_str(), boost_to_chars);
  register_text("uuid_parse", idforge_parse);
  benchmark::RegisterBenchmark((boost + "uuid_parse").c_str(), boost_parse);
  benchmark::RegisterBenchmark("idforge/uuid_batch_to_chars", idforge_batch_to_chars);
  benchmark::RegisterBenchmark((boost + "uuid_batch_to_chars").c_str(), boost_batch_to_chars);
  register_text("ulid_to_chars", idforge_ulid_to_chars);
  register_text("ulid_parse", idforge_ulid_parse);
  benchmark::RegisterBenchmark("idforge/uuid_v7", idforge_v7);
#ifdef IDF_BOOST_V7
  benchmark::RegisterBenchmark((boost + "uuid_v7").c_str(), boost_v7);
#endif
  benchmark::RegisterBenchmark("idforge/uuid_v4", idforge_v4);
  benchmark::RegisterBenchmark((boost + "uuid_v4").c_str(), boost_v4);
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
