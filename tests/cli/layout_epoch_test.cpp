// An epoch before 1970 is refused with the rule: the epoch must be a date from 1970 on.
#include <gtest/gtest.h>

#include "one_line_error.hpp"
#include "run_command.hpp"

namespace idforge {
namespace {

using test::expect_one_line_error;
using test::run_idforge;

TEST(CliLayoutEpoch, ANegativeEpochSaysItMustBeFrom1970) {
  for (const char* spec : {"twitter,epoch=-1", "time=41,node=10,seq=12,epoch=-1288834974657"}) {
    const auto r = run_idforge({"layout", spec});
    expect_one_line_error(r, 1, "epoch must be a date from 1970-01-01 on");
    EXPECT_EQ(r.err.find("4 digits of year"), std::string::npos) << r.err;
  }
}

TEST(CliLayoutEpoch, AnIsoDateBefore1970SaysTheSame) {
  expect_one_line_error(run_idforge({"layout", "twitter,epoch=1969-12-31T00:00:00Z"}), 1,
                        "the epoch must be a date from 1970 on");
}

TEST(CliLayoutEpoch, AnEpochPastTheYear9999IsNotPrintedAsANegativeYear) {
  const auto r = run_idforge({"layout", "twitter,epoch=9223372036854775807"});
  expect_one_line_error(r, 1, "epoch after 9999-12-31 (9223372036854775807 ms) is after now");
}

}  // namespace
}  // namespace idforge
