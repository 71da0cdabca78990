// A command whose output cannot be written fails with a message and exit 1 (`> /dev/full`),
// and a closed pipe (`| head -1`) ends it as it ends coreutils: quietly by SIGPIPE, or, when
// SIGPIPE is ignored, with the write error reported.
#include <gtest/gtest.h>

#include <csignal>

#include "one_line_error.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

namespace idforge {
namespace {

using test::expect_one_line_error;
using test::run_idforge;
using test::ScratchDir;
using test::StdoutTo;

constexpr const char* kFull = "cannot write to standard output: No space left on device";
constexpr const char* kUuid = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";

void expect_full_disk_error(const std::vector<std::string>& args) {
  SCOPED_TRACE(::testing::PrintToString(args));
  expect_one_line_error(run_idforge(args, {}, StdoutTo::dev_full), 1, kFull);
}

TEST(CliWriteErrors, GenReportsAFullDiskForLargeAndSmallOutputs) {
  // -n 1 stays in the stdio buffer until exit: the failure shows only when it is flushed.
  for (const char* n : {"100000", "1"}) {
    expect_full_disk_error({"gen", "snowflake", "--node", "1", "-n", n});
    for (const char* kind : {"uuid7", "uuid4", "ulid", "typeid", "ksuid"})
      expect_full_disk_error({"gen", kind, "-n", n});
  }
  expect_full_disk_error({"gen", "uuid7", "-n", "3", "--format", "json"});
}

TEST(CliWriteErrors, InspectConvertAndLayoutReportAFullDisk) {
  expect_full_disk_error({"inspect", "1234"});
  expect_full_disk_error({"inspect", "--json", "1234", kUuid});
  expect_full_disk_error({"convert", kUuid, "--to", "ulid"});
  expect_full_disk_error({"layout", "twitter"});
  expect_full_disk_error({"layout", "--json", "sonyflake"});
}

TEST(CliWriteErrors, HelpAndVersionReportAFullDisk) {
  expect_full_disk_error({"--help"});
  expect_full_disk_error({"gen", "snowflake", "--help"});
  expect_full_disk_error({"--version"});
}

TEST(CliWriteErrors, AFailedCommandStillSaysItsOwnErrorOnce) {
  // The per-ID error and the final one; the output failure is one more line, not a crash.
  const auto r = run_idforge({"inspect", "1234", "nope"}, {}, StdoutTo::dev_full);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(kFull), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << r.err;
}

#ifdef IDFORGE_TEST_HAVE_LAB
TEST(CliWriteErrors, LabReportsAFullDisk) {
  ScratchDir dir;
  expect_full_disk_error({"lab", "btree", "--demo"});
  expect_full_disk_error({"lab", "btree", "-n", "1000", "--json"});
  expect_full_disk_error({"lab", "cost", "--fill-from", "seed"});
  expect_full_disk_error({"lab", "db", "--engine", "sqlite", "--rows", "10", "--kinds", "uuid7",
                          "--sqlite-dir", dir.path().string(), "-q"});
}
#endif

#ifdef IDFORGE_TEST_HAVE_TICKET
TEST(CliWriteErrors, SeqReportsAFullDisk) {
  ScratchDir dir;
  const std::string store = "sqlite:" + (dir / "seq.db");
  expect_full_disk_error({"seq", "create", "orders", "--store", store});
  expect_full_disk_error({"seq", "next", "orders", "-n", "20000", "--store", store});
  expect_full_disk_error({"seq", "stats", "--store", store, "--json"});
}
#endif

#ifdef IDFORGE_TEST_HAVE_COORD
TEST(CliWriteErrors, LeaseReportsAFullDisk) {
  ScratchDir dir;
  const std::string store = "file:" + (dir / "leases");
  expect_full_disk_error({"lease", "acquire", "--store", store, "--hold", "0"});
  expect_full_disk_error({"lease", "list", "--store", store});
  // The failed acquire let its node go: the next one gets node 0 again.
  const auto r =
      run_idforge({"lease", "acquire", "--store", store, "--hold", "0", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"node\":0"), std::string::npos) << r.out;
}
#endif

TEST(CliWriteErrors, AClosedPipeEndsQuietlyBySigpipe) {
  for (const std::vector<std::string> args :
       {std::vector<std::string>{"gen", "snowflake", "--node", "1", "-n", "100000"},
        std::vector<std::string>{"gen", "uuid7", "-n", "1"},
        std::vector<std::string>{"layout", "twitter"}}) {
    const auto r = run_idforge(args, {}, StdoutTo::closed_pipe);
    EXPECT_EQ(r.exit_code, 128 + SIGPIPE) << ::testing::PrintToString(args) << r.err;
    EXPECT_EQ(r.err, "") << ::testing::PrintToString(args);
  }
}

TEST(CliWriteErrors, AClosedPipeWithSigpipeIgnoredIsAWriteError) {
  const auto r =
      run_idforge({"gen", "ulid", "-n", "100000"}, {}, StdoutTo::closed_pipe_sigpipe_ignored);
  expect_one_line_error(r, 1, "cannot write to standard output: Broken pipe");
}

}  // namespace
}  // namespace idforge
