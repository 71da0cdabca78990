// SharedTypeIdGenerator: shared by threads, every TypeID it returns is unique, carries the
// prefix, and each thread sees its own IDs strictly increasing.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "idforge/clock.hpp"
#include "idforge/error.hpp"
#include "idforge/typeid.hpp"

namespace idforge {
namespace {

TEST(SharedTypeIdGenerator, FourThreadsGetUniqueIdsIncreasingPerThread) {
  SharedTypeIdGenerator gen("order");
  constexpr int kThreads = 4, kEach = 20'000;
  std::vector<std::vector<TypeId>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      got[t].reserve(kEach);
      for (int i = 0; i < kEach; ++i) got[t].push_back(gen.next());
    });
  for (auto& th : threads) th.join();
  std::set<TypeId> all;
  for (const auto& v : got) {
    EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));
    EXPECT_EQ(std::adjacent_find(v.begin(), v.end()), v.end());
    for (const TypeId& id : v) {
      EXPECT_EQ(id.prefix(), "order");
      EXPECT_EQ(id.uuid().version(), 7);
      all.insert(id);
    }
  }
  EXPECT_EQ(all.size(), std::size_t{kThreads} * kEach);
}

TEST(SharedTypeIdGenerator, ClockSteppingBackKeepsIdsIncreasing) {
  ManualClock clock(1'700'000'000'000 * 1'000'000LL);
  SharedTypeIdGenerator gen("user", clock);
  const TypeId a = gen.next();
  clock.advance_ms(-60'000);
  const TypeId b = gen.next();
  EXPECT_LT(a, b);
  EXPECT_EQ(gen.prefix(), "user");
  EXPECT_EQ(TypeId::parse(b.to_string()), b);
}

TEST(SharedTypeIdGenerator, ABadPrefixIsRefusedNamingThePosition) {
  try {
    SharedTypeIdGenerator gen("User");
    FAIL() << "accepted an uppercase prefix";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.position(), 0u);
    EXPECT_EQ(e.input(), "User");
  }
}

}  // namespace
}  // namespace idforge
