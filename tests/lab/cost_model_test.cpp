// The cost model reproduces seed 000's tables from the seed's own fills.
#include <gtest/gtest.h>

#include "idforge/error.hpp"
#include "idforge/lab/cost_model.hpp"

namespace idforge::lab {
namespace {

TEST(CostModel, ReproducesTheSeedsTables) {
  const auto rows = cost_table(seed_cost_inputs());
  ASSERT_EQ(rows.size(), 4u);
  // Raw ID storage: 40, 80, 80, 180 GB.
  EXPECT_DOUBLE_EQ(rows[0].raw_bytes, 40e9);
  EXPECT_DOUBLE_EQ(rows[1].raw_bytes, 80e9);
  EXPECT_DOUBLE_EQ(rows[3].raw_bytes, 180e9);
  // Real index size: ~42, ~85, ~115, ~257 GB.
  EXPECT_NEAR(rows[0].index_bytes / 1e9, 42, 0.5);
  EXPECT_NEAR(rows[1].index_bytes / 1e9, 84.2, 0.5);
  EXPECT_NEAR(rows[2].index_bytes / 1e9, 114.3, 0.5);
  EXPECT_NEAR(rows[3].index_bytes / 1e9, 257.1, 0.5);
  // Servers: 64, 128, 128 (tight), 512 GB; $650, $1,300, $1,300, $5,200 a month.
  EXPECT_EQ(rows[0].server_gb, 64);
  EXPECT_EQ(rows[1].server_gb, 128);
  EXPECT_FALSE(rows[1].tight);
  EXPECT_EQ(rows[2].server_gb, 128);
  EXPECT_TRUE(rows[2].tight);
  EXPECT_EQ(rows[3].server_gb, 512);
  EXPECT_DOUBLE_EQ(rows[0].usd_per_month, 650);
  EXPECT_DOUBLE_EQ(rows[1].usd_per_month, 1300);
  EXPECT_DOUBLE_EQ(rows[3].usd_per_month, 5200);
}

TEST(CostModel, RefusesImpossibleInputs) {
  EXPECT_THROW(cost_table({{KeyKind::uuid4, 0, "x"}}), Error);
  EXPECT_THROW(cost_table({{KeyKind::uuid4, 1.2, "x"}}), Error);
  CostOptions o;
  o.copies = 0;
  EXPECT_THROW(cost_table(seed_cost_inputs(), o), Error);
  o = {};
  o.rows = 0;
  EXPECT_THROW(cost_table(seed_cost_inputs(), o), Error);
}

}  // namespace
}  // namespace idforge::lab
