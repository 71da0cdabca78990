// `idforge serve` waiting for the clock: a layout that issues one ID per second makes
// every request wait. Batches end at batch-timeout-ms with 503, SIGTERM ends every wait,
// and a single ID that must wait does not hold up the I/O thread it came in on.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "live_server.hpp"
#include "raw_http.hpp"

namespace idforge::test {
namespace {

// One ID per second: 53 bits of time at 1 s ticks, no sequence bits.
constexpr const char* kSlowLayout = "time=53,dc=0,worker=10,seq=0,tick=1000ms";

std::vector<std::string> slow_server_args(const std::string& name, std::vector<std::string> more) {
  const std::string data = ::testing::TempDir() + "/idforge_waits_" + name;
  std::filesystem::remove_all(data);
  std::vector<std::string> args = {"--node",       "3",   "--layout", kSlowLayout,
                                   "--access-log", "off", "--data",   data};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(ServeBinary, ABatchTheClockCannotFillInTimeIs503WithRetryAfter) {
  ServeProcess s(slow_server_args("batch", {"--batch-timeout-ms", "3000"}));
  ASSERT_GT(s.port(), 0) << s.first_line();
  // 20 IDs take 19 s at one per second: the answer comes once the next wait would pass the
  // bound (within 3 s), not after 19 s.
  const auto start = std::chrono::steady_clock::now();
  const RawExchange x = exchange(
      s.port(), {"GET /v1/ids/snowflake?count=20 HTTP/1.1\r\nHost: t\r\n\r\n"}, 1, false, 0, 8000);
  ASSERT_EQ(x.responses.size(), 1u) << x.raw;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(6000));
  EXPECT_EQ(x.responses[0].status, 503) << x.raw;
  EXPECT_EQ(x.responses[0].header("Retry-After"), "1") << x.raw;
  EXPECT_NE(x.responses[0].body.find("\"type\":\"urn:idforge:problem:batch-timeout\""),
            std::string::npos)
      << x.responses[0].body;
  EXPECT_NE(x.responses[0].body.find("count=20 of kind 'snowflake' cannot be issued within "
                                     "batch-timeout-ms=3000"),
            std::string::npos)
      << x.responses[0].body;
  // Other kinds are still served, and a batch that fits the bound (2 IDs: at most 2 s) is
  // answered in full.
  EXPECT_EQ(exchange(s.port(), {"GET /v1/ids/uuid4?count=2 HTTP/1.1\r\nHost: t\r\n\r\n"}, 1, false)
                .responses.at(0)
                .status,
            200);
  const RawExchange two = exchange(
      s.port(), {"GET /v1/ids/snowflake?count=2 HTTP/1.1\r\nHost: t\r\n\r\n"}, 1, false, 0, 8000);
  ASSERT_EQ(two.responses.size(), 1u) << two.raw;
  EXPECT_EQ(two.responses[0].status, 200) << two.raw;
}

TEST(ServeBinary, SigtermEndsRequestsWaitingForTheClockAndExitsPromptly) {
  ServeProcess s(slow_server_args("sigterm", {"--batch-timeout-ms", "600000"}));
  ASSERT_GT(s.port(), 0) << s.first_line();
  const int fd = connect_local(s.port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(send_all(fd, "GET /v1/ids/snowflake?count=100 HTTP/1.1\r\nHost: t\r\n\r\n"));
  // The request must be waiting in the server before the signal; nothing shows when.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const auto start = std::chrono::steady_clock::now();
  ::kill(s.pid(), SIGTERM);
  const std::string answer = read_until_close(fd, 5000);
  ::close(fd);
  EXPECT_EQ(status_of(answer), 503) << answer;
  EXPECT_NE(answer.find("the server is stopping; count=100 was not issued"), std::string::npos)
      << answer;
  EXPECT_EQ(s.stop(SIGTERM, 5), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));
}

// A stop while a batch waits on the handler pool: its answer says Connection: close, and the
// request pipelined behind it is not taken (its answer was framed on the pool thread before
// the stop was seen, so it kept the connection open and the next request was served).
TEST(ServeBinary, AStopDuringABatchClosesItsConnectionAndTakesNoFurtherRequest) {
  ServeProcess s(slow_server_args("stop_pipelined", {"--batch-timeout-ms", "600000"}));
  ASSERT_GT(s.port(), 0) << s.first_line();
  const int fd = connect_local(s.port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(send_all(fd,
                       "GET /v1/ids/snowflake?count=100 HTTP/1.1\r\nHost: t\r\n\r\n"
                       "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"));
  // Whether the batch is already waiting when the signal comes or not, the answer is the same.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ::kill(s.pid(), SIGTERM);
  const std::string answer = read_until_close(fd, 10000);
  ::close(fd);
  std::size_t answers = 0;
  for (std::size_t at = answer.find("HTTP/1.1 "); at != std::string::npos;
       at = answer.find("HTTP/1.1 ", at + 1))
    ++answers;
  EXPECT_EQ(answers, 1u) << answer;
  EXPECT_EQ(status_of(answer), 503) << answer;
  EXPECT_NE(answer.find("\r\nConnection: close\r\n"), std::string::npos) << answer;
  EXPECT_EQ(s.stop(SIGTERM, 5), 0);
}

TEST(ServeBinary, ASingleIdWaitingForTheClockDoesNotHoldItsIoThread) {
  ServeProcess s(slow_server_args("single", {"--io-threads", "1", "--batch-timeout-ms", "10000"}));
  ASSERT_GT(s.port(), 0) << s.first_line();
  // Four single IDs at one per second: three of them wait 1, 2 and 3 s.
  std::vector<int> fds;
  for (int i = 0; i < 4; ++i) {
    fds.push_back(connect_local(s.port()));
    ASSERT_GE(fds.back(), 0);
    ASSERT_TRUE(send_all(fds.back(),
                         "GET /v1/ids/snowflake HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"));
  }
  // The one I/O thread answers at once meanwhile (before, it slept in the generator).
  const RawExchange h = exchange(
      s.port(), {"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"}, 1, true, 0, 900);
  ASSERT_EQ(h.responses.size(), 1u) << h.raw;
  EXPECT_EQ(h.responses[0].status, 200);
  // And all four get their ID.
  for (const int fd : fds) {
    const std::string got = read_until_close(fd, 6000);
    EXPECT_EQ(status_of(got), 200) << got;
    ::close(fd);
  }
}

}  // namespace
}  // namespace idforge::test
