// UUIDv7, ULID and UUIDv4 duplicate hunt: fork storms (the classic way to repeat a random
// stream) and threads sharing one generator while the clock steps back and forth.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "hunt.hpp"
#include "idforge/error.hpp"
#include "idforge/random.hpp"
#include "idforge/ulid_generator.hpp"
#include "idforge/uuid_generator.hpp"

namespace idforge::stress {
namespace {

// 16-byte values of one kind, comparable bytewise (all three kinds sort by their bytes).
using Bytes = std::array<std::uint8_t, 16>;

template <typename T>
Bytes bytes_of(const T& v) {
  Bytes b;
  static_assert(sizeof(T) == 16);
  std::memcpy(b.data(), &v, 16);
  return b;
}

struct ThreeKinds {
  std::vector<Bytes> v7, ulid, v4;
};

ThreeKinds make(SharedUuidV7Generator& g7, SharedUlidGenerator& gu, std::uint64_t n) {
  ThreeKinds k;
  k.v7.reserve(n), k.ulid.reserve(n), k.v4.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    k.v7.push_back(bytes_of(g7.next()));
    k.ulid.push_back(bytes_of(gu.next()));
    k.v4.push_back(bytes_of(new_uuid_v4()));
  }
  return k;
}

void save(const std::string& path, const ThreeKinds& k) {
  std::ofstream out(path, std::ios::binary);
  for (const auto* v : {&k.v7, &k.ulid, &k.v4})
    out.write(reinterpret_cast<const char*>(v->data()),
              static_cast<std::streamsize>(v->size() * 16));
}

ThreeKinds load(const std::string& path, std::uint64_t n) {
  ThreeKinds k;
  std::ifstream in(path, std::ios::binary);
  for (auto* v : {&k.v7, &k.ulid, &k.v4}) {
    v->resize(n);
    in.read(reinterpret_cast<char*>(v->data()), static_cast<std::streamsize>(n * 16));
  }
  return k;
}

std::uint64_t duplicates(std::vector<Bytes>& all) {
  std::sort(all.begin(), all.end());
  std::uint64_t d = 0;
  for (std::size_t i = 1; i < all.size(); ++i) d += all[i] == all[i - 1];
  return d;
}

TEST(RandomHunt, ForkStormNeverRepeatsTheParentOrASibling) {
  const Profile prof = profile_from_env();
  const std::uint64_t n = prof.random_ids_per_thread / 2;
  constexpr int kChildren = 8;
  SharedUuidV7Generator g7;
  SharedUlidGenerator gu;
  // The parent draws first, so the children inherit a used random stream and used
  // generator state: exactly what a forking server does.
  std::uint8_t warm[64];
  random_fill(warm, sizeof warm);
  (void)make(g7, gu, 1000);
  char tmpl[] = "/tmp/idforge-fork-hunt-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  std::vector<pid_t> pids;
  for (int c = 0; c < kChildren; ++c) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      save(dir + "/child." + std::to_string(c), make(g7, gu, n));
      _exit(0);
    }
    pids.push_back(pid);
  }
  ThreeKinds parent = make(g7, gu, n);
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::vector<ThreeKinds> all{std::move(parent)};
  for (int c = 0; c < kChildren; ++c) all.push_back(load(dir + "/child." + std::to_string(c), n));
  std::filesystem::remove_all(dir);
  const char* names[] = {"uuid7 (fork storm)", "ulid (fork storm)", "uuid4 (fork storm)"};
  for (int kind = 0; kind < 3; ++kind) {
    std::vector<Bytes> merged;
    for (auto& k : all) {
      auto& v = kind == 0 ? k.v7 : kind == 1 ? k.ulid : k.v4;
      merged.insert(merged.end(), v.begin(), v.end());
    }
    HuntReport r{names[kind], merged.size(), merged.size(), 0, 0, 0};
    r.duplicated = duplicates(merged);
    publish(r);
    EXPECT_EQ(r.duplicated, 0u) << names[kind];
  }
}

TEST(RandomHunt, ThreadsOnSharedGeneratorsStayStrictlyOrderedThroughClockSteps) {
  const Profile prof = profile_from_env();
  FaultClock clock;
  SharedUuidV7Generator g7(clock);
  SharedUlidGenerator gu(clock);
  constexpr std::int64_t kMs = 1'000'000;
  const std::int64_t steps[] = {-1 * kMs,    -5 * kMs,   -6 * kMs,
                                -1000 * kMs, 1000 * kMs, 3'600'000 * kMs};
  const int threads = std::max(prof.threads, 2);
  const std::uint64_t per_thread = prof.random_ids_per_thread;
  std::vector<std::vector<Bytes>> v7(threads), ul(threads);
  std::vector<HuntReport> rep7(threads), repu(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      v7[t].reserve(per_thread), ul[t].reserve(per_thread);
      int next_step = 0;
      while (v7[t].size() < per_thread) {
        if (t == 0 && next_step < 6 && v7[t].size() * 7 >= per_thread * (next_step + 1))
          clock.step_ns(steps[next_step++]);
        ++rep7[t].attempted, ++repu[t].attempted;
        const Bytes a = bytes_of(g7.next());
        if (!v7[t].empty() && a <= v7[t].back()) ++rep7[t].order_violations;
        v7[t].push_back(a);
        ++rep7[t].acknowledged;
        try {
          const Bytes b = bytes_of(gu.next());
          if (!ul[t].empty() && b <= ul[t].back()) ++repu[t].order_violations;
          ul[t].push_back(b);
          ++repu[t].acknowledged;
        } catch (const Error&) {
          ++repu[t].refused;  // a ULID counter that overflows is an error, not a wrap
        }
      }
    });
  for (auto& th : pool) th.join();
  HuntReport t7{"uuid7 (shared, clock steps)"}, tu{"ulid (shared, clock steps)"};
  std::vector<Bytes> m7, mu;
  for (int t = 0; t < threads; ++t) {
    t7 += rep7[t], tu += repu[t];
    m7.insert(m7.end(), v7[t].begin(), v7[t].end());
    mu.insert(mu.end(), ul[t].begin(), ul[t].end());
  }
  t7.duplicated = duplicates(m7);
  tu.duplicated = duplicates(mu);
  publish(t7);
  publish(tu);
  EXPECT_EQ(t7.duplicated, 0u);
  EXPECT_EQ(tu.duplicated, 0u);
  EXPECT_EQ(t7.order_violations, 0u);
  EXPECT_EQ(tu.order_violations, 0u);
}

}  // namespace
}  // namespace idforge::stress
