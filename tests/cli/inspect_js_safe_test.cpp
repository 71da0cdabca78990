// js_safe says whether JavaScript reads the ID back exactly: true up to 2^53 - 1
// (Number.MAX_SAFE_INTEGER), false from 2^53 on.
#include <gtest/gtest.h>

#include "run_command.hpp"

namespace idforge {
namespace {

using test::run_idforge;

std::string js_safe_of(const std::string& id) {
  const auto r = run_idforge({"inspect", "--json", id});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto at = r.out.find(R"("js_safe":)");
  if (at == std::string::npos) return "missing in " + r.out;
  const auto start = r.out.find('"', at + 10) + 1;
  return r.out.substr(start, r.out.find('"', start) - start);
}

TEST(CliInspectJsSafe, TheLargestSafeIntegerIsSafe) {
  EXPECT_EQ(js_safe_of("9007199254740991"), "true");
}

TEST(CliInspectJsSafe, TwoToThe53IsNot) {
  EXPECT_EQ(js_safe_of("9007199254740992"), "false");
  EXPECT_EQ(js_safe_of("9007199254740993"), "false");
}

}  // namespace
}  // namespace idforge
