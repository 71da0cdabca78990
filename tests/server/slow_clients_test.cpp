// Clients that trickle their request heads cannot keep the others out: at max-connections
// the connection that has waited longest for its request is closed to make room, so a
// client that sends its request at once is served (docs/SERVICE.md, "Connection bound").
// How fast it is served is measured by scripts/bench_slow_clients.sh, not asserted here.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "http_client.hpp"
#include "live_server.hpp"
#include "raw_http.hpp"

namespace idforge::test {
namespace {

using namespace std::chrono_literals;

// Sockets that began a request head and add one byte to it now and then, never ending it.
class Tricklers {
 public:
  Tricklers(int port, int count) {
    for (int i = 0; i < count; ++i) {
      const int fd = connect_local(port);
      if (fd < 0) continue;
      const std::string start = "GET /v1/ids/snowflake HTTP/1.1\r\nHost: x\r\nX-Slow: ";
      (void)::send(fd, start.data(), start.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      fds_.push_back(fd);
    }
    thread_ = std::thread([this] {
      while (!stop_) {
        for (int fd : fds_) (void)::send(fd, "a", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
        std::this_thread::sleep_for(100ms);
      }
    });
  }
  ~Tricklers() {
    stop_ = true;
    thread_.join();
    for (int fd : fds_) ::close(fd);
  }
  std::size_t opened() const { return fds_.size(); }

 private:
  std::vector<int> fds_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST(SlowClients, AThousandTricklingConnectionsDoNotKeepAPromptClientOut) {
  server::ServerConfig config;  // max-connections 256, the default
  LiveServer live(config);
  Tricklers slow(live.port(), 1000);
  ASSERT_EQ(slow.opened(), 1000u);
  // Every request on a connection of its own: each must be taken in over the tricklers.
  int served = 0;
  for (int i = 0; i < 200; ++i) {
    const auto r = live.client().Get("/v1/ids/snowflake");
    ASSERT_TRUE(r) << "request " << i << " got no answer";
    EXPECT_EQ(r->status, 200) << "request " << i << ": " << r->body;
    served += r->status == 200;
  }
  EXPECT_EQ(served, 200);
  const auto metrics = live.client().Get("/metrics");
  ASSERT_TRUE(metrics);
  const std::string series = "\nidforge_http_connections_shed_total ";
  const auto at = metrics->body.find(series);
  ASSERT_NE(at, std::string::npos) << metrics->body;
  EXPECT_GT(std::stoll(metrics->body.substr(at + series.size())), 0) << "nothing was shed";
}

// The same against the real binary (`idforge serve`, its defaults: 256 connections).
TEST(SlowClients, TheBinaryServesAPromptClientPastAThousandTricklers) {
  ServeProcess s({"--node", "1", "--access-log", "off"});
  ASSERT_GT(s.port(), 0) << s.first_line();
  Tricklers slow(s.port(), 1000);
  ASSERT_EQ(slow.opened(), 1000u);
  int served = 0;
  for (int i = 0; i < 200; ++i) {
    HttpClient client("127.0.0.1", s.port());
    const auto r = client.Get("/v1/ids/snowflake");
    ASSERT_TRUE(r) << "request " << i << " got no answer";
    EXPECT_EQ(r->status, 200) << "request " << i << ": " << r->body;
    served += r->status == 200;
  }
  EXPECT_EQ(served, 200);
}

// At max-connections=1, an open connection that sent nothing yet (it waits for its request)
// is closed without an answer for the next one, which is served.
TEST(SlowClients, AConnectionWaitingForItsRequestIsShedForANewOne) {
  server::ServerConfig config;
  config.max_connections = 1;
  LiveServer live(config);
  const int idle = connect_local(live.port());
  ASSERT_GE(idle, 0);
  std::this_thread::sleep_for(100ms);  // accepted before the next one arrives
  const auto r = live.client().Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(read_until_close(idle, 5000), "") << "the shed connection got an answer";
  ::close(idle);
}

}  // namespace
}  // namespace idforge::test
