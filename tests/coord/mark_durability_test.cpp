// The mark's durability, checked at the system calls. A renewal stores the mark, and only
// then may the generator issue up to it, so the mark must survive a power loss once renew()
// returns: its text goes to a temporary file that is fdatasync()ed, renamed over the mark,
// and then the directory is fsync()ed, without which the rename itself can be undone. This
// program interposes those calls (the library is linked statically into it) and records
// them in order.
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "idforge/coord/lease.hpp"
#include "test_support.hpp"

namespace {

std::mutex g_mu;
bool g_recording = false;
std::vector<std::string> g_calls;

std::string path_of(int fd) {
  char buf[PATH_MAX];
  const ssize_t n = readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "?";
}

void record(const std::string& call) {
  std::lock_guard lock(g_mu);
  if (g_recording) g_calls.push_back(call);
}

template <typename F>
F real(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" int fsync(int fd) {
  record("fsync " + path_of(fd));
  return real<int (*)(int)>("fsync")(fd);
}

extern "C" int fdatasync(int fd) {
  record("fdatasync " + path_of(fd));
  return real<int (*)(int)>("fdatasync")(fd);
}

extern "C" int rename(const char* from, const char* to) noexcept {
  record(std::string("rename ") + from + " " + to);
  return real<int (*)(const char*, const char*)>("rename")(from, to);
}

namespace idforge::coord {
namespace {

const Layout kTwitter = presets::twitter();

std::vector<std::string> recorded(const std::function<void()>& fn) {
  {
    std::lock_guard lock(g_mu);
    g_calls.clear();
    g_recording = true;
  }
  fn();
  std::lock_guard lock(g_mu);
  g_recording = false;
  return g_calls;
}

std::ptrdiff_t position(const std::vector<std::string>& calls, const std::string& call) {
  const auto it = std::find(calls.begin(), calls.end(), call);
  return it == calls.end() ? -1 : it - calls.begin();
}

std::string joined(const std::vector<std::string>& calls) {
  std::string s;
  for (const auto& c : calls) s += "\n  " + c;
  return s;
}

TEST(MarkDurability, TheDirectoryIsSyncedAfterTheRenameBeforeRenewReturns) {
  test::ScratchDir dir;
  const std::string real_dir = std::filesystem::canonical(dir.path()).string();
  auto store = open_lease_store("file:" + dir.path());
  Lease lease = store->acquire(kTwitter);
  const auto calls = recorded([&] { store->renew(lease, 1'800'000'000'000); });
  const std::string tmp = dir.path() + "/node-0.mark.tmp." + std::to_string(getpid());
  const auto data =
      position(calls, "fdatasync " + real_dir + "/node-0.mark.tmp." + std::to_string(getpid()));
  const auto moved = position(calls, "rename " + tmp + " " + dir.path() + "/node-0.mark");
  const auto synced = position(calls, "fsync " + real_dir);
  EXPECT_GE(data, 0) << joined(calls);
  EXPECT_GT(moved, data) << joined(calls);
  EXPECT_GT(synced, moved) << "the rename is not made durable:" << joined(calls);
  store->release(lease, 1);
}

TEST(MarkDurability, ANewLeaseDirectoryIsSyncedIntoItsParent) {
  test::ScratchDir dir;
  const std::string real_dir = std::filesystem::canonical(dir.path()).string();
  const auto calls =
      recorded([&] { open_lease_store("file:" + dir.path() + "/a/leases")->acquire(kTwitter); });
  EXPECT_GE(position(calls, "fsync " + real_dir), 0) << joined(calls);
  EXPECT_GE(position(calls, "fsync " + real_dir + "/a"), 0) << joined(calls);
}

}  // namespace
}  // namespace idforge::coord
