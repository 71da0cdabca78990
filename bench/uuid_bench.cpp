// UUIDv4, UUIDv7, ULID (and TypeID, KSUID): ns per ID, per to-string and per parse, in one run
// beside the floors they cannot beat and the peers in Debian:
//   floors   clock_gettime(CLOCK_REALTIME); 16 bytes of a libsodium ChaCha20 keystream served
//            from a 4 KiB buffer (what a userspace CSPRNG costs); getrandom() of 16 bytes (what
//            asking the OS for every ID costs); clock read + 16 keystream bytes together
//   peers    libuuid (uuid-dev): uuid_generate_random, uuid_generate_time, uuid_unparse_lower,
//            uuid_parse; Boost 1.81 (libboost1.81-dev): random_generator (getrandom per UUID
//            in 1.81), random_generator_mt19937, to_chars, string_generator
// The npm packages are timed by tests/npm/bench_uuid.mjs; scripts/bench_uuid.sh runs both
// and prints one table with the ratios.
//
// Run: build/bench/idforge_bench_uuid --benchmark_repetitions=5 \
//        --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <sodium.h>
#include <sys/random.h>
#include <time.h>
#include <uuid/uuid.h>

#include <boost/uuid/random_generator.hpp>
#include <boost/uuid/string_generator.hpp>
#include <boost/uuid/uuid.hpp>
#include <boost/uuid/uuid_io.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "idforge/detail/text_path.hpp"
#include "idforge/ksuid.hpp"
#include "idforge/typeid.hpp"
#include "idforge/ulid_generator.hpp"
#include "idforge/uuid_generator.hpp"
#include "text_pool.hpp"

namespace {

using namespace idforge;

using bench::kPool;
using bench::text_pool;
using bench::uuid_pool;

// ---------------------------------------------------------------------------------------
// Floors

void BM_Floor_ClockRead(benchmark::State& state) {
  timespec ts;
  for (auto _ : state) {
    clock_gettime(CLOCK_REALTIME, &ts);
    benchmark::DoNotOptimize(ts);
  }
}
BENCHMARK(BM_Floor_ClockRead);

// A minimal userspace CSPRNG: libsodium's ChaCha20 keystream, 4 KiB at a time, 16 bytes
// handed out per call. No key erasure, no fork check: the least any such design costs.
class Keystream {
 public:
  Keystream() {
    if (sodium_init() < 0) std::abort();
    randombytes_buf(key_, sizeof key_);
  }
  void take16(unsigned char* out) noexcept {
    if (pos_ == sizeof buf_) [[unlikely]] {
      crypto_stream_chacha20(buf_, sizeof buf_, reinterpret_cast<unsigned char*>(&nonce_), key_);
      ++nonce_;
      pos_ = 0;
    }
    std::memcpy(out, buf_ + pos_, 16);
    pos_ += 16;
  }

 private:
  unsigned char key_[crypto_stream_chacha20_KEYBYTES];
  std::uint64_t nonce_ = 0;
  unsigned char buf_[4096];
  std::size_t pos_ = sizeof buf_;
};

void BM_Floor_Keystream16(benchmark::State& state) {
  Keystream ks;
  unsigned char out[16];
  for (auto _ : state) {
    ks.take16(out);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_Floor_Keystream16);

void BM_Floor_ClockReadPlusKeystream16(benchmark::State& state) {
  Keystream ks;
  unsigned char out[16];
  timespec ts;
  for (auto _ : state) {
    clock_gettime(CLOCK_REALTIME, &ts);
    ks.take16(out);
    benchmark::DoNotOptimize(ts);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_Floor_ClockReadPlusKeystream16);

void BM_Floor_Getrandom16(benchmark::State& state) {
  unsigned char out[16];
  for (auto _ : state) {
    if (getrandom(out, sizeof out, 0) != 16) state.SkipWithError("getrandom failed");
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_Floor_Getrandom16);

// ---------------------------------------------------------------------------------------
// idforge: generation

void BM_Idforge_UuidV4(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(new_uuid_v4());
}
BENCHMARK(BM_Idforge_UuidV4);

void BM_Idforge_UuidV7(benchmark::State& state) {
  UuidV7Generator gen;
  for (auto _ : state) benchmark::DoNotOptimize(gen.next());
}
BENCHMARK(BM_Idforge_UuidV7);

void BM_Idforge_UuidV7Shared(benchmark::State& state) {
  static SharedUuidV7Generator gen;
  for (auto _ : state) benchmark::DoNotOptimize(gen.next());
}
BENCHMARK(BM_Idforge_UuidV7Shared);

void BM_Idforge_Ulid(benchmark::State& state) {
  UlidGenerator gen;
  for (auto _ : state) benchmark::DoNotOptimize(gen.next());
}
BENCHMARK(BM_Idforge_Ulid);

void BM_Idforge_UlidShared(benchmark::State& state) {
  static SharedUlidGenerator gen;
  for (auto _ : state) benchmark::DoNotOptimize(gen.next());
}
BENCHMARK(BM_Idforge_UlidShared);

// Batch rows report ns_per_id: the time of one call divided by the IDs it makes.
void per_id(benchmark::State& state, std::size_t n) {
  state.counters["ns_per_id"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * static_cast<double>(n) / 1e9,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_Idforge_UuidV4Batch(benchmark::State& state) {
  std::vector<Uuid> buf(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    new_uuid_v4_batch(buf);
    benchmark::DoNotOptimize(buf.data());
  }
  per_id(state, buf.size());
}
BENCHMARK(BM_Idforge_UuidV4Batch)->Arg(256);

void BM_Idforge_UuidV7Batch(benchmark::State& state) {
  UuidV7Generator gen;
  std::vector<Uuid> buf(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    gen.next_batch(buf);
    benchmark::DoNotOptimize(buf.data());
  }
  per_id(state, buf.size());
}
BENCHMARK(BM_Idforge_UuidV7Batch)->Arg(256);

void BM_Idforge_UlidBatch(benchmark::State& state) {
  UlidGenerator gen;
  std::vector<Ulid> buf(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    gen.next_batch(buf);
    benchmark::DoNotOptimize(buf.data());
  }
  per_id(state, buf.size());
}
BENCHMARK(BM_Idforge_UlidBatch)->Arg(256);

void BM_Idforge_TypeIdNext(benchmark::State& state) {
  TypeIdGenerator gen("user");
  for (auto _ : state) benchmark::DoNotOptimize(gen.next());
}
BENCHMARK(BM_Idforge_TypeIdNext);

void BM_Idforge_KsuidNew(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(new_ksuid());
}
BENCHMARK(BM_Idforge_KsuidNew);

// ---------------------------------------------------------------------------------------
// idforge: text

void BM_Idforge_UuidToChars(benchmark::State& state) {
  const auto pool = uuid_pool();
  char out[Uuid::kTextSize];
  std::size_t i = 0;
  for (auto _ : state) {
    pool[i++ % kPool].to_chars(out);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_Idforge_UuidToChars);

void BM_Idforge_UuidParse(benchmark::State& state) {
  const auto pool = text_pool([](const Uuid& u) { return u.to_string(); });
  Uuid u;
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(parse_uuid(pool[i++ % kPool], u));
    benchmark::DoNotOptimize(u);
  }
}
BENCHMARK(BM_Idforge_UuidParse);

void BM_Idforge_UlidToChars(benchmark::State& state) {
  const auto pool = uuid_pool();
  char out[Ulid::kTextSize];
  std::size_t i = 0;
  for (auto _ : state) {
    Ulid::from_uuid(pool[i++ % kPool]).to_chars(out);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_Idforge_UlidToChars);

void BM_Idforge_UlidParse(benchmark::State& state) {
  const auto pool = text_pool([](const Uuid& u) { return Ulid::from_uuid(u).to_string(); });
  Ulid u;
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(parse_ulid(pool[i++ % kPool], u));
    benchmark::DoNotOptimize(u);
  }
}
BENCHMARK(BM_Idforge_UlidParse);

void BM_Idforge_TypeIdToChars(benchmark::State& state) {
  std::vector<TypeId> pool;
  for (const Uuid& u : uuid_pool()) pool.emplace_back("user", u);
  char out[TypeId::kMaxTextSize];
  std::size_t i = 0;
  for (auto _ : state) {
    pool[i++ % kPool].to_chars(out);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_Idforge_TypeIdToChars);

void BM_Idforge_TypeIdParse(benchmark::State& state) {
  const auto pool = text_pool([](const Uuid& u) { return TypeId("user", u).to_string(); });
  TypeId t;
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(parse_typeid(pool[i++ % kPool], t));
    benchmark::DoNotOptimize(t);
  }
}
BENCHMARK(BM_Idforge_TypeIdParse);

void BM_Idforge_KsuidToChars(benchmark::State& state) {
  std::vector<Ksuid> pool;
  for (std::size_t i = 0; i < kPool; ++i) pool.push_back(new_ksuid());
  char out[Ksuid::kTextSize];
  std::size_t i = 0;
  for (auto _ : state) {
    pool[i++ % kPool].to_chars(out);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_Idforge_KsuidToChars);

void BM_Idforge_KsuidParse(benchmark::State& state) {
  std::vector<std::string> pool;
  for (std::size_t i = 0; i < kPool; ++i) pool.push_back(new_ksuid().to_string());
  Ksuid k;
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(parse_ksuid(pool[i++ % kPool], k));
    benchmark::DoNotOptimize(k);
  }
}
BENCHMARK(BM_Idforge_KsuidParse);

// Every text operation on every code path this CPU has (BM_Idforge_Text_<op>_<path>), and
// the batch writers per ID. The rows above use the path chosen at start-up.

template <typename Op>
void on_path(benchmark::State& state, detail::TextPath path, Op op) {
  detail::use_text_path(path);
  op(state);
  detail::use_best_text_path();
}

void uuid_to_chars_rows(benchmark::State& state) {
  BM_Idforge_UuidToChars(state);
}

void uuid_to_hex_rows(benchmark::State& state) {
  const auto pool = uuid_pool();
  char out[Uuid::kHexSize];
  std::size_t i = 0;
  for (auto _ : state) {
    pool[i++ % kPool].to_hex_chars(out);
    benchmark::DoNotOptimize(out);
  }
}

void uuid_parse_hex_rows(benchmark::State& state) {
  const auto pool = text_pool([](const Uuid& u) { return u.to_hex(); });
  Uuid u;
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(parse_uuid(pool[i++ % kPool], u));
    benchmark::DoNotOptimize(u);
  }
}

const bool kTextPathRowsRegistered = [] {
  using Fn = void (*)(benchmark::State&);
  const std::pair<const char*, Fn> ops[] = {
      {"UuidToChars", uuid_to_chars_rows},     {"UuidToHex", uuid_to_hex_rows},
      {"UuidParse", BM_Idforge_UuidParse},     {"UuidParseHex", uuid_parse_hex_rows},
      {"UlidToChars", BM_Idforge_UlidToChars}, {"UlidParse", BM_Idforge_UlidParse},
  };
  for (const auto& [name, fn] : ops)
    for (detail::TextPath path : detail::kTextPaths)
      if (detail::text_path_available(path))
        benchmark::RegisterBenchmark(
            (std::string("BM_Idforge_Text_") + name + "_" + detail::to_string(path)).c_str(),
            [path, fn = fn](benchmark::State& st) { on_path(st, path, fn); });
  return true;
}();

// One batch call writing n canonical texts separated by '\n'; ns_per_id divides by n.
void BM_Idforge_UuidToCharsBatch(benchmark::State& state) {
  const auto pool = uuid_pool();
  const std::span<const Uuid> ids(pool.data(), static_cast<std::size_t>(state.range(0)));
  std::string out(batch_text_size(ids.size(), Uuid::kTextSize, "\n"), '\0');
  for (auto _ : state) {
    to_chars(ids, out.data(), "\n");
    benchmark::DoNotOptimize(out.data());
  }
  per_id(state, ids.size());
}
BENCHMARK(BM_Idforge_UuidToCharsBatch)->Arg(256);

void BM_Idforge_UlidToCharsBatch(benchmark::State& state) {
  std::vector<Ulid> pool;
  for (const Uuid& u : uuid_pool()) pool.push_back(Ulid::from_uuid(u));
  const std::span<const Ulid> ids(pool.data(), static_cast<std::size_t>(state.range(0)));
  std::string out(batch_text_size(ids.size(), Ulid::kTextSize, "\n"), '\0');
  for (auto _ : state) {
    to_chars(ids, out.data(), "\n");
    benchmark::DoNotOptimize(out.data());
  }
  per_id(state, ids.size());
}
BENCHMARK(BM_Idforge_UlidToCharsBatch)->Arg(256);

// ---------------------------------------------------------------------------------------
// libuuid (util-linux, Debian's uuid-dev)

void BM_Libuuid_GenerateRandom(benchmark::State& state) {
  uuid_t u;
  for (auto _ : state) {
    uuid_generate_random(u);
    benchmark::DoNotOptimize(u);
  }
}
BENCHMARK(BM_Libuuid_GenerateRandom);

void BM_Libuuid_GenerateTime(benchmark::State& state) {
  uuid_t u;
  for (auto _ : state) {
    uuid_generate_time(u);
    benchmark::DoNotOptimize(u);
  }
}
BENCHMARK(BM_Libuuid_GenerateTime);

void BM_Libuuid_Unparse(benchmark::State& state) {
  const auto pool = uuid_pool();
  char out[37];
  std::size_t i = 0;
  for (auto _ : state) {
    uuid_unparse_lower(pool[i++ % kPool].bytes().data(), out);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_Libuuid_Unparse);

void BM_Libuuid_Parse(benchmark::State& state) {
  const auto pool = text_pool([](const Uuid& u) { return u.to_string(); });
  uuid_t u;
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(uuid_parse(pool[i++ % kPool].c_str(), u));
    benchmark::DoNotOptimize(u);
  }
}
BENCHMARK(BM_Libuuid_Parse);

// ---------------------------------------------------------------------------------------
// Boost.UUID 1.81 (Debian's libboost1.81-dev)

void BM_Boost181_RandomGenerator(benchmark::State& state) {
  boost::uuids::random_generator gen;
  for (auto _ : state) benchmark::DoNotOptimize(gen());
}
BENCHMARK(BM_Boost181_RandomGenerator);

void BM_Boost181_RandomGeneratorMt19937(benchmark::State& state) {
  boost::uuids::random_generator_mt19937 gen;
  for (auto _ : state) benchmark::DoNotOptimize(gen());
}
BENCHMARK(BM_Boost181_RandomGeneratorMt19937);

void BM_Boost181_ToChars(benchmark::State& state) {
  std::vector<boost::uuids::uuid> pool(kPool);
  const auto ids = uuid_pool();
  for (std::size_t i = 0; i < kPool; ++i) std::memcpy(pool[i].data, ids[i].bytes().data(), 16);
  char out[36];
  std::size_t i = 0;
  for (auto _ : state) {
    boost::uuids::to_chars(pool[i++ % kPool], out, out + sizeof out);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_Boost181_ToChars);

void BM_Boost181_StringGenerator(benchmark::State& state) {
  const auto pool = text_pool([](const Uuid& u) { return u.to_string(); });
  boost::uuids::string_generator parse;
  std::size_t i = 0;
  for (auto _ : state) {
    const std::string& s = pool[i++ % kPool];
    benchmark::DoNotOptimize(parse(s.data(), s.data() + s.size()));
  }
}
BENCHMARK(BM_Boost181_StringGenerator);

}  // namespace

BENCHMARK_MAIN();
