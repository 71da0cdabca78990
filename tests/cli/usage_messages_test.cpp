// Usage errors (exit 2) say what is wrong with what: an unknown command names itself and
// the commands there are; a bad number says whether it is not a number or out of range.
#include <gtest/gtest.h>

#include "idforge/snowflake.hpp"
#include "one_line_error.hpp"
#include "run_command.hpp"

namespace idforge {
namespace {

using test::expect_one_line_error;
using test::run_idforge;

TEST(CliUsageMessages, AnUnknownCommandIsNamedWithTheKnownOnes) {
  expect_one_line_error(run_idforge({"gen", "nope"}), 2,
                        "'nope' is not a command of 'idforge gen': expected snowflake, uuid7, "
                        "uuid4, ulid, typeid, ksuid or token");
  expect_one_line_error(run_idforge({"nope"}), 2,
                        "'nope' is not a command of 'idforge': expected gen, inspect");
}

TEST(CliUsageMessages, AMissingCommandListsTheChoices) {
  expect_one_line_error(run_idforge({"gen"}), 2, "'idforge gen' needs a command: snowflake, uuid7");
  expect_one_line_error(run_idforge({}), 2, "'idforge' needs a command: gen, inspect");
}

TEST(CliUsageMessages, ACountThatIsNotANumberSaysSo) {
  expect_one_line_error(
      run_idforge({"gen", "uuid7", "-n", "abc"}), 2,
      "gen uuid7: --count: 'abc' is not a whole number (expected 1 to 100000000)");
  expect_one_line_error(run_idforge({"gen", "snowflake", "--node", "1", "-n", ""}), 2,
                        "'' is not a whole number");
}

TEST(CliUsageMessages, ACountOutOfRangeSaysSo) {
  expect_one_line_error(run_idforge({"gen", "ulid", "-n", "0"}), 2,
                        "--count: '0' is out of range (expected 1 to 100000000)");
  expect_one_line_error(run_idforge({"gen", "ulid", "-n", "99999999999999999999999"}), 2,
                        "'99999999999999999999999' is out of range");
}

TEST(CliUsageMessages, NegativeAndOverflowingNumbersAreRefusedNotWrapped) {
  // CLI11 alone read "-1" as 2^64-1 and clamped an overflow to it.
  expect_one_line_error(run_idforge({"gen", "snowflake", "--datacenter", "-1", "--worker", "0"}), 2,
                        "--datacenter: '-1' is not a whole number");
  expect_one_line_error(
      run_idforge({"gen", "snowflake", "--datacenter", "99999999999999999999", "--worker", "0"}), 2,
      "--datacenter: '99999999999999999999' is out of range");
  expect_one_line_error(
      run_idforge({"gen", "snowflake", "--node", "99999999999999999999999"}), 2,
      "--node '99999999999999999999999': out of range for layout 'twitter' (0..1023)");
}

// A --node that is no number is a bad option value like any other: usage error, exit 2.
TEST(CliUsageMessages, ANodeThatIsNoNumberIsAUsageError) {
  for (const char* node : {"0/5", "sometimes", "5x"})
    expect_one_line_error(run_idforge({"gen", "snowflake", "--node", node}), 2,
                          "--node '" + std::string(node) + "': expected a node number or 'auto'");
}

TEST(CliUsageMessages, LeadingZerosAreDecimalNotOctal) {
  const auto r = run_idforge({"gen", "snowflake", "--datacenter", "010", "--worker", "011"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const SnowflakeParts p = decompose(presets::twitter(), Snowflake(std::stoull(r.lines().at(0))));
  EXPECT_EQ(p.datacenter, 10u);
  EXPECT_EQ(p.worker, 11u);
}

#ifdef IDFORGE_TEST_HAVE_LAB
TEST(CliUsageMessages, RealNumbersRefuseNanAndInfinity) {
  expect_one_line_error(
      run_idforge({"lab", "cost", "--fill-from", "seed", "--usd-per-64gb", "nan"}), 2,
      "--usd-per-64gb: 'nan' is not a number");
  expect_one_line_error(run_idforge({"lab", "btree", "--rightmost-fill", "inf"}), 2,
                        "--rightmost-fill: 'inf' is not a number");
  expect_one_line_error(run_idforge({"lab", "btree", "--pool-pages", "-1"}), 2,
                        "--pool-pages: '-1' is not a whole number");
}
#endif

#ifdef IDFORGE_TEST_HAVE_TICKET
TEST(CliUsageMessages, SignedNumbersRefuseOverflow) {
  expect_one_line_error(run_idforge({"seq", "create", "x", "--store", "sqlite::memory:", "--start",
                                     "99999999999999999999"}),
                        2, "--start: '99999999999999999999' is out of range");
}
#endif

}  // namespace
}  // namespace idforge
