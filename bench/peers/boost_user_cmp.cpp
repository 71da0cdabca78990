// UUID text as a user of the installed library sees it, beside Boost.UUID in one program:
// idforge from its installed headers and Release libidforge_core.a (default flags, so the
// text kernel is chosen at run time and reached through the library's call), Boost inlined
// from its headers. Each row takes UUIDs (or texts) from a pool of 1,024 and is read two
// ways, as the two harnesses that disagreed read it:
//
// - sink: the output is handed to benchmark::DoNotOptimize after each call (the text stays
//   in memory, each call's stores must happen; bench/peers/boost_cmp.cpp reads it so);
// - checksum: the output is folded into a running sum that is read once at the end (what a
//   program that uses the text does; an inlined codec may then keep its result in
//   registers and overlap one call's work with the next);
// - loop: each iteration runs over the whole pool in an inner loop, folded into the
//   checksum, and the time is divided by 1,024 (an inlined codec may then be unrolled and
//   interleaved across UUIDs, which a call into a library never is).
//
// Not built by CMake: scripts/bench_boost.sh --user compiles it against an installed tree
// and Boost.UUID's development head.
#include <benchmark/benchmark.h>

#include <boost/uuid/uuid.hpp>
#include <boost/uuid/uuid_io.hpp>
#if __has_include(<boost/uuid/detail/from_chars.hpp>)
#define IDF_BOOST_FROM_CHARS 1
#else
#include <boost/uuid/string_generator.hpp>
#endif
#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "idforge/detail/text_path.hpp"
#include "idforge/uuid.hpp"

namespace {

constexpr std::size_t kPool = 1024;

std::vector<idforge::Uuid> pool() {
  std::mt19937_64 rng(42);  // fixed: every run formats the same values
  std::vector<idforge::Uuid> v(kPool);
  for (auto& u : v) {
    std::array<std::uint8_t, 16> b{};
    for (auto& x : b) x = static_cast<std::uint8_t>(rng());
    b[6] = static_cast<std::uint8_t>((b[6] & 0x0f) | 0x40);
    b[8] = static_cast<std::uint8_t>((b[8] & 0x3f) | 0x80);
    u = idforge::Uuid(b);
  }
  return v;
}

std::vector<boost::uuids::uuid> boost_pool() {
  std::vector<boost::uuids::uuid> v(kPool);
  const auto ids = pool();
  for (std::size_t i = 0; i < kPool; ++i) std::memcpy(v[i].data, ids[i].bytes().data(), 16);
  return v;
}

std::vector<std::string> texts() {
  std::vector<std::string> v;
  for (const auto& u : pool()) v.push_back(u.to_string());
  return v;
}

// The 36 bytes of a text folded into 64 bits (every byte counts).
inline std::uint64_t fold36(const char* p) noexcept {
  std::uint64_t a, b, c, d;
  std::uint32_t e;
  std::memcpy(&a, p, 8);
  std::memcpy(&b, p + 8, 8);
  std::memcpy(&c, p + 16, 8);
  std::memcpy(&d, p + 24, 8);
  std::memcpy(&e, p + 32, 4);
  return a + (b ^ c) + d * 3 + e;
}

inline std::uint64_t fold16(const std::uint8_t* p) noexcept {
  std::uint64_t a, b;
  std::memcpy(&a, p, 8);
  std::memcpy(&b, p + 8, 8);
  return a ^ (b * 3);
}

void idforge_to_chars_sink(benchmark::State& state) {
  const auto ids = pool();
  char out[36];
  std::size_t i = 0;
  for (auto _ : state) {
    ids[i++ % kPool].to_chars(out);
    benchmark::DoNotOptimize(out);
  }
}

void boost_to_chars_sink(benchmark::State& state) {
  const auto ids = boost_pool();
  char out[36];
  std::size_t i = 0;
  for (auto _ : state) {
    boost::uuids::to_chars(ids[i++ % kPool], out, out + 36);
    benchmark::DoNotOptimize(out);
  }
}

void idforge_to_chars_checksum(benchmark::State& state) {
  const auto ids = pool();
  char out[36];
  std::size_t i = 0;
  std::uint64_t sum = 0;
  for (auto _ : state) {
    ids[i++ % kPool].to_chars(out);
    sum += fold36(out);
  }
  benchmark::DoNotOptimize(sum);
}

void boost_to_chars_checksum(benchmark::State& state) {
  const auto ids = boost_pool();
  char out[36];
  std::size_t i = 0;
  std::uint64_t sum = 0;
  for (auto _ : state) {
    boost::uuids::to_chars(ids[i++ % kPool], out, out + 36);
    sum += fold36(out);
  }
  benchmark::DoNotOptimize(sum);
}

// The whole pool in one inner loop per iteration, folded into the checksum; per UUID.
void idforge_to_chars_loop(benchmark::State& state) {
  const auto ids = pool();
  char out[36];
  std::uint64_t sum = 0;
  for (auto _ : state)
    for (const auto& u : ids) {
      u.to_chars(out);
      sum += fold36(out);
    }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kPool));
}

void boost_to_chars_loop(benchmark::State& state) {
  const auto ids = boost_pool();
  char out[36];
  std::uint64_t sum = 0;
  for (auto _ : state)
    for (const auto& u : ids) {
      boost::uuids::to_chars(u, out, out + 36);
      sum += fold36(out);
    }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kPool));
}

void idforge_parse_sink(benchmark::State& state) {
  const auto t = texts();
  idforge::Uuid u;
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(idforge::parse_uuid(t[i++ % kPool], u));
    benchmark::DoNotOptimize(u);
  }
}

void boost_parse_sink(benchmark::State& state) {
  const auto t = texts();
  boost::uuids::uuid u;
  std::size_t i = 0;
#ifdef IDF_BOOST_FROM_CHARS
  for (auto _ : state) {
    const std::string& s = t[i++ % kPool];
    benchmark::DoNotOptimize(boost::uuids::from_chars(s.data(), s.data() + s.size(), u));
    benchmark::DoNotOptimize(u);
  }
#else
  const boost::uuids::string_generator parse;
  for (auto _ : state) {
    u = parse(t[i++ % kPool]);
    benchmark::DoNotOptimize(u);
  }
#endif
}

void idforge_parse_checksum(benchmark::State& state) {
  const auto t = texts();
  idforge::Uuid u;
  std::size_t i = 0;
  std::uint64_t sum = 0;
  for (auto _ : state) {
    sum += static_cast<std::uint64_t>(idforge::parse_uuid(t[i++ % kPool], u).ok());
    sum += fold16(u.bytes().data());
  }
  benchmark::DoNotOptimize(sum);
}

void boost_parse_checksum(benchmark::State& state) {
  const auto t = texts();
  boost::uuids::uuid u;
  std::size_t i = 0;
  std::uint64_t sum = 0;
#ifdef IDF_BOOST_FROM_CHARS
  for (auto _ : state) {
    const std::string& s = t[i++ % kPool];
    sum += static_cast<std::uint64_t>(
        static_cast<bool>(boost::uuids::from_chars(s.data(), s.data() + s.size(), u)));
    sum += fold16(u.data);
  }
#else
  const boost::uuids::string_generator parse;
  for (auto _ : state) {
    u = parse(t[i++ % kPool]);
    sum += fold16(u.data);
  }
#endif
  benchmark::DoNotOptimize(sum);
}

void idforge_parse_loop(benchmark::State& state) {
  const auto t = texts();
  idforge::Uuid u;
  std::uint64_t sum = 0;
  for (auto _ : state)
    for (const auto& s : t) {
      sum += static_cast<std::uint64_t>(idforge::parse_uuid(s, u).ok());
      sum += fold16(u.bytes().data());
    }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kPool));
}

void boost_parse_loop(benchmark::State& state) {
  const auto t = texts();
  boost::uuids::uuid u;
  std::uint64_t sum = 0;
  for (auto _ : state)
    for (const auto& s : t) {
#ifdef IDF_BOOST_FROM_CHARS
      sum += static_cast<std::uint64_t>(
          static_cast<bool>(boost::uuids::from_chars(s.data(), s.data() + s.size(), u)));
#else
      u = boost::uuids::string_generator()(s);
#endif
      sum += fold16(u.data);
    }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kPool));
}

}  // namespace

BENCHMARK(idforge_to_chars_loop);
BENCHMARK(boost_to_chars_loop);
BENCHMARK(idforge_parse_loop);
BENCHMARK(boost_parse_loop);
BENCHMARK(idforge_to_chars_sink);
BENCHMARK(boost_to_chars_sink);
BENCHMARK(idforge_to_chars_checksum);
BENCHMARK(boost_to_chars_checksum);
BENCHMARK(idforge_parse_sink);
BENCHMARK(boost_parse_sink);
BENCHMARK(idforge_parse_checksum);
BENCHMARK(boost_parse_checksum);
// The text path the library chose on this CPU goes into the JSON's context: on a CPU (or a
// virtual machine) that does not report AVX2 with the OS's support for its registers, it
// is ssse3, and the rows compare that path.
int main(int argc, char** argv) {
  benchmark::AddCustomContext("idforge_text_path",
                              idforge::detail::to_string(idforge::detail::text_path()));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
