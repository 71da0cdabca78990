// What a file: store accepts as a high-water mark: a regular file (a FIFO, a device or a
// link put there is refused at once, never waited on), short, holding a Unix time in range;
// and the layout that wrote it, so a start with a layout whose IDs can coincide is refused.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "idforge/coord/lease.hpp"
#include "test_support.hpp"

namespace idforge::coord {
namespace {

const Layout kTwitter = presets::twitter();
constexpr std::int64_t kT = 1'800'000'000'000;

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string first_error(const std::string& url, const Layout& layout = kTwitter) {
  try {
    open_lease_store(url)->acquire_node(layout, 0);
  } catch (const LeaseError& e) {
    return e.what();
  }
  return "";
}

// Runs the acquire in a child with an alarm: a store that waits on the file fails the test
// (status 128 + SIGALRM) instead of hanging it. 0: refused naming path and what it is.
int acquire_refuses_within_seconds(const std::string& url, const std::string& path,
                                   const std::string& what) {
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(10);
    const std::string m = first_error(url);
    _exit(m.find(path) != std::string::npos && m.find(what) != std::string::npos ? 0 : 2);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(MarkFile, AFifoAsTheMarkIsRefusedAtOnceNamingIt) {
  test::ScratchDir dir;
  const std::string mark = dir.path() + "/node-0.mark";
  ASSERT_EQ(mkfifo(mark.c_str(), 0644), 0);
  EXPECT_EQ(acquire_refuses_within_seconds("file:" + dir.path(), mark, "is a FIFO"), 0)
      << "2: another error; 142: hung in open() until the alarm";
}

TEST(MarkFile, AFifoAsTheLockFileIsRefusedAtOnceNamingIt) {
  test::ScratchDir dir;
  const std::string lock = dir.path() + "/node-0.lock";
  ASSERT_EQ(mkfifo(lock.c_str(), 0644), 0);
  EXPECT_EQ(acquire_refuses_within_seconds("file:" + dir.path(), lock, "is a FIFO"), 0);
}

TEST(MarkFile, ASymbolicLinkToADeviceIsRefusedUnread) {
  test::ScratchDir dir;
  const std::string mark = dir.path() + "/node-0.mark";
  ASSERT_EQ(symlink("/dev/zero", mark.c_str()), 0);
  const std::string m = first_error("file:" + dir.path());
  EXPECT_NE(m.find(mark + " is a symbolic link, not a regular file"), std::string::npos) << m;
}

TEST(MarkFile, ANulByteIsShownEscapedAndTheMessageGoesOn) {
  test::ScratchDir dir;
  write_file(dir.path() + "/node-0.mark", std::string("12\0xyz\n", 7));
  const std::string m = first_error("file:" + dir.path());
  EXPECT_NE(m.find("holds '12\\x00xyz', not a Unix time in ms"), std::string::npos) << m;
}

TEST(MarkFile, AMarkLongerThanAnyIsRefusedByItsSize) {
  test::ScratchDir dir;
  write_file(dir.path() + "/node-0.mark", std::string(1 << 20, '1'));
  const std::string m = first_error("file:" + dir.path());
  EXPECT_NE(m.find("is 1048576 bytes, longer than any mark (at most 256)"), std::string::npos) << m;
}

TEST(MarkFile, AMarkOutsideTheUnixTimesAMarkCanHoldIsRefusedNamingValueAndRule) {
  for (const std::string value : {"-5", "9223372036854775807", "253402300800000"}) {
    test::ScratchDir dir;
    write_file(dir.path() + "/node-0.mark", value + "\n");
    const std::string m = first_error("file:" + dir.path());
    EXPECT_NE(m.find("holds " + value +
                     ", out of range: a mark is a Unix time in ms from 0 to "
                     "253402300799999 (9999-12-31T23:59:59.999Z)"),
              std::string::npos)
        << m;
  }
  test::ScratchDir dir;  // the last millisecond of 9999 is still a mark
  write_file(dir.path() + "/node-0.mark", "253402300799999\n");
  EXPECT_EQ(first_error("file:" + dir.path()), "");
}

Layout twitter_with_epoch(std::int64_t epoch_ms) {
  LayoutFields f = kTwitter.fields();
  f.epoch_ms = epoch_ms;
  return Layout::make(f, kT);
}

// The mark a holder stores names its layout; a start with another layout whose IDs can
// coincide with those issued (a later epoch reissues the old IDs) is refused naming both.
TEST(MarkFile, AnotherLayoutWhoseIdsCanCoincideIsRefusedNamingBoth) {
  test::ScratchDir dir;
  const std::string url = "file:" + dir.path();
  {
    auto store = open_lease_store(url);
    Lease lease = store->acquire_node(kTwitter, 0);
    store->renew(lease, kT);
    store->release(lease, kT);
  }
  std::ifstream in(dir.path() + "/node-0.mark");
  std::string line1, line2;
  std::getline(in, line1);
  std::getline(in, line2);
  EXPECT_EQ(line1, std::to_string(kT));
  const std::string twitter_spec =
      "time=41,dc=5,worker=5,seq=12,tick=1ms,epoch=1288834974657,order=time-node-seq,signed";
  EXPECT_EQ(line2, "layout " + twitter_spec);

  const Layout later = twitter_with_epoch(kTwitter.epoch_ms() + 86'400'000);
  const std::string m = first_error(url, later);
  EXPECT_NE(m.find("was written by layout '" + twitter_spec + "' (up to " + std::to_string(kT) +
                   " ms), and this start uses layout 'time=41,dc=5,worker=5,seq=12,tick=1ms,"
                   "epoch=1288921374657,order=time-node-seq,signed': IDs of the two layouts "
                   "can coincide"),
            std::string::npos)
      << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;

  // An earlier epoch puts every new ID above every old one: allowed, and recorded.
  const Layout earlier = twitter_with_epoch(kTwitter.epoch_ms() - 86'400'000);
  EXPECT_EQ(first_error(url, earlier), "");
  // The same layout under another name is the same layout.
  LayoutFields renamed = kTwitter.fields();
  renamed.name = "ours";
  EXPECT_EQ(first_error(url, Layout::make(renamed, kT)), "");
}

TEST(MarkFile, AMarkWithoutALayoutIsTakenAsTheCurrentLayouts) {
  test::ScratchDir dir;
  write_file(dir.path() + "/node-0.mark", std::to_string(kT) + "\n");
  const std::string url = "file:" + dir.path();
  auto store = open_lease_store(url);
  Lease lease = store->acquire_node(twitter_with_epoch(kTwitter.epoch_ms() + 86'400'000), 0);
  EXPECT_EQ(lease.high_water_unix_ms, kT);
}

}  // namespace
}  // namespace idforge::coord
