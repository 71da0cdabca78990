// Operator faults on the disk under a file: store: a lease folder that is read-only or full,
// at start and while a node is held. The folder is a small tmpfs mounted for the test (a
// full disk is a full tmpfs; read-only is a read-only remount of it), so the kernel returns
// the real EROFS and ENOSPC. Mounting needs CAP_SYS_ADMIN: without it the tests skip and say
// so.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "idforge/coord/lease.hpp"
#include "idforge/coord/leased_generator.hpp"
#include "idforge/snowflake.hpp"
#include "run_command.hpp"
#include "test_support.hpp"

namespace idforge::coord {
namespace {

const Layout kTwitter = presets::twitter();
constexpr std::int64_t kT = 1'800'000'000'000;
constexpr std::int64_t kMs = 1'000'000;

// A tmpfs of `size` mounted on a scratch folder for the test's lifetime.
class SmallDisk {
 public:
  explicit SmallDisk(const char* size) {
    const std::string options = std::string("size=") + size + ",mode=0755";
    if (mount("tmpfs", dir_.path().c_str(), "tmpfs", 0, options.c_str()) != 0)
      why_not_ = std::string("cannot mount a tmpfs here (") + std::strerror(errno) +
                 "): needs root or CAP_SYS_ADMIN";
  }
  ~SmallDisk() {
    if (why_not_.empty()) umount2(dir_.path().c_str(), MNT_DETACH);
  }
  const std::string& why_not() const { return why_not_; }
  const std::string& path() const { return dir_.path(); }
  bool read_only() {
    return mount(nullptr, dir_.path().c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) == 0;
  }
  // Writes a filler file until the disk answers ENOSPC.
  bool fill() {
    std::FILE* f = std::fopen((path() + "/filler").c_str(), "w");
    if (f == nullptr) return false;
    static const char block[4096] = {};
    while (std::fwrite(block, 1, sizeof block, f) == sizeof block && std::fflush(f) == 0) {
    }
    const bool full = errno == ENOSPC;
    std::fclose(f);
    return full;
  }
  void unfill() { std::filesystem::remove(path() + "/filler"); }

 private:
  test::ScratchDir dir_;
  std::string why_not_;
};

#define NEED_MOUNT(disk) \
  if (!(disk).why_not().empty()) GTEST_SKIP() << (disk).why_not()

std::int64_t mark_on_disk(const std::string& dir, std::uint64_t node) {
  std::ifstream in(dir + "/node-" + std::to_string(node) + ".mark");
  std::int64_t m = -1;
  in >> m;
  return m;
}

// Start-up on a read-only folder: refused with the path and the reason, nothing issued.
TEST(DataFolderFaults, AReadOnlyLeaseFolderIsRefusedAtStartNamingIt) {
  SmallDisk disk("256k");
  NEED_MOUNT(disk);
  ASSERT_TRUE(disk.read_only());
  try {
    open_lease_store("file:" + disk.path())->acquire(kTwitter);
    FAIL() << "took a node in a read-only folder";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(disk.path()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Read-only file system"), std::string::npos) << e.what();
  }
  if (std::string(IDFORGE_BINARY).empty()) return;
  const auto r = test::run_idforge(
      {"gen", "snowflake", "--node", "auto", "--lease-store", "file:" + disk.path()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(disk.path()), std::string::npos) << r.err;
}

// Start-up on a full disk: the mark cannot be reserved, so nothing is issued.
TEST(DataFolderFaults, AFullDiskIsRefusedAtStartNamingIt) {
  SmallDisk disk("256k");
  NEED_MOUNT(disk);
  ASSERT_TRUE(disk.fill());
  try {
    SharedLeasedSnowflakeGenerator gen(open_lease_store("file:" + disk.path()), kTwitter);
    FAIL() << "started on a full disk, node " << gen.node();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
  }
}

// While a node is held the disk fills up: renewals fail, the generator issues up to the
// window it has reserved and stored, then pauses (fenced); once the disk takes writes again
// it resumes above everything it issued. (A read-only remount under a holder is refused by
// the kernel, EBUSY, while the lock file is open for writing; a file system that turns
// itself read-only on an error fails the same mark write with EROFS, the same path.)
TEST(DataFolderFaults, ADiskFilledWhileHeldPausesAtTheStoredWindowThenResumes) {
  SmallDisk disk("256k");
  NEED_MOUNT(disk);
  ManualClock clock(kT * kMs);
  LeasedOptions options;
  options.keeper.renew_in_background = false;
  SharedLeasedSnowflakeGenerator gen(open_lease_store("file:" + disk.path() + "?ttl=3000"),
                                     kTwitter, clock, {}, options);
  const Snowflake first = gen.next();
  const std::int64_t stored = mark_on_disk(disk.path(), gen.node());
  ASSERT_GE(stored, kT);
  ASSERT_TRUE(disk.fill());
  clock.advance_ns(1000 * kMs);  // a renewal now reserves a later mark: it must write it
  EXPECT_FALSE(gen.keeper().renew()) << "renewed on a full disk";
  EXPECT_NE(gen.keeper().status().last_error.find("No space left on device"), std::string::npos)
      << gen.keeper().status().last_error;
  EXPECT_EQ(mark_on_disk(disk.path(), gen.node()), stored);
  EXPECT_NO_THROW(gen.next()) << "the window already stored is still good";
  clock.set_ns((stored + 1) * kMs);  // past the stored window
  try {
    const Snowflake id = gen.next();
    FAIL() << "issued in ms " << decompose(kTwitter, id).unix_ms << " above the stored mark "
           << stored;
  } catch (const LeaseError& e) {
    EXPECT_EQ(e.reason(), LeaseFailure::fenced) << e.what();
  }
  disk.unfill();
  ASSERT_TRUE(gen.keeper().renew()) << gen.keeper().status().last_error;
  EXPECT_GT(gen.next().value(), first.value());
  EXPECT_GT(mark_on_disk(disk.path(), gen.node()), stored);
}

}  // namespace
}  // namespace idforge::coord
