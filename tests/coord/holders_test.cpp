// Failure tests with real processes (tests/coord/lease_holder.cpp): many holders on one
// host, kill -9 of a holder, a holder frozen with SIGSTOP past its TTL, and the etcd leader
// killed under a holder. Each test checks the IDs the holders wrote, not their word for it.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "idforge/coord/lease.hpp"
#include "idforge/snowflake.hpp"
#include "test_support.hpp"

namespace idforge::coord {
namespace {

using namespace std::chrono_literals;
const Layout kTwitter = presets::twitter();

struct Start {
  std::uint64_t node = 0;
  std::int64_t mark = 0, since = 0, wait = 0;
};

std::unique_ptr<test::Child> holder(const std::string& url, long issue_ms, const std::string& out,
                                    bool wait_stdin = false) {
  std::vector<std::string> args{IDFORGE_LEASE_HOLDER, url, "twitter", std::to_string(issue_ms),
                                out};
  if (wait_stdin) args.push_back("wait-stdin");
  return std::make_unique<test::Child>(args);
}

// The holder's first line, "node N mark M since S wait W".
Start started(test::Child& c) {
  const auto line = c.read_line(15s);
  if (!line || line->rfind("node ", 0) != 0)
    throw std::runtime_error("holder did not start: " + line.value_or("(nothing)"));
  Start s;
  long long node, mark, since, wait;
  std::sscanf(line->c_str(), "node %lld mark %lld since %lld wait %lld", &node, &mark, &since,
              &wait);
  s.node = static_cast<std::uint64_t>(node);
  s.mark = mark, s.since = since, s.wait = wait;
  return s;
}

std::int64_t time_of(std::uint64_t id) {
  return decompose(kTwitter, Snowflake(id)).unix_ms;
}

// Waits (bounded) until path holds at least n IDs.
bool wait_for_ids(const std::string& path, std::size_t n, std::chrono::milliseconds bound = 10s) {
  for (auto end = std::chrono::steady_clock::now() + bound;
       std::chrono::steady_clock::now() < end;) {
    if (test::read_ids(path).size() >= n) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

TEST(Holders, SixteenProcessesOnOneHostGetDistinctNodeIds) {
  test::ScratchDir dir;
  const std::string url = "file:" + dir.path() + "/leases";
  std::vector<std::unique_ptr<test::Child>> kids;
  for (int i = 0; i < 16; ++i)
    kids.push_back(holder(url, 0, dir.path() + "/ids", /*wait_stdin=*/true));
  std::set<std::uint64_t> nodes;
  for (auto& k : kids) nodes.insert(started(*k).node);  // all 16 hold at once from here
  EXPECT_EQ(nodes.size(), 16u);
  EXPECT_EQ(*nodes.rbegin(), 15u);  // the lowest free IDs, no gaps
  const auto rows = open_lease_store(url)->list(kTwitter);
  ASSERT_EQ(rows.size(), 16u);
  std::set<std::int64_t> pids;
  for (const auto& r : rows) pids.insert(r.pid);
  EXPECT_EQ(pids.size(), 16u);
  for (auto& k : kids) k->close_stdin();
  for (auto& k : kids) EXPECT_EQ(k->wait(10s), 0);
  EXPECT_TRUE(open_lease_store(url)->list(kTwitter).empty());
}

TEST(Holders, KillNineFreesTheNodeAndTheNextHolderIssuesAboveTheOldMark) {
  test::ScratchDir dir;
  const std::string url = "file:" + dir.path() + "/leases?nodes=1&ttl=1000";
  const std::string a_ids = dir.path() + "/a", b_ids = dir.path() + "/b";
  auto a = holder(url, 60'000, a_ids);
  const Start sa = started(*a);
  ASSERT_TRUE(wait_for_ids(a_ids, 200));
  a->signal(SIGKILL);
  ASSERT_EQ(a->wait(5s), 128 + SIGKILL);
  const auto ids_a = test::read_ids(a_ids);
  auto b = holder(url, 300, b_ids);
  const Start sb = started(*b);
  ASSERT_EQ(b->wait(10s), 0);
  const auto ids_b = test::read_ids(b_ids);
  ASSERT_FALSE(ids_b.empty());
  EXPECT_EQ(sb.node, sa.node);  // the kernel freed the lock at once
  const std::uint64_t max_a = *std::max_element(ids_a.begin(), ids_a.end());
  const std::uint64_t min_b = *std::min_element(ids_b.begin(), ids_b.end());
  // The reserved mark covers everything A issued, including IDs it never flushed.
  EXPECT_GE(sb.mark, time_of(max_a));
  EXPECT_GT(time_of(min_b), sb.mark);
  EXPECT_GT(min_b, max_a);
  RecordProperty("a_ids", static_cast<int>(ids_a.size()));
  RecordProperty("b_start_wait_ms", static_cast<int>(sb.wait));
}

TEST(Holders, FrozenHolderStopsIssuingBeforeAnotherTakesItsNodeId) {
  IDFORGE_NEED_SERVICE(base, "IDFORGE_REDIS_URL");
  test::ScratchDir dir;
  const std::string url =
      test::with_params(base, "prefix=" + test::unique_name() + ":&nodes=1&ttl=1000&timeout=300");
  const std::string a_ids = dir.path() + "/a", b_ids = dir.path() + "/b";
  auto a = holder(url, 60'000, a_ids);
  const Start sa = started(*a);
  ASSERT_TRUE(wait_for_ids(a_ids, 200));
  a->signal(SIGSTOP);
  std::this_thread::sleep_for(2500ms);  // past A's 1 s TTL: Redis expires its key
  auto b = holder(url, 500, b_ids);
  const Start sb = started(*b);
  EXPECT_EQ(sb.node, sa.node);
  a->signal(SIGCONT);  // A wakes while B holds the node ID
  const std::string a_rest = a->read_rest(10s);
  EXPECT_EQ(a->wait(10s), 3) << a_rest;
  EXPECT_NE(a_rest.find("error"), std::string::npos) << a_rest;
  EXPECT_NE(a_rest.find("lease"), std::string::npos) << a_rest;
  ASSERT_EQ(b->wait(10s), 0);
  const auto ids_a = test::read_ids(a_ids), ids_b = test::read_ids(b_ids);
  ASSERT_FALSE(ids_a.empty());
  ASSERT_FALSE(ids_b.empty());
  // Issue windows in ID time: A's ends before B acquired, and B's starts above A's mark.
  const auto [min_a, max_a] = std::minmax_element(ids_a.begin(), ids_a.end());
  const auto [min_b, max_b] = std::minmax_element(ids_b.begin(), ids_b.end());
  EXPECT_LT(time_of(*max_a), sb.since) << "A issued after B took the node ID";
  EXPECT_GE(sb.mark, time_of(*max_a));
  EXPECT_GT(*min_b, *max_a);
  std::set<std::uint64_t> all(ids_a.begin(), ids_a.end());
  all.insert(ids_b.begin(), ids_b.end());
  EXPECT_EQ(all.size(), ids_a.size() + ids_b.size());
  RecordProperty("a_window_ms", static_cast<int>(time_of(*max_a) - time_of(*min_a)));
  RecordProperty("gap_ms", static_cast<int>(time_of(*min_b) - time_of(*max_a)));
}

// --- etcd cluster ---------------------------------------------------------------------
// With the default TTL (10 s) a renewal starts 3.3 s after the last and the fence is 5 s
// later: room for an election (about 1-2 s) plus a failed request to each member (1 s each).

std::string shell_output(const std::string& command) {
  return test::run({"/bin/sh", "-c", command}, {}, std::chrono::seconds(30)).out;
}

// The member that is leader, as its client port, or 0 if none answered.
int etcd_leader_port(const std::vector<int>& ports) {
  const std::regex member(R"re("member_id":"(\d+)")re"), leader(R"re("leader":"(\d+)")re");
  for (int port : ports) {
    const std::string s =
        shell_output("curl -s -m 2 -X POST -d '{}' http://127.0.0.1:" + std::to_string(port) +
                     "/v3/maintenance/status");
    std::smatch m, l;
    if (std::regex_search(s, m, member) && std::regex_search(s, l, leader) && m[1] == l[1])
      return port;
  }
  return 0;
}

TEST(Holders, KillingTheEtcdLeaderDoesNotInterruptAHolder) {
  IDFORGE_NEED_SERVICE(url_base, "IDFORGE_ETCD_CLUSTER_URL");
  IDFORGE_NEED_SERVICE(cluster_dir, "IDFORGE_ETCD_CLUSTER_DIR");
  IDFORGE_NEED_SERVICE(members, "IDFORGE_ETCD_CLUSTER_MEMBERS");
  // "a:22379,b:22479,c:22579": each member's name and client port (scripts/services/etcd.sh).
  std::vector<int> ports;
  std::map<int, std::string> names;
  const std::regex item(R"re((\w+):(\d+))re");
  for (auto it = std::sregex_iterator(members.begin(), members.end(), item);
       it != std::sregex_iterator(); ++it) {
    ports.push_back(std::stoi((*it)[2]));
    names[ports.back()] = (*it)[1];
  }
  ASSERT_EQ(ports.size(), 3u) << members;
  const int leader = etcd_leader_port(ports);
  ASSERT_NE(leader, 0) << "no etcd cluster member reports itself as leader";
  test::ScratchDir dir;
  const std::string ids_path = dir.path() + "/h";
  auto h = holder(
      test::with_params(url_base, "prefix=/" + test::unique_name() + "/&ttl=10000&timeout=1000"),
      9000, ids_path);
  started(*h);
  ASSERT_TRUE(wait_for_ids(ids_path, 200));
  const std::string name = names.at(leader);
  std::ifstream pid_file(cluster_dir + "/" + name + ".pid");
  pid_t pid = 0;
  pid_file >> pid;
  ASSERT_GT(pid, 0);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  const std::string rest = h->read_rest(20s);
  const auto code = h->wait(10s);
  // Bring the member back (it rejoins from its data dir) before judging, so later runs
  // find the whole cluster.
  test::run_shell("bash " + cluster_dir + "/" + name + ".start");
  bool back = false;
  for (auto end = std::chrono::steady_clock::now() + 20s;
       !back && std::chrono::steady_clock::now() < end;) {
    back = shell_output("curl -s -m 1 http://127.0.0.1:" + std::to_string(leader) + "/health")
               .find("\"true\"") != std::string::npos;
    if (!back) std::this_thread::sleep_for(100ms);
  }
  EXPECT_TRUE(back) << "member " << name << " did not rejoin";
  ASSERT_EQ(code, 0) << rest;
  unsigned long long issued = 0, renewals = 0, failures = 0;
  ASSERT_EQ(std::sscanf(rest.c_str(), "done %llu %llu %llu", &issued, &renewals, &failures), 3)
      << rest;
  EXPECT_GE(renewals, 3u);  // start-up + every 3.3 s for 9 s: it kept renewing after the kill
  const auto ids = test::read_ids(ids_path);
  ASSERT_EQ(ids.size(), issued);
  std::int64_t max_gap = 0;
  for (std::size_t i = 1; i < ids.size(); ++i) {
    ASSERT_GT(ids[i], ids[i - 1]);
    max_gap = std::max(max_gap, time_of(ids[i]) - time_of(ids[i - 1]));
  }
  // Never fenced: a fence would stop it for at least the rest of the TTL (seconds).
  EXPECT_LT(max_gap, 1000) << "issuing stalled for " << max_gap << " ms";
  RecordProperty("killed_member", name);
  RecordProperty("renewal_failures", static_cast<int>(failures));
  RecordProperty("max_gap_ms", static_cast<int>(max_gap));
}

}  // namespace
}  // namespace idforge::coord
