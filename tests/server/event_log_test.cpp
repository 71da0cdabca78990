// EventLog: one line per event on the fd it is given, as text or JSON, rate-limited per
// event name on its clock (a ManualClock here), never for write_always().
#include "idforge/server/event_log.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "idforge/error.hpp"
#include "idforge/server/config.hpp"

namespace idforge::test {
namespace {

constexpr std::int64_t kStartMs = 1'714'521'600'000;  // 2024-05-01T00:00:00Z

// What was written to a pipe, line by line.
class Pipe {
 public:
  Pipe() { EXPECT_EQ(pipe(fds_), 0); }
  ~Pipe() {
    close(fds_[0]);
    if (fds_[1] >= 0) close(fds_[1]);
  }
  int fd() const { return fds_[1]; }
  std::vector<std::string> lines() {
    close(fds_[1]);
    fds_[1] = -1;
    std::string all;
    char buf[4096];
    for (ssize_t n; (n = read(fds_[0], buf, sizeof buf)) > 0;) all.append(buf, n);
    std::vector<std::string> out;
    std::istringstream in(all);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
  }

 private:
  int fds_[2] = {-1, -1};
};

TEST(EventLog, TextLinesCarryTheTimeTheEventAndTheMessageOnOneLine) {
  Pipe p;
  ManualClock clock(kStartMs * 1'000'000);
  server::EventLog log(server::LogFormat::text, p.fd(), clock);
  log.write("lease_lost", "node 3 at file:/x: gone\nsecond line \x1b[31m");
  const auto lines = p.lines();
  ASSERT_EQ(lines.size(), 1u) << "a newline in a message must not start a second line";
  EXPECT_EQ(lines[0].rfind("2024-05-01T00:00:00.000Z idforge serve: lease_lost: node 3 at "
                           "file:/x: gone",
                           0),
            0u)
      << lines[0];
  EXPECT_EQ(lines[0].find('\x1b'), std::string::npos) << "control bytes are escaped";
}

TEST(EventLog, JsonLinesAreObjectsACollectorCanParse) {
  Pipe p;
  ManualClock clock(kStartMs * 1'000'000);
  server::EventLog log(server::LogFormat::json, p.fd(), clock);
  log.write("lease_acquired", "node 1 at redis://127.0.0.1:6379 \"quoted\" \xff");
  const auto lines = p.lines();
  ASSERT_EQ(lines.size(), 1u);
  const auto j = nlohmann::json::parse(lines[0]);  // bytes that are not UTF-8 are escaped
  EXPECT_EQ(j["time"], "2024-05-01T00:00:00.000Z");
  EXPECT_EQ(j["event"], "lease_acquired");
  EXPECT_NE(j["message"].get<std::string>().find("\"quoted\""), std::string::npos);
  EXPECT_FALSE(j.contains("suppressed"));
}

TEST(EventLog, OneEventNameIsWrittenOncePerGapAndTheNextLineCountsWhatWasLeftOut) {
  Pipe p;
  ManualClock clock(kStartMs * 1'000'000);
  server::EventLog log(server::LogFormat::json, p.fd(), clock, std::chrono::seconds(10));
  log.write("lease_renewal_failed", "a");
  for (int i = 0; i < 5; ++i) {
    clock.advance_ms(1000);
    log.write("lease_renewal_failed", "b");  // within 10 s of the first: counted
  }
  log.write("lease_fenced", "another name: its own limit");
  log.write_always("lease_renewal_failed", "always written");
  clock.advance_ms(10'000);
  log.write("lease_renewal_failed", "c");
  EXPECT_EQ(log.written(), 4u);
  EXPECT_EQ(log.suppressed(), 5u);
  const auto lines = p.lines();
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(nlohmann::json::parse(lines[0])["message"], "a");
  EXPECT_EQ(nlohmann::json::parse(lines[1])["event"], "lease_fenced");
  const auto always = nlohmann::json::parse(lines[2]);
  EXPECT_EQ(always["message"], "always written");
  EXPECT_EQ(always["suppressed"], 5) << "the line after the left-out ones counts them";
  const auto last = nlohmann::json::parse(lines[3]);
  EXPECT_EQ(last["message"], "c");
  EXPECT_FALSE(last.contains("suppressed"));
}

TEST(EventLog, AClosedFdLosesTheLineAndNothingElse) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  close(fds[0]);
  close(fds[1]);
  ManualClock clock(kStartMs * 1'000'000);
  server::EventLog log(server::LogFormat::text, fds[1], clock);
  log.write("lease_lost", "nowhere to go");  // must neither throw nor crash
  EXPECT_EQ(log.written(), 1u);
}

TEST(EventLog, TheFormatIsTextOrJsonAndTheSettingSaysSo) {
  EXPECT_EQ(server::parse_log_format("text"), server::LogFormat::text);
  EXPECT_EQ(server::parse_log_format("json"), server::LogFormat::json);
  try {
    server::parse_log_format("JSON ");
    FAIL() << "accepted 'JSON '";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "log-format 'JSON ': expected 'text' or 'json'");
  }
  server::ServerConfig c;
  EXPECT_EQ(c.log_format, server::LogFormat::text);
  server::apply_setting(c, "log_format", "json");
  EXPECT_EQ(c.log_format, server::LogFormat::json);
  EXPECT_THROW(server::apply_setting(c, "log-format", "xml"), Error);
  EXPECT_EQ(c.log_format, server::LogFormat::json) << "a refused value changes nothing";
}

}  // namespace
}  // namespace idforge::test
