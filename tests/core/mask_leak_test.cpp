// Leak checks: masked outputs of consecutive inputs show no order (Spearman rank
// correlation near 0, rises as often as falls) and consecutive Snowflakes and UUIDv7s
// share no more leading characters than random strings do. Each test prints its figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "idforge/clock.hpp"
#include "idforge/public_id.hpp"
#include "idforge/snowflake_generator.hpp"
#include "idforge/snowflake_layout.hpp"
#include "idforge/uuid_generator.hpp"
#include "mask_support.hpp"

namespace idforge {
namespace {

const MaskKey& key() {
  static const MaskKey k(1, test::kDescendingSecret);
  return k;
}

// Spearman's rho between position i and ys[i]: 1 - 6 sum(d^2) / (n (n^2 - 1)), with the
// sum of squared rank differences exact in 128 bits. For an order-free sequence it is
// about normal with standard deviation 1/sqrt(n - 1).
template <typename T>
double spearman_against_position(const std::vector<T>& ys) {
  const std::size_t n = ys.size();
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return ys[a] < ys[b]; });
  __extension__ unsigned __int128 sum = 0;
  for (std::size_t rank = 0; rank < n; ++rank) {
    const std::int64_t d = static_cast<std::int64_t>(rank) - static_cast<std::int64_t>(order[rank]);
    sum += static_cast<std::uint64_t>(d * d);
  }
  const long double nn = static_cast<long double>(n);
  return static_cast<double>(1.0L - 6.0L * static_cast<long double>(sum) / (nn * (nn * nn - 1.0L)));
}

template <typename T>
double rise_fraction(const std::vector<T>& ys) {
  std::size_t rises = 0;
  for (std::size_t i = 1; i < ys.size(); ++i) rises += ys[i - 1] < ys[i];
  return static_cast<double>(rises) / static_cast<double>(ys.size() - 1);
}

std::size_t common_prefix(const std::string& a, const std::string& b) {
  std::size_t k = 0;
  while (k < a.size() && k < b.size() && a[k] == b[k]) ++k;
  return k;
}

struct PrefixStats {
  double mean = 0;
  std::size_t max = 0;
};
PrefixStats consecutive_prefixes(const std::vector<std::string>& texts) {
  PrefixStats s;
  for (std::size_t i = 1; i < texts.size(); ++i) {
    const std::size_t p = common_prefix(texts[i - 1], texts[i]);
    s.mean += static_cast<double>(p);
    s.max = std::max(s.max, p);
  }
  s.mean /= static_cast<double>(texts.size() - 1);
  return s;
}

TEST(MaskLeak, MaskedOneToAMillionHasNoRankCorrelation) {
  constexpr std::uint64_t kN = 1'000'000;
  std::vector<std::uint64_t> masked(kN);
  for (std::uint64_t i = 1; i <= kN; ++i) masked[i - 1] = key().mask_u63(i);
  const double rho = spearman_against_position(masked);
  const double rises = rise_fraction(masked);
  const double sigma = 1.0 / std::sqrt(static_cast<double>(kN - 1));
  std::printf("u63 1..1e6: Spearman rho = %+.6f (sigma %.6f), rises %.6f\n", rho, sigma, rises);
  EXPECT_LT(std::abs(rho), 5 * sigma);
  EXPECT_NEAR(rises, 0.5, 0.005);
  // The same statistic on the unmasked input is 1: the check can see order when it is there.
  std::vector<std::uint64_t> plain(kN);
  std::iota(plain.begin(), plain.end(), 1u);
  EXPECT_DOUBLE_EQ(spearman_against_position(plain), 1.0);
}

TEST(MaskLeak, ConsecutiveV7sMaskedToV4HaveNoRankCorrelation) {
  ManualClock clock(1'700'000'000'000'000'000);
  UuidV7Generator gen(clock);
  constexpr std::size_t kN = 200'000;
  std::vector<Uuid> masked(kN);
  for (std::size_t i = 0; i < kN; ++i) {
    if (i % 100 == 0) clock.advance_ms(1);
    masked[i] = key().mask_v7(gen.next());
  }
  const double rho = spearman_against_position(masked);
  std::printf("v7->v4, 2e5 consecutive: Spearman rho = %+.6f (sigma %.6f), rises %.6f\n", rho,
              1.0 / std::sqrt(kN - 1.0), rise_fraction(masked));
  EXPECT_LT(std::abs(rho), 5 / std::sqrt(kN - 1.0));
  EXPECT_NEAR(rise_fraction(masked), 0.5, 0.01);
}

TEST(MaskLeak, ConsecutiveSnowflakesShareNoVisiblePrefix) {
  // 20,000 Snowflakes of one node, 4,096 per millisecond: neighbours differ in the last
  // bits only, and their decimal text shares about 18 leading digits.
  ManualClock clock(1'700'000'000'000'000'000);
  SharedSnowflakeGenerator gen(presets::twitter(), 7, clock);
  std::mt19937_64 rng(3);
  std::vector<std::string> plain, masked_dec, masked_hex, masked_text, random_dec, random_hex;
  const auto hex = [](std::uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return std::string(buf);
  };
  for (int i = 0; i < 20'000; ++i) {
    if (i % 4096 == 4095) clock.advance_ms(1);
    const std::uint64_t id = gen.next().value();
    const std::uint64_t m = key().mask_u63(id), r = rng() >> 1;
    plain.push_back(std::to_string(id));
    masked_dec.push_back(std::to_string(m));
    masked_hex.push_back(hex(m));
    masked_text.push_back(to_public_id(key(), MaskMode::u63, {0, id}));
    random_dec.push_back(std::to_string(r));
    random_hex.push_back(hex(r));
  }
  const PrefixStats p = consecutive_prefixes(plain), d = consecutive_prefixes(masked_dec),
                    h = consecutive_prefixes(masked_hex), t = consecutive_prefixes(masked_text),
                    rd = consecutive_prefixes(random_dec), rh = consecutive_prefixes(random_hex);
  std::printf(
      "consecutive Snowflakes, mean (max) shared leading characters: plain decimal %.2f (%zu); "
      "masked decimal %.4f (%zu), random 63-bit decimal %.4f; masked hex %.4f (%zu), random hex "
      "%.4f; public base58 %.4f (%zu), random about 0.046\n",
      p.mean, p.max, d.mean, d.max, rd.mean, h.mean, h.max, rh.mean, t.mean, t.max);
  EXPECT_GT(p.mean, 10.0) << "the unmasked IDs do share a prefix";
  // Masked neighbours look like random pairs: within a few standard errors of the same
  // statistic on random 63-bit values (about 0.01 here).
  EXPECT_LT(d.mean, rd.mean + 0.03);
  EXPECT_LT(h.mean, rh.mean + 0.03);
  EXPECT_LE(h.max, 6u);
  // base58: the first character has 22 values, the rest 58: mean about 1/22 + 1/(22*58).
  EXPECT_LT(t.mean, 0.08);
  EXPECT_LE(t.max, 4u);
}

TEST(MaskLeak, ConsecutiveV7sShareNoVisiblePrefixOnceMasked) {
  ManualClock clock(1'700'000'000'000'000'000);
  UuidV7Generator gen(clock);
  std::vector<std::string> plain, masked;
  for (int i = 0; i < 20'000; ++i) {
    if (i % 50 == 0) clock.advance_ms(1);
    const Uuid v7 = gen.next();
    plain.push_back(v7.to_string());
    masked.push_back(key().mask_v7(v7).to_string());
  }
  const PrefixStats p = consecutive_prefixes(plain), m = consecutive_prefixes(masked);
  std::printf(
      "consecutive UUIDv7, shared leading characters: plain mean %.2f; masked v4 mean %.4f max %zu "
      "(random hex: 1/15 = 0.0667)\n",
      p.mean, m.mean, m.max);
  EXPECT_GT(p.mean, 10.0);
  EXPECT_LT(m.mean, 0.12);
  EXPECT_LE(m.max, 6u);
}

}  // namespace
}  // namespace idforge
