// Masking: ns per call for each mode, beside the floor it cannot beat (one SipHash-2-4 call
// of libsodium, the round function: a mask is 10 of them in sequence) and an unkeyed
// encoding of the same value (idforge's base62, what Sqids/Hashids-style encoders do with
// no secret). One thread; inputs cycle through a pool so branches and caches see varied
// values. Rows marked "chained" feed each output into the next call: latency rather than
// the overlap an out-of-order core finds between independent calls.
//
// Run: build/bench/idforge_bench_mask --benchmark_repetitions=5 \
//        --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <sodium.h>

#include <cstdint>
#include <random>
#include <vector>

#include "idforge/int_codec.hpp"
#include "idforge/public_id.hpp"
#include "idforge/uuid_generator.hpp"

namespace {

using namespace idforge;

constexpr std::size_t kPool = 1024;

const MaskKeyring& ring() {
  static const MaskKeyring r = MaskKeyring::parse(new_mask_key_line(1), "bench");
  return r;
}

std::vector<std::uint64_t> u63_pool() {
  std::vector<std::uint64_t> v(kPool);
  std::mt19937_64 rng(1);
  for (auto& x : v) x = (rng() >> 1) | 1;
  return v;
}

std::vector<Uuid> v7_pool() {
  std::vector<Uuid> v(kPool);
  UuidV7Generator gen;
  for (auto& x : v) x = gen.next();
  return v;
}

// ---------------------------------------------------------------------------------------
// Floor: the round function

void BM_Floor_SipHash24_4Bytes(benchmark::State& state) {
  unsigned char key[crypto_shorthash_KEYBYTES];
  randombytes_buf(key, sizeof key);
  const auto pool = u63_pool();
  std::size_t i = 0;
  for (auto _ : state) {
    unsigned char out[8];
    crypto_shorthash(out, reinterpret_cast<const unsigned char*>(&pool[i++ % kPool]), 4, key);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_Floor_SipHash24_4Bytes);

// The same call with each output fed into the next input: the latency a Feistel round pays,
// since round i + 1 needs round i's result.
void BM_Floor_SipHash24_4Bytes_Chained(benchmark::State& state) {
  unsigned char key[crypto_shorthash_KEYBYTES];
  randombytes_buf(key, sizeof key);
  unsigned char buf[8] = {1};
  for (auto _ : state) crypto_shorthash(buf, buf, 4, key);
  benchmark::DoNotOptimize(buf);
}
BENCHMARK(BM_Floor_SipHash24_4Bytes_Chained);

void BM_Floor_SipHash24_8Bytes(benchmark::State& state) {
  unsigned char key[crypto_shorthash_KEYBYTES];
  randombytes_buf(key, sizeof key);
  const auto pool = u63_pool();
  std::size_t i = 0;
  for (auto _ : state) {
    unsigned char out[8];
    crypto_shorthash(out, reinterpret_cast<const unsigned char*>(&pool[i++ % kPool]), 8, key);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_Floor_SipHash24_8Bytes);

// ---------------------------------------------------------------------------------------
// Peer: an unkeyed encoding of the same number

void BM_Peer_Base62Unkeyed_U63(benchmark::State& state) {
  const auto pool = u63_pool();
  std::size_t i = 0;
  for (auto _ : state) {
    char out[11];
    encode_base62_u64(pool[i++ % kPool], out);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_Peer_Base62Unkeyed_U63);

// ---------------------------------------------------------------------------------------
// Masking

void BM_Mask_U63(benchmark::State& state) {
  const MaskKey& key = ring().primary();
  const auto pool = u63_pool();
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(key.mask_u63(pool[i++ % kPool]));
}
BENCHMARK(BM_Mask_U63);

void BM_Unmask_U63(benchmark::State& state) {
  const MaskKey& key = ring().primary();
  auto pool = u63_pool();
  for (auto& x : pool) x = key.mask_u63(x);
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(key.unmask_u63(pool[i++ % kPool]));
}
BENCHMARK(BM_Unmask_U63);

void BM_Mask_U63_Chained(benchmark::State& state) {
  const MaskKey& key = ring().primary();
  std::uint64_t x = 1;
  for (auto _ : state) x = key.mask_u63(x);
  benchmark::DoNotOptimize(x);
}
BENCHMARK(BM_Mask_U63_Chained);

void BM_Mask_U128(benchmark::State& state) {
  const MaskKey& key = ring().primary();
  const auto pool = v7_pool();
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(key.mask_u128(pool[i++ % kPool]));
}
BENCHMARK(BM_Mask_U128);

void BM_Unmask_U128(benchmark::State& state) {
  const MaskKey& key = ring().primary();
  auto pool = v7_pool();
  for (auto& x : pool) x = key.mask_u128(x);
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(key.unmask_u128(pool[i++ % kPool]));
}
BENCHMARK(BM_Unmask_U128);

void BM_Mask_V7AsV4(benchmark::State& state) {
  const MaskKey& key = ring().primary();
  const auto pool = v7_pool();
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(key.mask_v7(pool[i++ % kPool]));
}
BENCHMARK(BM_Mask_V7AsV4);

void BM_Unmask_V4ToV7(benchmark::State& state) {
  const MaskKey& key = ring().primary();
  auto pool = v7_pool();
  for (auto& x : pool) x = key.mask_v7(x);
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(key.unmask_v4(pool[i++ % kPool]));
}
BENCHMARK(BM_Unmask_V4ToV7);

// ---------------------------------------------------------------------------------------
// Public text: mask + tag + base58 + check, and the way back

void BM_PublicId_Write_U63(benchmark::State& state) {
  const MaskKey& key = ring().primary();
  const auto pool = u63_pool();
  std::size_t i = 0;
  for (auto _ : state) {
    char out[kMaxPublicIdSize];
    benchmark::DoNotOptimize(
        write_public_id(key, MaskMode::u63, {0, pool[i++ % kPool]}, PublicAlphabet::base58, out));
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_PublicId_Write_U63);

void BM_PublicId_Read_U63(benchmark::State& state) {
  std::vector<std::string> texts;
  for (auto v : u63_pool()) texts.push_back(to_public_id(ring().primary(), MaskMode::u63, {0, v}));
  std::size_t i = 0;
  for (auto _ : state) {
    PublicIdInfo info;
    benchmark::DoNotOptimize(
        read_public_id(ring(), texts[i++ % kPool], PublicAlphabet::base58, info));
    benchmark::DoNotOptimize(info);
  }
}
BENCHMARK(BM_PublicId_Read_U63);

void BM_PublicId_Write_V7(benchmark::State& state) {
  const MaskKey& key = ring().primary();
  const auto pool = v7_pool();
  std::size_t i = 0;
  for (auto _ : state) {
    char out[kMaxPublicIdSize];
    benchmark::DoNotOptimize(write_public_id(
        key, MaskMode::v7_as_v4, MaskValue::of(pool[i++ % kPool]), PublicAlphabet::base58, out));
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_PublicId_Write_V7);

}  // namespace

BENCHMARK_MAIN();
