// Whatever the arguments or the files they name, idforge ends with one line and exit 1 or 2,
// never with "terminate called" (exit 134): every exception reaches main.
#include <gtest/gtest.h>

#include "one_line_error.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

namespace idforge {
namespace {

using test::expect_one_line_error;
using test::run_idforge;
using test::ScratchDir;

#ifdef IDFORGE_TEST_HAVE_SERVER
TEST(CliNeverAborts, ServeWithADataFolderThatCannotBeMade) {
  ScratchDir dir;
  const std::string file = dir.write("a-file", "x");
  struct Case {
    std::string data;
    const char* says;
  };
  const Case cases[] = {{"/proc/idforge-no-such", "No such file or directory"},
                        {file, "Not a directory"},
                        {file + "/sub", "Not a directory"}};
  for (const auto& c : cases) {
    const auto r = run_idforge({"serve", "--data", c.data, "--bind", "127.0.0.1", "--port", "0"});
    expect_one_line_error(r, 1, "data='" + c.data + "'");
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    // A configured node keeps its lock and mark in the same folder: the same error.
    const auto fixed = run_idforge({"serve", "--data", c.data, "--lease-store", "static:9",
                                    "--bind", "127.0.0.1", "--port", "0"},
                                   {}, test::StdoutTo::pipe, std::chrono::seconds(20));
    expect_one_line_error(fixed, 1, "data='" + c.data + "'");
  }
}

TEST(CliNeverAborts, ServeWithAFolderAsItsConfigFile) {
  ScratchDir dir;
  const auto r = run_idforge({"serve", "--config", dir.path().string(), "--port", "0"}, {},
                             test::StdoutTo::pipe, std::chrono::seconds(20));
  expect_one_line_error(r, 1, "is a folder, not a settings file");
}
#endif

#ifdef IDFORGE_TEST_HAVE_LAB
TEST(CliNeverAborts, LabCostFillFromAFileOfTheWrongShape) {
  ScratchDir dir;
  struct Case {
    const char* json;
    const char* says;
  };
  const Case cases[] = {
      {R"({"engine":5,"results":[{"kind":"snowflake","leaf_fill":0.5}]})",
       R"("engine" is a number, not a string)"},
      {R"({"results":[{"kind":5,"leaf_fill":0.5}]})", "results[0].kind is a number, not a string"},
      {R"({"results":[5]})", "results[0] is a number, not an object"},
      {R"({"results":[{"kind":"snowflake","leaf_fill":0.5,"rows":"x"}]})",
       "results[0].rows is \"x\""},
      {R"({"results":[{"kind":"snowflake","leaf_fill":0.5,"rows":-3}]})", "results[0].rows is -3"},
      {R"({"results":[{"kind":"snowflake","leaf_fill":"high"}]})",
       "results[0].leaf_fill is \"high\""},
      {R"({"results":[{"kind":"snowflake","leaf_fill":1e308}]})",
       "not a fraction above 0 and at most 1"},
      {R"([1,2])", "the top level is an array, not an object"},
      {R"({"results":{}})", "no \"results\" array"},
      {"{", "not JSON"},
      {"", "not JSON"},
  };
  int i = 0;
  for (const auto& c : cases) {
    const std::string path = dir.write("fill-" + std::to_string(i++) + ".json", c.json);
    const auto r = run_idforge({"lab", "cost", "--kinds", "snowflake", "--fill-from", path});
    expect_one_line_error(r, 1, c.says);
    EXPECT_NE(r.err.find("--fill-from '" + path + "'"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST(CliNeverAborts, LabCostFillFromSomethingThatIsNotAReadableFile) {
  ScratchDir dir;
  const std::pair<std::string, const char*> cases[] = {{dir.path().string(), "not a regular file"},
                                                       {"/proc/self/mem", "cannot read"}};
  for (const auto& [path, says] : cases) {
    const auto r = run_idforge({"lab", "cost", "--kinds", "snowflake", "--fill-from", path});
    expect_one_line_error(r, 1, says);
  }
}
#endif

TEST(CliNeverAborts, JsonOfAValueThatIsNotUtf8) {
  // nlohmann::json refuses to write invalid UTF-8 by throwing; such a byte becomes U+FFFD.
  const auto r = run_idforge({"layout", "--json", "twitter,name=ab\xff"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"name\":\"ab\xef\xbf\xbd\""), std::string::npos) << r.out;
}

#ifdef IDFORGE_TEST_HAVE_COORD
TEST(CliNeverAborts, LeaseJsonWithAStorePathThatIsNotUtf8) {
  ScratchDir dir;
  const auto r = run_idforge({"lease", "acquire", "--store", "file:" + (dir / "leases-\xff"),
                              "--format", "json", "--hold", "0"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("leases-\xef\xbf\xbd"), std::string::npos) << r.out;
}
#endif

}  // namespace
}  // namespace idforge
