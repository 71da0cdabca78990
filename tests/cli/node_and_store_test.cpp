// A lease store beside a fixed node would be ignored: a malformed store URL is named, and a
// valid one with a fixed node is refused as a combination, for `gen` and for `serve`.
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

TEST(CliNodeAndStore, GenRefusesAValidStoreBesideAFixedNode) {
  for (const std::vector<std::string> fixed :
       {std::vector<std::string>{"--node", "5"},
        std::vector<std::string>{"--datacenter", "1", "--worker", "2"}}) {
    std::vector<std::string> args{"gen", "snowflake", "--lease-store", "static:5"};
    args.insert(args.end(), fixed.begin(), fixed.end());
    const auto r = run_idforge(args);
    expect_one_line_error(r, 1, "--lease-store 'static:5' is used only with --node auto");
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}
#endif

#ifdef IDFORGE_TEST_HAVE_SERVER
TEST(CliNodeAndStore, ServeRefusesAStoreBesideAFixedNode) {
  const std::pair<const char*, const char*> cases[] = {
#ifdef IDFORGE_TEST_HAVE_COORD
      {"bogus:zz", "invalid lease store URL 'bogus:zz'"},
#endif
      {"static:5", "lease-store='static:5' is used only when the node is leased"}};
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
