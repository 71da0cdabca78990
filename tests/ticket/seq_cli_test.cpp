// `idforge seq` where the old one surprised: a mistyped store path made a new store (and its
// folders) that starts again at 1, an in-memory store vanished on exit, a relative path meant
// one store per working folder, a read-only store said "unable to open database file",
// values lost to SIGTERM were not counted, and a step beyond 2^63-1 was quietly clamped.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "idforge/ticket/segment_store.hpp"
#include "test_support.hpp"

namespace idforge::ticket {
namespace {

std::int64_t abandoned_of(const std::string& store, const std::string& name) {
  for (const auto& r : open_segment_store(store)->stats())
    if (r.name == name) return r.abandoned;
  return -1;
}

TEST(SeqCli, OnlyCreateMakesAStore) {
  const std::string dir = test::temp_dir();
  const std::string store = "sqlite:" + dir + "/typo/folder/seq.db";
  for (const auto& cmd : {std::vector<std::string>{"seq", "stats", "--store", store},
                          std::vector<std::string>{"seq", "next", "orders", "--store", store}}) {
    const auto r = test::run_cli(cmd);
    EXPECT_EQ(r.exit_code, 1) << cmd[1];
    EXPECT_NE(r.err.find("does not exist: only `idforge seq create"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir + "/typo")) << cmd[1] << " made the folder";
  }
  auto r = test::run_cli({"seq", "create", "orders", "--store", store});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli({"seq", "next", "orders", "--store", store});
  EXPECT_EQ(r.lines(), (std::vector<std::string>{"1"}));
}

TEST(SeqCli, AnInMemoryStoreIsRefused) {
  const auto r = test::run_cli({"seq", "create", "orders", "--store", "sqlite::memory:"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("is an in-memory database: it vanishes when the process exits"),
            std::string::npos)
      << r.err;
}

TEST(SeqCli, ARelativeStoreFromAnotherFolderIsNotASecondStore) {
  const std::string a = test::temp_dir(), b = test::temp_dir();
  const auto here = std::filesystem::current_path();
  std::filesystem::current_path(a);
  auto r = test::run_cli({"seq", "create", "orders", "--store", "sqlite:rel/seq.db"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(" + a + "/rel/seq.db)"), std::string::npos) << "shows where: " << r.out;
  EXPECT_NE(r.err.find("is relative"), std::string::npos) << r.err;
  r = test::run_cli({"seq", "next", "orders", "-n", "2", "--store", "sqlite:rel/seq.db"});
  EXPECT_EQ(r.lines(), (std::vector<std::string>{"1", "2"}));
  std::filesystem::current_path(b);
  r = test::run_cli({"seq", "next", "orders", "-n", "2", "--store", "sqlite:rel/seq.db"});
  std::filesystem::current_path(here);
  EXPECT_EQ(r.exit_code, 1) << "a second store started at: " << r.out;
  EXPECT_NE(r.err.find(b + "/rel/seq.db"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
}

TEST(SeqCli, AReadOnlyStoreSaysReadOnly) {
  if (std::system("runuser -u nobody -- true 2>/dev/null") != 0)
    GTEST_SKIP() << "cannot run a command as user nobody here";
  const std::string dir = test::temp_dir();
  const std::string store = "sqlite:" + dir + "/seq.db";
  ASSERT_EQ(test::run_cli({"seq", "create", "orders", "--store", store}).exit_code, 0);
  // Readable by everyone, writable by its owner (root) only.
  chmod(dir.c_str(), 0755);
  for (const auto& e : std::filesystem::directory_iterator(dir)) chmod(e.path().c_str(), 0644);
  const std::string err = dir + "/err.txt";
  const std::string cmd = "runuser -u nobody -- " IDFORGE_BINARY " seq next orders --store " +
                          store + " >/dev/null 2>" + err;
  const int status = std::system(cmd.c_str());
  std::ifstream in(err);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_NE(status, 0);
  EXPECT_NE(s.str().find("is read-only"), std::string::npos) << s.str();
  EXPECT_EQ(s.str().find("unable to open database file\n"), std::string::npos) << s.str();
}

TEST(SeqCli, ValuesLostToSigtermAreCountedAsAbandoned) {
  const std::string dir = test::temp_dir();
  const std::string store = "sqlite:" + dir + "/seq.db";
  ASSERT_EQ(test::run_cli({"seq", "create", "big", "--store", store}).exit_code, 0);
  constexpr std::int64_t kCount = 20'000'000;
  // Nobody reads stdout at first: the command fills the pipe and blocks in write().
  auto child = test::spawn(IDFORGE_BINARY,
                           {"seq", "next", "big", "-n", std::to_string(kCount), "--store", store});
  char first[4096];
  const ssize_t n = read(child.out_fd, first, sizeof first);  // it is running and writing
  ASSERT_GT(n, 0);
  kill(child.pid, SIGTERM);
  auto [code, rest] = test::finish(child);
  const std::string out = std::string(first, static_cast<std::size_t>(n)) + rest;
  EXPECT_EQ(code, 128 + SIGTERM);
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out.back(), '\n') << "the last line is whole";
  const auto printed = static_cast<std::int64_t>(std::count(out.begin(), out.end(), '\n'));
  EXPECT_LT(printed, kCount);
  EXPECT_EQ(abandoned_of(store, "big"), kCount - printed)
      << "printed " << printed << " of " << kCount;
}

TEST(SeqCli, NumbersPastTheRangeAreRefusedNotClamped) {
  const std::string store = "--store=sqlite:" + test::temp_dir() + "/seq.db";
  for (const char* opt : {"--step", "--start"}) {
    const auto r = test::run_cli({"seq", "create", "x", opt, "99999999999999999999", store});
    EXPECT_EQ(r.exit_code, 2) << opt;
    EXPECT_NE(r.err.find("'99999999999999999999' is out of range"), std::string::npos) << r.err;
  }
  auto r = test::run_cli({"seq", "create", "x", "--step", "12abc", store});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'12abc' is not a whole number"), std::string::npos) << r.err;
  r = test::run_cli({"seq", "stats", "--json", store});
  EXPECT_EQ(r.out.find("\"name\":\"x\""), std::string::npos) << "nothing was created: " << r.out;
}

// The values run up to 2^63-1 inclusive: the last block ends there (shorter when fewer are
// left), and only after it is the sequence exhausted.
void hands_out_up_to_the_largest(const std::string& store) {
  const std::string top = test::unique_name("top"), few = test::unique_name("few");
  auto r =
      test::run_cli({"seq", "create", top, "--start", "9223372036854775807", "--store", store});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli({"seq", "next", top, "--store", store});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "9223372036854775807\n");
  r = test::run_cli({"seq", "next", top, "--store", store});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.err.find("every value up to 2^63-1"), std::string::npos) << r.err;

  r = test::run_cli({"seq", "create", few, "--start", "9223372036854775805", "--store", store});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli({"seq", "next", few, "-n", "3", "--store", store});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "9223372036854775805\n9223372036854775806\n9223372036854775807\n");
  r = test::run_cli({"seq", "next", few, "--store", store});
  EXPECT_EQ(r.exit_code, 1) << r.out;
}

TEST(SeqCli, SqliteHandsOutValuesUpToTheLargest) {
  const std::string dir = test::temp_dir();
  hands_out_up_to_the_largest("sqlite:" + dir + "/big.db");
}

TEST(SeqCli, PostgresHandsOutValuesUpToTheLargest) {
  IDFORGE_NEED_SERVICE(url, "IDFORGE_PG_URL");
  hands_out_up_to_the_largest(url);
}

}  // namespace
}  // namespace idforge::ticket
