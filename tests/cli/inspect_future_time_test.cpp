// `idforge inspect` of text whose time lies far ahead (as random text of an ID's shape
// decodes): a note says it may be no such ID, and no secret warning claims a creation time.
// The times used here lie past 2150, so the present the CLI reads can never reach them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "run_command.hpp"

namespace idforge {
namespace {

using test::run_idforge;

// The largest KSUID (2150-06-19) and the largest ULID (10889-08-02).
constexpr const char* kMaxKsuid = "aWgEPTl1tmebfsQzFP4bxwgy80V";
constexpr const char* kMaxUlid = "7ZZZZZZZZZZZZZZZZZZZZZZZZZ";

TEST(CliInspectFutureTime, TextSaysItMayNotBeThatKindAndWarnsNothing) {
  for (const auto& [id, kind] : {std::pair{kMaxKsuid, "ksuid"}, std::pair{kMaxUlid, "ulid"}}) {
    const auto r = run_idforge({"inspect", id});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("  note       time is more than a day in the future"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find(std::string("so this may not be a ") + kind + " at all"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("reveals its creation time"), std::string::npos) << r.out;
  }
}

TEST(CliInspectFutureTime, JsonHasTheNoteAndNoWarning) {
  const auto r = run_idforge({"inspect", "--json", kMaxKsuid});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("note")) << r.out;
  EXPECT_NE(j["note"].get<std::string>().find("idforge gen token"), std::string::npos);
  EXPECT_FALSE(j.contains("warning")) << r.out;
}

}  // namespace
}  // namespace idforge
