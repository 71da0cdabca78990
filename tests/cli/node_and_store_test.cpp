// A lease store beside a fixed node is where that node is registered: a malformed store URL
// is named, and a store that cannot hold that node refuses it, for `gen` and for `serve`.
#include <gtest/gtest.h>

#include "one_line_error.hpp"
#include "run_command.hpp"

namespace idforge {
namespace {

using test::expect_one_line_error;
using test::run_idforge;

#ifdef IDFORGE_TEST_HAVE_COORD
TEST(CliNodeAndStore, GenNamesABadStoreUrlBesideAFixedNode) {
  const auto r = run_idforge({"gen", "snowflake", "--node", "5", "--lease-store", "bogus:zz"});
  expect_one_line_error(r, 1, "invalid lease store URL 'bogus:zz'");
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CliNodeAndStore, GenRefusesAFixedNodeTheStoreDoesNotHold) {
  const std::pair<std::vector<std::string>, const char*> cases[] = {
      {{"--node", "5"}, "node 5 asked for, but this store is configured for node 7"},
      {{"--datacenter", "1", "--worker", "2"},
       "node 34 asked for, but this store is configured for node 7"}};
  for (const auto& [fixed, says] : cases) {
    std::vector<std::string> args{"gen", "snowflake", "--lease-store", "static:7"};
    args.insert(args.end(), fixed.begin(), fixed.end());
    const auto r = run_idforge(args);
    expect_one_line_error(r, 1, says);
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}
#endif

#ifdef IDFORGE_TEST_HAVE_SERVER
TEST(CliNodeAndStore, ServeNamesABadStoreOrOneThatDoesNotHoldItsFixedNode) {
  const std::pair<const char*, const char*> cases[] = {
#ifdef IDFORGE_TEST_HAVE_COORD
      {"bogus:zz", "invalid lease store URL 'bogus:zz'"},
      {"static:7", "node 5 asked for, but this store is configured for node 7"},
#else
      {"static:7", "lease-store='static:7': this build has no lease support"},
#endif
  };
  for (const auto& [store, says] : cases) {
    // Old builds started serving here; the limit ends such a run instead of hanging the test.
    const auto r = run_idforge(
        {"serve", "--node", "5", "--lease-store", store, "--bind", "127.0.0.1", "--port", "0"}, {},
        test::StdoutTo::pipe, std::chrono::seconds(20));
    expect_one_line_error(r, 1, says);
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}
#endif

}  // namespace
}  // namespace idforge
