// MaskKeyring::load_file leaves no freed heap block holding a secret: every allocation this
// test program makes goes through the operator new/delete below, and while the watch is on,
// each block starts zeroed and is searched for the secrets (as hex and as bytes) when freed.
#include <gtest/gtest.h>
#include <malloc.h>
#include <sodium.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>
#include <vector>

#include "idforge/mask_keyring.hpp"

namespace {

// What the watch looks for; fixed before it is switched on and not changed while it runs.
struct Watch {
  std::atomic<bool> on{false};
  std::vector<std::string> needles;
  std::atomic<std::size_t> freed_with_secret{0};
  std::atomic<std::size_t> largest{0};  // bytes of the largest such block
  std::atomic<std::size_t> freed{0};    // blocks freed while watching, secret or not
};
Watch g_watch;

void inspect_freed(void* p) noexcept {
  if (p == nullptr || !g_watch.on.load(std::memory_order_acquire)) return;
  g_watch.freed.fetch_add(1, std::memory_order_relaxed);
  const std::size_t n = malloc_usable_size(p);
  for (const auto& needle : g_watch.needles)
    if (memmem(p, n, needle.data(), needle.size()) != nullptr) {
      g_watch.freed_with_secret.fetch_add(1, std::memory_order_relaxed);
      std::size_t seen = g_watch.largest.load(std::memory_order_relaxed);
      while (seen < n && !g_watch.largest.compare_exchange_weak(seen, n)) {
      }
      return;
    }
}

void* allocate(std::size_t n) {
  if (void* p = std::malloc(n == 0 ? 1 : n)) {
    // While watching, a block starts zeroed: what it holds when freed was written into it
    // then, not left by whoever had the memory before (the test's own strings, say).
    if (g_watch.on.load(std::memory_order_acquire)) std::memset(p, 0, malloc_usable_size(p));
    return p;
  }
  throw std::bad_alloc();
}

}  // namespace

void* operator new(std::size_t n) {
  return allocate(n);
}
void* operator new[](std::size_t n) {
  return allocate(n);
}
void operator delete(void* p) noexcept {
  inspect_freed(p);
  std::free(p);
}
void operator delete[](void* p) noexcept {
  inspect_freed(p);
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  inspect_freed(p);
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  inspect_freed(p);
  std::free(p);
}

namespace idforge {
namespace {

struct Key {
  unsigned id;
  unsigned char secret[MaskKey::kSecretBytes];
  std::string hex() const {
    char out[2 * MaskKey::kSecretBytes + 1];
    sodium_bin2hex(out, sizeof out, secret, sizeof secret);
    return out;
  }
};

class KeyringWipe : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_GE(sodium_init(), 0);
    for (unsigned id : {7u, 3u, 1u}) {
      Key k{id, {}};
      randombytes_buf(k.secret, sizeof k.secret);
      keys_.push_back(k);
    }
    g_watch.needles.clear();
    for (const auto& k : keys_) {
      g_watch.needles.push_back(k.hex());
      // Only a part of the hex: a block cut inside a secret still holds half of it.
      g_watch.needles.push_back(k.hex().substr(0, 32));
      g_watch.needles.push_back(
          std::string(reinterpret_cast<const char*>(k.secret), sizeof k.secret));
    }
    char tmpl[] = "/tmp/idforge-keyring-wipe-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    g_watch.on = false;
    std::filesystem::remove_all(dir_);
  }

  // A keyring of well over 4 KiB: a comment block, then every key, each with a long comment.
  std::string write_file() {
    std::string text = "# idforge mask keys\n";
    for (int i = 0; i < 60; ++i)
      text += "# rotation log line " + std::to_string(i) + ": " + std::string(60, '-') + "\n";
    for (const auto& k : keys_) {
      text += std::to_string(k.id) + ":" + k.hex() + "  # key " + std::to_string(k.id) + "\n";
      for (int i = 0; i < 40; ++i) text += "#" + std::string(70, ' ') + "\n";
    }
    EXPECT_GT(text.size(), 3 * 4096u);
    const std::string path = dir_ + "/mask.keys";
    std::ofstream(path) << text;
    sodium_memzero(text.data(), text.size());
    return path;
  }

  // Runs f with the watch on and returns how many freed blocks held a secret.
  template <class F>
  std::size_t watched(F&& f) {
    g_watch.freed_with_secret = 0;
    g_watch.largest = 0;
    g_watch.freed = 0;
    g_watch.on = true;
    f();
    g_watch.on = false;
    return g_watch.freed_with_secret.load();
  }

  std::vector<Key> keys_;
  std::string dir_;
};

TEST_F(KeyringWipe, TheWatchSeesASecretLeftInAFreedString) {
  // The check itself: a string holding a secret's hex, freed unwiped, is found.
  const std::string text = keys_[0].hex() + std::string(100, ' ');
  const std::size_t hits = watched([&] {
    auto* s = new std::string(text);
    delete s;  // the string's buffer is freed first, then the string itself
  });
  EXPECT_EQ(hits, 1u);
  EXPECT_GE(g_watch.largest.load(), 100u);
}

TEST_F(KeyringWipe, LoadingALargeKeyFileLeavesNoFreedBlockWithASecret) {
  const std::string path = write_file();
  std::optional<MaskKeyring> ring;
  const std::size_t hits = watched([&] { ring.emplace(MaskKeyring::load_file(path)); });
  EXPECT_EQ(hits, 0u) << "freed blocks holding a secret; the largest has " << g_watch.largest.load()
                      << " bytes";
  ASSERT_TRUE(ring);
  EXPECT_EQ(ring->ids(), (std::vector<unsigned>{7, 3, 1}));
  EXPECT_EQ(ring->at(3).mask_u63(42), MaskKey(3, keys_[1].secret).mask_u63(42));
}

TEST_F(KeyringWipe, AKeyFileRefusedPartWayLeavesNoFreedBlockWithASecret) {
  // The secrets are read, then an entry fails: the buffer goes while the error unwinds.
  const std::string path = write_file();
  std::ofstream(path, std::ios::app) << "9:not-hex\n";
  const std::size_t hits = watched([&] { EXPECT_THROW(MaskKeyring::load_file(path), Error); });
  EXPECT_EQ(hits, 0u) << "the largest has " << g_watch.largest.load() << " bytes";
}

TEST_F(KeyringWipe, KeysFromTheEnvironmentLeaveNoFreedBlockWithASecret) {
  std::string text;
  for (const auto& k : keys_) text += std::to_string(k.id) + ":" + k.hex() + ",";
  ASSERT_EQ(::setenv(kMaskKeysEnv, text.c_str(), 1), 0);
  ::unsetenv(kMaskKeyFileEnv);
  sodium_memzero(text.data(), text.size());
  std::optional<MaskKeyring> ring;
  const std::size_t hits = watched([&] { ring.emplace(MaskKeyring::from_environment()); });
  ::unsetenv(kMaskKeysEnv);
  EXPECT_EQ(hits, 0u);
  ASSERT_TRUE(ring);
  EXPECT_EQ(ring->ids(), (std::vector<unsigned>{7, 3, 1}));
}

}  // namespace
}  // namespace idforge
