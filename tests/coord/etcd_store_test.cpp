// Against the shared etcd (IDFORGE_ETCD_URL) with a key prefix of the test's own.
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "expect_errc.hpp"
#include "idforge/coord/coord_errc.hpp"
#include "idforge/coord/lease.hpp"
#include "idforge/coord/leased_generator.hpp"
#include "idforge/snowflake.hpp"
#include "test_support.hpp"

namespace idforge::coord {
namespace {

using namespace std::chrono_literals;
const Layout kTwitter = presets::twitter();

std::string prefixed(const std::string& url, const std::string& more = "") {
  return test::with_params(
      url, "prefix=/" + test::unique_name() + "/" + (more.empty() ? "" : "&" + more));
}

TEST(EtcdStore, FailsOverPastADeadMember) {
  IDFORGE_NEED_SERVICE(base, "IDFORGE_ETCD_URL");
  const int dead = test::free_port();  // nothing listens there
  const std::string prefix = "prefix=/" + test::unique_name() + "/";
  auto store = open_lease_store(test::with_params(
      "etcd://127.0.0.1:" + std::to_string(dead) + "," + base.substr(7), prefix + "&timeout=500"));
  Lease l = store->acquire(kTwitter);
  EXPECT_EQ(l.node, 0u);
  store->renew(l, 1'800'000'000'000);
  // What went through the dead member's neighbour is in etcd: a store that talks only to
  // the live member sees the holder and the mark, then the release.
  auto live = open_lease_store(test::with_params(base, prefix));
  const auto rows = live->list(kTwitter);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].holder, l.holder);
  EXPECT_EQ(rows[0].high_water_unix_ms, 1'800'000'000'000);
  store->release(l, 1'800'000'000'005);
  EXPECT_TRUE(live->list(kTwitter).empty());
  Lease again = live->acquire(kTwitter);
  EXPECT_EQ(again.node, 0u);
  EXPECT_EQ(again.high_water_unix_ms, 1'800'000'000'005);
  live->release(again, 0);
}

// A member shutting down: its gateway answers every call with gRPC's "the client connection is
// closing" (code 1, HTTP 408), as etcd 3.4 does while it stops. Bounded: one thread, closed by
// the destructor.
class ClosingMember {
 public:
  ClosingMember() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 8) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      throw std::runtime_error("closing member: cannot listen");
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~ClosingMember() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  int port() const { return port_; }
  int answered() const { return answered_; }

 private:
  void serve() {
    while (!stop_) {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      // One request per connection: read the head and the body its Content-Length names.
      std::string in;
      char buf[4096];
      for (;;) {
        const auto head_end = in.find("\r\n\r\n");
        if (head_end != std::string::npos) {
          const auto at = in.find("Content-Length: ");
          const std::size_t body = at == std::string::npos ? 0 : std::stoul(in.substr(at + 16));
          if (in.size() >= head_end + 4 + body) break;
        }
        const ssize_t n = ::recv(c, buf, sizeof buf, 0);
        if (n <= 0) break;
        in.append(buf, static_cast<std::size_t>(n));
      }
      const std::string body = R"({"error":"grpc: the client connection is closing","code":1,)"
                               R"("message":"grpc: the client connection is closing"})";
      const std::string out =
          "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\n"
          "Content-Length: " +
          std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
      (void)::send(c, out.data(), out.size(), MSG_NOSIGNAL);
      ::close(c);
      ++answered_;
    }
  }
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> answered_{0};
  std::thread thread_;
};

// Acquire, renew and release all fail over past a member that answers "the client connection
// is closing": the release took that answer as final, and the node stayed held until its TTL.
TEST(EtcdStore, AClosingMemberIsPassedOverNotTakenAsFinal) {
  IDFORGE_NEED_SERVICE(base, "IDFORGE_ETCD_URL");
  ClosingMember closing;
  const std::string prefix = "prefix=/" + test::unique_name() + "/";
  auto store = open_lease_store(
      test::with_params("etcd://127.0.0.1:" + std::to_string(closing.port()) + "," + base.substr(7),
                        prefix + "&timeout=500"));
  Lease l = store->acquire(kTwitter);
  store->renew(l, 1'800'000'000'000);
  store->release(l, 1'800'000'000'005);
  EXPECT_GE(closing.answered(), 1);  // it was asked, and passed over
  auto live = open_lease_store(test::with_params(base, prefix));
  EXPECT_TRUE(live->list(kTwitter).empty()) << "the release did not reach etcd";
}

TEST(EtcdStore, NoMemberAnsweringIsUnreachableNamingEachMember) {
  const int p1 = test::free_port(), p2 = test::free_port();
  const std::string url = "etcd://127.0.0.1:" + std::to_string(p1) +
                          ",127.0.0.1:" + std::to_string(p2) + "?timeout=300";
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_ERRC_AS(LeaseError, SharedLeasedSnowflakeGenerator gen(open_lease_store(url), kTwitter),
                 coord_errc::store_unreachable,
                 "127.0.0.1:" + std::to_string(p1) + ": Couldn't connect",
                 "127.0.0.1:" + std::to_string(p2));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
}

TEST(EtcdStore, LeasedGeneratorIssuesAboveThePreviousHoldersMark) {
  IDFORGE_NEED_SERVICE(base, "IDFORGE_ETCD_URL");
  const std::string url = prefixed(base, "nodes=1");
  std::uint64_t last = 0;
  {
    SharedLeasedSnowflakeGenerator gen(open_lease_store(url), kTwitter);
    for (int i = 0; i < 100; ++i) last = gen.next().value();
  }
  SharedLeasedSnowflakeGenerator gen(open_lease_store(url), kTwitter);
  EXPECT_GE(gen.keeper().acquired().high_water_unix_ms,
            decompose(kTwitter, Snowflake(last)).unix_ms);
  EXPECT_GT(gen.next().value(), last);
}

}  // namespace
}  // namespace idforge::coord
