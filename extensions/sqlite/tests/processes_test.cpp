// Two processes on one database file: idforge_node(N) locks N beside the file, so the second
// process is refused while the first holds it (naming the node, the folder and the holder),
// takes it once the first has gone, and issues only IDs above the first's, also when it starts
// with its clock behind (libfaketime) or after the first was killed. A database with no file
// has nowhere to lock N: refused, saying how to give a folder.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "sqlite_test_support.hpp"

namespace idforge::sqlite_test {
namespace {

constexpr const char* kFaketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

// sql_process.cpp on database, driven through its stdin and stdout.
class SqlProcess {
 public:
  // faketime: a libfaketime offset such as "-3" (seconds), or empty for the real clock.
  explicit SqlProcess(const std::string& database, const std::string& faketime = "") {
    int to[2], from[2];
    // O_CLOEXEC: a second SqlProcess must not inherit this one's pipe ends, or closing this
    // one's stdin would never reach it as the end of its input.
    if (pipe2(to, O_CLOEXEC) != 0 || pipe2(from, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork");
    if (pid_ == 0) {
      dup2(to[0], 0);
      dup2(from[1], 1);
      for (int fd : {to[0], to[1], from[0], from[1]}) close(fd);
      if (!faketime.empty()) {
        setenv("LD_PRELOAD", kFaketime, 1);
        setenv("FAKETIME", faketime.c_str(), 1);
        setenv("FAKETIME_DONT_FAKE_MONOTONIC", "1", 1);  // waits and renewals keep real time
      }
      execl(IDFORGE_SQL_PROCESS_PATH, IDFORGE_SQL_PROCESS_PATH, IDFORGE_SQLITE_EXTENSION_PATH,
            database.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(to[0]);
    close(from[1]);
    in_ = fdopen(to[1], "w");
    out_ = fdopen(from[0], "r");
  }
  ~SqlProcess() {
    if (pid_ > 0) close_and_wait();
  }
  SqlProcess(const SqlProcess&) = delete;
  SqlProcess& operator=(const SqlProcess&) = delete;

  pid_t pid() const noexcept { return pid_; }

  // The lines sql answers with (its rows, or one "error: ..." line).
  std::vector<std::string> run(const std::string& sql) {
    std::fprintf(in_, "%s\n", sql.c_str());
    std::fflush(in_);
    std::vector<std::string> lines;
    char buf[8192];
    while (std::fgets(buf, sizeof buf, out_)) {
      std::string line(buf);
      if (!line.empty() && line.back() == '\n') line.pop_back();
      if (line == ".") return lines;
      lines.push_back(line);
    }
    throw std::runtime_error("the process ended while running: " + sql);
  }
  std::string one(const std::string& sql) {
    const auto lines = run(sql);
    return lines.size() == 1 ? lines[0] : "(" + std::to_string(lines.size()) + " lines)";
  }

  // Ends stdin: the process closes its database (releasing its node) and exits.
  int close_and_wait() {
    std::fclose(in_);
    std::fclose(out_);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
  }
  // SIGKILL: nothing of the process runs after it; the kernel drops its locks.
  void kill_and_wait() {
    ::kill(pid_, SIGKILL);
    close_and_wait();
  }

 private:
  pid_t pid_ = -1;
  FILE* in_ = nullptr;
  FILE* out_ = nullptr;
};

std::vector<std::uint64_t> snowflakes(SqlProcess& p, int n) {
  std::vector<std::uint64_t> ids;
  for (const auto& line : p.run(rows(n) + "SELECT snowflake() FROM c")) {
    if (line.starts_with("error: ")) throw std::runtime_error(line);
    ids.push_back(std::stoull(line));
  }
  return ids;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(SqliteProcesses, ASecondProcessIsRefusedTheNodeTheFirstHolds) {
  const std::string db = test_database();
  SqlProcess first(db), second(db);
  ASSERT_EQ(first.one("SELECT idforge_node(7)"), "7");
  const auto before = snowflakes(first, 20000);
  ASSERT_EQ(before.size(), 20000u);

  const std::string refused = second.one("SELECT idforge_node(7)");
  EXPECT_TRUE(refused.starts_with("error: idforge_node(): ")) << refused;
  EXPECT_TRUE(contains(refused, "node 7 is locked under " + db + "-idforge")) << refused;
  EXPECT_TRUE(contains(refused, "\"pid\":" + std::to_string(first.pid()))) << refused;
  EXPECT_TRUE(contains(refused, "choose another node ID")) << refused;
  EXPECT_TRUE(second.one("SELECT snowflake()").starts_with("error: snowflake(): ")) << "no node";
  ASSERT_EQ(second.one("SELECT idforge_node(8)"), "8");  // another node is free

  // Once the first has closed its database, the node is the second's, and so are only IDs
  // above every one the first issued.
  EXPECT_EQ(first.close_and_wait(), 0);
  ASSERT_EQ(second.one("SELECT idforge_node(7)"), "7");
  const auto after = snowflakes(second, 20000);
  ASSERT_EQ(after.size(), 20000u);
  EXPECT_GT(*std::min_element(after.begin(), after.end()),
            *std::max_element(before.begin(), before.end()));
}

TEST(SqliteProcesses, ARestartWithTheClockBehindDoesNotReissue) {
  if (!std::filesystem::exists(kFaketime)) GTEST_SKIP() << kFaketime << " is missing (faketime)";
  const std::string db = test_database();
  std::uint64_t last = 0;
  {
    SqlProcess first(db);
    ASSERT_EQ(first.one("SELECT idforge_node(7)"), "7");
    const auto ids = snowflakes(first, 20000);
    last = *std::max_element(ids.begin(), ids.end());
  }
  // Two seconds behind: it waits for its clock to pass the stored mark, then issues above it.
  {
    SqlProcess behind(db, "-2");
    ASSERT_EQ(behind.one("SELECT idforge_node(7)"), "7");
    const auto ids = snowflakes(behind, 20000);
    EXPECT_GT(*std::min_element(ids.begin(), ids.end()), last);
    last = *std::max_element(ids.begin(), ids.end());
  }
  // An hour behind is further than a start waits: refused, naming the node and the mark.
  SqlProcess far_behind(db, "-3600");
  const std::string refused = far_behind.one("SELECT idforge_node(7)");
  EXPECT_TRUE(refused.starts_with("error: idforge_node(): ")) << refused;
  EXPECT_TRUE(contains(refused, "node 7")) << refused;
  if (!refused.starts_with("error: ")) {
    const auto ids = snowflakes(far_behind, 1000);
    EXPECT_GT(*std::min_element(ids.begin(), ids.end()), last);
  }
}

TEST(SqliteProcesses, AKilledHolderLeavesItsNodeWithoutRepeats) {
  const std::string db = test_database();
  std::uint64_t last = 0;
  {
    SqlProcess first(db);
    ASSERT_EQ(first.one("SELECT idforge_node(7)"), "7");
    const auto ids = snowflakes(first, 20000);
    last = *std::max_element(ids.begin(), ids.end());
    first.kill_and_wait();
  }
  SqlProcess next(db);
  ASSERT_EQ(next.one("SELECT idforge_node(7)"), "7");
  const auto ids = snowflakes(next, 1000);
  EXPECT_GT(*std::min_element(ids.begin(), ids.end()), last);
}

// No file, no folder beside it: idforge_node(N) alone is refused; a folder given takes N there,
// locked against other processes as beside a file.
TEST(SqliteProcesses, AnInMemoryDatabaseNeedsAFolderGiven) {
  Db memory(":memory:");
  const std::string refused = memory.error("SELECT idforge_node(7)");
  EXPECT_TRUE(contains(refused, "in memory or temporary")) << refused;
  EXPECT_TRUE(contains(refused, "idforge_node(7, 'file:/path/to/folder')")) << refused;
  EXPECT_EQ(memory.text("SELECT idforge_node()"), "NULL");
  Db temporary("");
  EXPECT_TRUE(contains(temporary.error("SELECT idforge_node(7, 'twitter')"), "temporary"));

  const std::string folder = test_database() + "-given";
  SqlProcess first(":memory:"), second(":memory:");
  ASSERT_EQ(first.one("SELECT idforge_node(7, 'file:" + folder + "')"), "7");
  const std::string taken = second.one("SELECT idforge_node(7, 'twitter', 'file:" + folder + "')");
  EXPECT_TRUE(contains(taken, "node 7 is locked under " + folder)) << taken;
  EXPECT_EQ(second.one("SELECT idforge_node(9, 'file:" + folder + "')"), "9");
}

}  // namespace
}  // namespace idforge::sqlite_test
