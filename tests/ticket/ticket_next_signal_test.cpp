// `ticket next` stopped by SIGTERM prints every value it took before it exits: a value taken
// from a ticket server and not shown is lost for good.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>
#include <thread>

#include "db_probe.hpp"
#include "test_support.hpp"

namespace idforge::ticket {
namespace {

TEST(TicketNextSignal, StoppedBySigtermItPrintsWhatItTook) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  const std::string url = test::split_urls(urls).at(0);
  const std::string name = test::unique_name("sigterm");
  auto r = test::run_cli({"ticket", "init", "--name", name, "--servers", url});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string dir = test::temp_dir();
  auto child =
      test::start_cli({"ticket", "next", "-n", "10000000", "--name", name, "--servers", url}, dir);
  // Wait (bounded) until it has taken some values: the server's sequence says so.
  test::Session s(url);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::stoll(s.scalar("SELECT last_value FROM idforge_ticket_" + name)) < 50 &&
         std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(::kill(child.pid, SIGTERM), 0);
  r = test::wait_cli(child, 60);
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 128 + SIGTERM);
  EXPECT_NE(r.err.find("stopped by signal 15: "), std::string::npos) << r.err;
  const auto lines = r.lines();
  ASSERT_GE(lines.size(), 50u) << "the values it took were not printed";
  for (std::size_t i = 0; i < lines.size(); ++i)
    ASSERT_EQ(lines[i], std::to_string(i + 1)) << "line " << i;
  EXPECT_NE(r.err.find(std::to_string(lines.size()) + " of 10000000 values written"),
            std::string::npos)
      << r.err;
  // Nothing taken went unprinted: the next value is the one after the last printed.
  r = test::run_cli({"ticket", "next", "--name", name, "--servers", url});
  EXPECT_EQ(r.out, std::to_string(lines.size() + 1) + "\n");
}

}  // namespace
}  // namespace idforge::ticket
