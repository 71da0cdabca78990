// The C ABI (libidforge.so) beside the C++ generators it wraps, in one run: what crossing
// the boundary (a PLT call, the status code, the catch-all) adds to each ID. The bindings'
// own benchmarks (python_bench.py, bindings/node/bench/bench.js) add the language's call on
// top; together they say where the time of one ID goes.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "idforge/idforge.h"
#include "idforge/mask_keyring.hpp"
#include "idforge/snowflake_generator.hpp"
#include "idforge/snowflake_layout.hpp"
#include "idforge/uuid_generator.hpp"

namespace {

// 2^18 IDs per ms per node: the rows measure a call, not the wait for the next tick.
constexpr const char* kWide = "time=41,dc=0,worker=4,seq=18";

void BM_cpp_snowflake_next(benchmark::State& state) {
  idforge::SharedSnowflakeGenerator gen(idforge::parse_layout(kWide), 1);
  for (auto _ : state) benchmark::DoNotOptimize(gen.next());
}
BENCHMARK(BM_cpp_snowflake_next);

void BM_c_snowflake_next(benchmark::State& state) {
  idforge_snowflake* gen = nullptr;
  if (idforge_snowflake_new(kWide, 1, nullptr, &gen) != IDFORGE_OK) {
    state.SkipWithError(idforge_last_error());
    return;
  }
  std::uint64_t id;
  for (auto _ : state) {
    benchmark::DoNotOptimize(idforge_snowflake_next(gen, &id));
    benchmark::DoNotOptimize(id);
  }
  idforge_snowflake_free(gen);
}
BENCHMARK(BM_c_snowflake_next);

void BM_c_snowflake_next_batch_1000(benchmark::State& state) {
  idforge_snowflake* gen = nullptr;
  if (idforge_snowflake_new(kWide, 1, nullptr, &gen) != IDFORGE_OK) {
    state.SkipWithError(idforge_last_error());
    return;
  }
  std::vector<std::uint64_t> ids(1000);
  for (auto _ : state) {
    benchmark::DoNotOptimize(idforge_snowflake_next_batch(gen, ids.data(), ids.size(), nullptr));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * 1000);
  idforge_snowflake_free(gen);
}
BENCHMARK(BM_c_snowflake_next_batch_1000);

void BM_cpp_shared_uuid7(benchmark::State& state) {
  idforge::SharedUuidV7Generator gen;
  for (auto _ : state) benchmark::DoNotOptimize(gen.next());
}
BENCHMARK(BM_cpp_shared_uuid7);

void BM_c_make_uuid7(benchmark::State& state) {
  idforge_uuid u;
  for (auto _ : state) {
    benchmark::DoNotOptimize(idforge_make_uuid7(&u));
    benchmark::DoNotOptimize(u);
  }
}
BENCHMARK(BM_c_make_uuid7);

void BM_c_make_uuid7_and_format(benchmark::State& state) {
  idforge_uuid u;
  char text[IDFORGE_UUID_TEXT_SIZE];
  for (auto _ : state) {
    idforge_make_uuid7(&u);
    benchmark::DoNotOptimize(idforge_uuid_format(&u, text, sizeof text));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_c_make_uuid7_and_format);

void BM_cpp_uuid_v4(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(idforge::new_uuid_v4());
}
BENCHMARK(BM_cpp_uuid_v4);

void BM_c_make_uuid4(benchmark::State& state) {
  idforge_uuid u;
  for (auto _ : state) {
    benchmark::DoNotOptimize(idforge_make_uuid4(&u));
    benchmark::DoNotOptimize(u);
  }
}
BENCHMARK(BM_c_make_uuid4);

void BM_c_make_ulid(benchmark::State& state) {
  idforge_ulid u;
  for (auto _ : state) {
    benchmark::DoNotOptimize(idforge_make_ulid(&u));
    benchmark::DoNotOptimize(u);
  }
}
BENCHMARK(BM_c_make_ulid);

// Masking: the core's MaskKey::mask_u63 beside idforge_mask_u63 (the keyring lookup of the
// primary, the status, the catch-all), raw and public, under the same fixed (public) key.
constexpr const char* kMaskKey =
    "1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

void BM_cpp_mask_u63(benchmark::State& state) {
  const auto ring = idforge::MaskKeyring::parse(kMaskKey, "bench");
  std::uint64_t v = 4001;
  for (auto _ : state) benchmark::DoNotOptimize(ring.primary().mask_u63(++v));
}
BENCHMARK(BM_cpp_mask_u63);

void BM_c_mask_u63(benchmark::State& state) {
  idforge_mask_keyring* kr = nullptr;
  if (idforge_mask_keyring_from_text(kMaskKey, std::char_traits<char>::length(kMaskKey), &kr) !=
      IDFORGE_OK) {
    state.SkipWithError(idforge_last_error());
    return;
  }
  std::uint64_t v = 4001, out;
  for (auto _ : state) {
    benchmark::DoNotOptimize(idforge_mask_u63(kr, IDFORGE_MASK_KEY_PRIMARY, ++v, &out));
    benchmark::DoNotOptimize(out);
  }
  idforge_mask_keyring_free(kr);
}
BENCHMARK(BM_c_mask_u63);

void BM_c_mask_public_u63(benchmark::State& state) {
  idforge_mask_keyring* kr = nullptr;
  if (idforge_mask_keyring_from_text(kMaskKey, std::char_traits<char>::length(kMaskKey), &kr) !=
      IDFORGE_OK) {
    state.SkipWithError(idforge_last_error());
    return;
  }
  std::uint64_t v = 4001;
  char text[IDFORGE_PUBLIC_ID_TEXT_SIZE];
  for (auto _ : state) {
    benchmark::DoNotOptimize(idforge_mask_public_u63(kr, IDFORGE_MASK_KEY_PRIMARY, ++v,
                                                     IDFORGE_BASE58, text, sizeof text));
    benchmark::ClobberMemory();
  }
  idforge_mask_keyring_free(kr);
}
BENCHMARK(BM_c_mask_public_u63);

}  // namespace

BENCHMARK_MAIN();
