// js_safe says whether JavaScript reads the ID back exactly: true up to 2^53 - 1
// (Number.MAX_SAFE_INTEGER), false from 2^53 on; a JSON boolean, never the string "false"
// (which a JavaScript `if` would take as true).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "run_command.hpp"

namespace idforge {
namespace {

using test::run_idforge;

nlohmann::json js_safe_of(const std::string& id) {
  const auto r = run_idforge({"inspect", "--json", id});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  return j.contains("js_safe") ? j["js_safe"] : nlohmann::json("missing in " + r.out);
}

TEST(CliInspectJsSafe, TheLargestSafeIntegerIsSafe) {
  EXPECT_EQ(js_safe_of("9007199254740991"), nlohmann::json(true));
}

TEST(CliInspectJsSafe, TwoToThe53IsNot) {
  EXPECT_EQ(js_safe_of("9007199254740992"), nlohmann::json(false));
  EXPECT_EQ(js_safe_of("9007199254740993"), nlohmann::json(false));
}

TEST(CliInspectJsSafe, TextOutputStillSaysTrueOrFalse) {
  const auto r = run_idforge({"inspect", "9007199254740992"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  js_safe    false\n"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace idforge
