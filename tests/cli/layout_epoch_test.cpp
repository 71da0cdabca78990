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

// A time past 9999-12-31 is shown the same way by `inspect` and `layout`: named, not
// wrapped into a wrong year (inspect printed year 10891 for 2^63 - 1 ms).
TEST(CliLayoutEpoch, InspectAndLayoutShowATimePastTheYear9999Alike) {
  const std::string spec = "time=63,dc=0,worker=0,seq=0,signed";
  const auto inspect = run_idforge({"inspect", "--layout", spec, "9223372036854775807"});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_NE(inspect.out.find("after 9999-12-31"), std::string::npos) << inspect.out;
  EXPECT_EQ(inspect.out.find("10891"), std::string::npos) << inspect.out;
  const auto layout = run_idforge({"layout", spec});
  ASSERT_EQ(layout.exit_code, 0) << layout.err;
  EXPECT_NE(layout.out.find("time ends   after 9999-12-31"), std::string::npos) << layout.out;
}

}  // namespace
}  // namespace idforge
