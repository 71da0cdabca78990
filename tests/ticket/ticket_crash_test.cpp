// A resize under load, interrupted at every step of its protocol in turn: before each SQL
// statement it sends (a COMMIT included), on each server, in the order it sends them.
//   crash:   the resizing process is killed (SIGKILL) there; the servers keep whatever had
//            committed. `idforge ticket status` must then describe each server exactly as
//            the servers hold it (read independently), and a rerun with --resume finishes.
//   failure: the statement fails in the resizing process (as when its server goes away);
//            the error must name each server's state, exactly as the servers hold it.
// Two clients draw throughout; no value may be handed out twice, in any case.
// Both engines, growing 2 -> 3 (a server joins) and shrinking 3 -> 2 (one retires).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "db_probe.hpp"
#include "idforge/error.hpp"
#include "idforge/ticket/ticket_client.hpp"
#include "idforge/ticket/ticket_errc.hpp"
#include "idforge/ticket/ticket_set.hpp"
#include "test_support.hpp"

namespace idforge::ticket {
namespace {

using Clock = std::chrono::steady_clock;

// The statement and lock bounds are not under test here: a shared, loaded machine can stall a
// small MariaDB instance past the 3 s default, and can be slow to drop the table lock of a
// resize killed inside its fence (MariaDB frees it only once it sees the socket close), past
// the 1 s lock default. Either would fail the rerun for the wrong reason.
std::vector<std::unique_ptr<TicketServer>> open_all(const std::vector<std::string>& urls) {
  std::vector<std::unique_ptr<TicketServer>> out;
  for (const auto& u : urls)
    out.push_back(open_ticket_server(u, {.statement_ms = 20'000, .lock_ms = 10'000}));
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

// Clients drawing from every server until stopped (bounded: at most kMax values).
class Load {
 public:
  Load(const std::vector<std::string>& urls, const std::string& name) {
    for (int t = 0; t < kThreads; ++t)
      threads_.emplace_back([this, urls, name] {
        std::vector<std::int64_t> mine;
        TicketClient c(open_all(urls), name, {.retry_after_ns = 0, .fenced_wait_ns = 0});
        while (!stop_.load() && drawn_.load() < kMax) {
          try {
            mine.push_back(c.next());
            drawn_.fetch_add(1);
          } catch (const Error&) {
            errors_.fetch_add(1);
            // Every server fenced (a resize crashed): ask again shortly, not in a hot loop.
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
          }
        }
        std::lock_guard lk(mu_);
        values_.insert(values_.end(), mine.begin(), mine.end());
      });
  }
  ~Load() { stop(); }
  // Waits until n more values were drawn, or limit passed (the set may be all fenced).
  void wait_more(std::int64_t n, std::chrono::milliseconds limit) {
    const std::int64_t target = drawn_.load() + n;
    const auto until = Clock::now() + limit;
    while (drawn_.load() < target && Clock::now() < until && drawn_.load() < kMax)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::vector<std::int64_t> stop() {
    stop_ = true;
    for (auto& t : threads_)
      if (t.joinable()) t.join();
    return values_;
  }

 private:
  static constexpr int kThreads = 2;
  static constexpr std::int64_t kMax = 200'000;
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
  std::atomic<std::int64_t> drawn_{0}, errors_{0};
  std::mutex mu_;
  std::vector<std::int64_t> values_;
};

// What the tool must say of a server whose record the probe found.
std::string expected_words(const std::optional<test::ProbedRecord>& p) {
  if (!p) return "holds no record of the set";
  if (p->state == "active") return "active in epoch " + std::to_string(p->epoch);
  if (p->state == "retired") return "retired (left the set at epoch " + std::to_string(p->epoch);
  return "fenced by " + p->token + ": hands out nothing";
}

struct Truth {
  std::vector<std::optional<test::ProbedRecord>> records;
  bool fenced = false, decided = false;
};

Truth probe_all(test::RecordProbe& probe, const std::string& name) {
  Truth t;
  t.records = probe.read(name);
  for (const auto& r : t.records)
    if (r && r->state == "fenced") {
      t.fenced = true;
      for (const auto& o : t.records)
        if (o && o->state != "fenced" && o->token == r->token) t.decided = true;
    }
  return t;
}

// What the tool says (`idforge ticket status` prints format_ticket_set()) against the
// servers' own records. The command itself runs when cli is set; else the library call.
void expect_status_matches(const std::vector<std::string>& urls,
                           std::span<const std::unique_ptr<TicketServer>> servers,
                           const std::string& name, const Truth& truth, bool cli) {
  std::string text;
  if (cli) {
    const auto r = test::run_cli({"ticket", "status", "--name", name, "--servers", join(urls)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    text = r.out;
  } else {
    text = format_ticket_set(read_ticket_set(servers, name));
  }
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), urls.size() + 1) << text;
  for (std::size_t i = 0; i < urls.size(); ++i) {
    const std::string& line = lines[i + 1];
    EXPECT_EQ(line.rfind("  server " + std::to_string(i + 1) + " " + urls[i], 0), 0u) << line;
    const std::string says = line.substr(line.find("]: ") + 3);
    EXPECT_EQ(says.rfind(expected_words(truth.records[i]), 0), 0u)
        << "server " << i + 1 << ": the tool says '" << says << "'";
  }
  const std::string& summary = lines[0];
  if (!truth.fenced) {
    EXPECT_NE(summary.find("is at epoch"), std::string::npos) << summary;
  } else if (truth.decided) {
    EXPECT_NE(summary.find("is decided"), std::string::npos) << summary;
    EXPECT_NE(summary.find("--resume"), std::string::npos) << summary;
  } else {
    EXPECT_NE(summary.find("is unfinished"), std::string::npos) << summary;
    EXPECT_NE(summary.find("none activated"), std::string::npos) << summary;
  }
}

void expect_unique(std::vector<std::int64_t> v, const std::string& when) {
  std::sort(v.begin(), v.end());
  const auto dup = std::adjacent_find(v.begin(), v.end());
  EXPECT_EQ(dup, v.end()) << when << ": value " << (dup == v.end() ? 0 : *dup)
                          << " was handed out twice";
}

// After a finished resize to k: each member hands out its residue above the highest value,
// and no server is left fenced.
void expect_serving(std::span<const std::unique_ptr<TicketServer>> servers,
                    test::RecordProbe& probe, const std::string& name, const ResizeReport& rep,
                    std::int64_t k) {
  for (std::int64_t i = 0; i < k; ++i) {
    const TicketValue v = servers[static_cast<std::size_t>(i)]->next(name);
    EXPECT_GT(v.value, rep.highest);
    EXPECT_EQ((v.value - rep.first) % k, i);
    EXPECT_EQ(v.epoch, rep.epoch);
  }
  EXPECT_FALSE(probe_all(probe, name).fenced) << "a server is still fenced after the resize";
}

struct Scenario {
  std::int64_t from, to;
};

// The statements of one clean resize: the crash points.
long count_statements(const std::vector<std::string>& urls, Scenario sc) {
  const std::string name = test::unique_name("count");
  auto init = open_all({urls.begin(), urls.begin() + sc.from});
  init_ticket_set(init, name);
  auto child =
      test::spawn(IDFORGE_TICKET_WORKER, {"resize", name, std::to_string(sc.to), "0", join(urls)});
  const auto [code, out] = test::finish(child);
  EXPECT_EQ(code, 0) << out;
  const auto at = out.find("statements ");
  return at == std::string::npos ? 0 : std::stol(out.substr(at + 11));
}

void crash_at_every_step(const std::vector<std::string>& urls, Scenario sc) {
  const long n_steps = count_statements(urls, sc);
  ASSERT_GT(n_steps, 10);
  test::RecordProbe probe(urls);
  auto servers = open_all(urls);
  const std::span<const std::unique_ptr<TicketServer>> first(servers.data(),
                                                             static_cast<std::size_t>(sc.from));
  for (long n = 1; n <= n_steps + 1; ++n) {
    const std::string when = "crash before statement " + std::to_string(n) + " of " +
                             std::to_string(n_steps) + (n > n_steps ? " (none: a clean run)" : "");
    SCOPED_TRACE(when);
    const std::string name = test::unique_name("crash");
    init_ticket_set(first, name);
    Load load(urls, name);
    load.wait_more(20, std::chrono::seconds(10));
    auto child = test::spawn(IDFORGE_TICKET_WORKER, {"resize", name, std::to_string(sc.to),
                                                     std::to_string(n), join(urls)});
    const auto [code, out] = test::finish(child);
    if (n <= n_steps) {
      ASSERT_EQ(code, 128 + 9) << out;
      ASSERT_EQ(out.rfind("crash before statement " + std::to_string(n), 0), 0u) << out;
    } else {
      ASSERT_EQ(code, 0) << out;
    }
    // The command itself every few steps; the library call it prints in between.
    expect_status_matches(urls, servers, name, probe_all(probe, name), n % 8 == 1);
    load.wait_more(10, std::chrono::milliseconds(100));
    ResizeReport rep;
    try {
      rep = resize_ticket_set(servers, name, sc.to, {.resume = true});
    } catch (const Error& e) {
      FAIL() << "the rerun failed: " << e.what();
    }
    load.wait_more(20, std::chrono::seconds(10));
    expect_unique(load.stop(), when);
    expect_serving(servers, probe, name, rep, sc.to);
    if (::testing::Test::HasFailure()) return;  // one broken step says enough
  }
}

void failure_at_every_step(const std::vector<std::string>& urls, Scenario sc) {
  test::RecordProbe probe(urls);
  auto servers = open_all(urls);
  const std::span<const std::unique_ptr<TicketServer>> first(servers.data(),
                                                             static_cast<std::size_t>(sc.from));
  long count = 0, fail_at = 0;
  for (auto& s : servers)
    s->set_statement_hook([&count, &fail_at](std::string_view sql) {
      if (++count == fail_at)
        throw Error(ticket_errc::store_unreachable, "injected: the server went away before '" +
                                                        std::string(sql.substr(0, 40)) + "'");
    });
  // Every connection open and every identity known, so each run sends the same statements.
  const auto warm = [&](const std::string& name) {
    for (auto& s : servers) s->read(name);
  };
  const std::string counted = test::unique_name("count");
  init_ticket_set(first, counted);
  warm(counted);
  count = 0;
  resize_ticket_set(servers, counted, sc.to);
  const long n_steps = count;
  ASSERT_GT(n_steps, 10);
  for (long n = 1; n <= n_steps; ++n) {
    const std::string when =
        "failure at statement " + std::to_string(n) + " of " + std::to_string(n_steps);
    SCOPED_TRACE(when);
    const std::string name = test::unique_name("fail");
    fail_at = 0;
    std::vector<std::int64_t> values;
    init_ticket_set(first, name);
    for (auto& s : first) values.push_back(s->next(name).value);
    warm(name);
    count = 0;
    fail_at = n;
    std::string message;
    bool set_error = false;
    bool finished = false;
    try {
      resize_ticket_set(servers, name, sc.to);
      // A failure the protocol absorbs (UNLOCK TABLES on MariaDB: the connection is dropped,
      // which unlocks): then the resize must be whole.
      finished = true;
    } catch (const TicketSetError& e) {
      message = e.what();
      set_error = true;
    } catch (const Error& e) {
      message = e.what();
    }
    fail_at = 0;
    const Truth truth = probe_all(probe, name);
    if (finished) {
      EXPECT_FALSE(truth.fenced);
      for (std::int64_t i = 0; i < sc.to; ++i) {
        ASSERT_TRUE(truth.records[static_cast<std::size_t>(i)]);
        EXPECT_EQ(truth.records[static_cast<std::size_t>(i)]->epoch, 2);
      }
    } else if (!set_error) {
      // Stopped before changing anything: every record as before.
      EXPECT_NE(message.find("injected"), std::string::npos) << message;
      EXPECT_NE(message.find("nothing changed"), std::string::npos) << message;
      EXPECT_FALSE(truth.fenced) << message;
    } else {
      EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
      EXPECT_NE(message.find("injected"), std::string::npos) << message;
      for (std::size_t i = 0; i < urls.size(); ++i) {
        const std::string part = "server " + std::to_string(i + 1) + " (" + urls[i] +
                                 "): " + expected_words(truth.records[i]);
        EXPECT_NE(message.find(part), std::string::npos)
            << "expected '" << part << "' in: " << message;
      }
      if (truth.fenced) EXPECT_NE(message.find("--resume"), std::string::npos) << message;
    }
    const auto rep = resize_ticket_set(servers, name, sc.to, {.resume = true});
    for (std::int64_t i = 0; i < sc.to; ++i)
      values.push_back(servers[static_cast<std::size_t>(i)]->next(name).value);
    expect_unique(values, when);
    expect_serving(servers, probe, name, rep, sc.to);
    if (::testing::Test::HasFailure()) return;
  }
}

std::vector<std::string> three(const std::string& list) {
  auto v = test::split_urls(list);
  v.resize(3);
  return v;
}

TEST(TicketCrash, PostgresGrowingCrashAtEveryStatement) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  crash_at_every_step(three(urls), {2, 3});
}
TEST(TicketCrash, PostgresShrinkingCrashAtEveryStatement) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  crash_at_every_step(three(urls), {3, 2});
}
TEST(TicketCrash, MariaDbGrowingCrashAtEveryStatement) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_MARIADB_TICKET_URLS");
  crash_at_every_step(three(urls), {2, 3});
}
TEST(TicketCrash, MariaDbShrinkingCrashAtEveryStatement) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_MARIADB_TICKET_URLS");
  crash_at_every_step(three(urls), {3, 2});
}
TEST(TicketCrash, PostgresFailureAtEveryStatementNamesEachServersState) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  failure_at_every_step(three(urls), {2, 3});
  failure_at_every_step(three(urls), {3, 2});
}
TEST(TicketCrash, MariaDbFailureAtEveryStatementNamesEachServersState) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_MARIADB_TICKET_URLS");
  failure_at_every_step(three(urls), {2, 3});
  failure_at_every_step(three(urls), {3, 2});
}

}  // namespace
}  // namespace idforge::ticket
