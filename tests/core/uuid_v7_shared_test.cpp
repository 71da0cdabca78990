// SharedUuidV7Generator: two threads drawing from one generator.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "idforge/uuid_generator.hpp"

namespace idforge {
namespace {

TEST(SharedUuidV7Generator, BatchesFromTwoThreadsInterleaveWithoutOverlap) {
  SharedUuidV7Generator gen;
  std::vector<Uuid> a(100'000), b(100'000);
  std::thread t1([&] {
    for (std::size_t i = 0; i < a.size(); i += 1000) gen.next_batch(std::span(a).subspan(i, 1000));
  });
  std::thread t2([&] {
    for (std::size_t i = 0; i < b.size(); i += 1000) gen.next_batch(std::span(b).subspan(i, 1000));
  });
  t1.join();
  t2.join();
  for (const auto* v : {&a, &b})
    for (std::size_t i = 1; i < v->size(); ++i) ASSERT_LT((*v)[i - 1], (*v)[i]);
  std::vector<Uuid> all(a);
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
}

TEST(SharedUuidV7Generator, CounterOverflowBorrowsTheNextMillisecond) {
  ManualClock clock(1'700'000'000'000 * 1'000'000LL);
  SharedUuidV7Generator gen(clock);
  gen.resume_after(compose_v7(1'700'000'000'000, 0xFFF, std::uint64_t{0x3FFFFFFF} << 32));
  EXPECT_EQ(embedded_unix_ms(gen.next()), 1'700'000'000'001);
}

}  // namespace
}  // namespace idforge
