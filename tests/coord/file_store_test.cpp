#include <gtest/gtest.h>

#include <fstream>

#include "idforge/coord/lease.hpp"
#include "idforge/coord/leased_generator.hpp"
#include "idforge/snowflake.hpp"
#include "test_support.hpp"

namespace idforge::coord {
namespace {

const Layout kTwitter = presets::twitter();
constexpr std::int64_t kT = 1'800'000'000'000;  // a whole Unix ms for the ManualClock
constexpr std::int64_t kMs = 1'000'000;

std::int64_t read_mark(const std::string& path) {
  std::ifstream in(path);
  std::int64_t v = 0;
  in >> v;
  return v;
}

void write_mark(const std::string& path, std::int64_t mark) {
  std::ofstream(path) << mark << "\n";
}

TEST(FileStore, DatacenterRestrictsTheRange) {
  test::ScratchDir dir;
  const Lease l = open_lease_store("file:" + dir.path() + "?dc=3")->acquire(kTwitter);
  EXPECT_EQ(l.datacenter, 3u);
  EXPECT_EQ(l.worker, 0u);
  EXPECT_THROW(open_lease_store("file:" + dir.path() + "?dc=32")->acquire(kTwitter), LeaseError);
}

TEST(FileStore, CorruptMarkIsRejectedNamingTheFile) {
  test::ScratchDir dir;
  std::ofstream(dir.path() + "/node-0.mark") << "yesterday\n";
  try {
    open_lease_store("file:" + dir.path())->acquire(kTwitter);
    FAIL();
  } catch (const LeaseError& e) {
    EXPECT_NE(std::string(e.what()).find("node-0.mark holds 'yesterday'"), std::string::npos)
        << e.what();
  }
}

// --- keeper and leased generator on a file store -----------------------------------------

// A file store in a scratch folder of its own, and a manual clock at kT.
class LeasedGenerator : public ::testing::Test {
 protected:
  // The store's URL with query (e.g. "?ttl=60000": the renewal thread stays asleep while the
  // clock jumps).
  std::string url(const std::string& query = "") const { return "file:" + dir.path() + query; }
  std::string mark_file() const { return dir.path() + "/node-0.mark"; }

  test::ScratchDir dir;
  ManualClock clock{kT * kMs};
};

TEST_F(LeasedGenerator, ReservesAWindowBeforeIssuingAndStoresTheExactMarkOnRelease) {
  std::int64_t last = 0;
  {
    SharedLeasedSnowflakeGenerator gen(open_lease_store(url("?ttl=60000")), kTwitter, clock);
    EXPECT_EQ(read_mark(mark_file()), kT + 60000);  // reserved before the first ID
    clock.advance_ms(5);
    last = decompose(kTwitter, gen.next()).unix_ms;
    EXPECT_EQ(gen.keeper().status().fence_unix_ms, kT + 60001);  // IDs up to the mark's tick
  }
  EXPECT_EQ(last, kT + 5);
  EXPECT_EQ(read_mark(mark_file()), kT + 5);
}

TEST_F(LeasedGenerator, DoesNotIssuePastTheReservedWindow) {
  SharedLeasedSnowflakeGenerator gen(open_lease_store(url("?ttl=60000")), kTwitter, clock);
  clock.advance_ms(60'000);
  EXPECT_EQ(decompose(kTwitter, gen.next()).unix_ms, kT + 60'000);  // the mark itself is reserved
  clock.advance_ms(1);
  try {
    gen.next();
    FAIL();
  } catch (const LeaseError& e) {
    EXPECT_EQ(e.reason(), LeaseFailure::fenced);
    EXPECT_EQ(e.code(), errc::fenced);
    EXPECT_NE(std::string(e.what()).find("resumes after a successful renewal"), std::string::npos)
        << e.what();
  }
}

TEST_F(LeasedGenerator, ClockBehindStoredMarkWaitsWithinTheBound) {
  write_mark(mark_file(), kT + 500);
  LeasedOptions options;
  options.max_start_wait_ms = 1000;
  SharedLeasedSnowflakeGenerator gen(open_lease_store(url()), kTwitter, clock, {}, options);
  EXPECT_EQ(gen.start_wait_ms(), 501);
  EXPECT_GE(clock.waited_ns(), 500 * kMs);
  EXPECT_GT(decompose(kTwitter, gen.next()).unix_ms, kT + 500);
}

TEST_F(LeasedGenerator, ClockFarBehindStoredMarkRefusesAndFreesTheNode) {
  write_mark(mark_file(), kT + 10'000);
  const std::string store = url("?nodes=1");  // no other node to move on to
  try {
    SharedLeasedSnowflakeGenerator gen(open_lease_store(store), kTwitter,
                                       clock);  // bound: 3 s + 1 s
    FAIL();
  } catch (const ClockBackwardsError& e) {
    EXPECT_EQ(e.behind_ms(), 10'001);
    const std::string m = e.what();
    EXPECT_NE(m.find("high-water mark"), std::string::npos) << m;
    EXPECT_NE(m.find(store), std::string::npos) << m;
    EXPECT_NE(m.find("at most 4000 ms"), std::string::npos) << m;
  }
  EXPECT_EQ(clock.waited_ns(), 0);
  EXPECT_EQ(open_lease_store(store)->acquire(kTwitter).node, 0u);  // released, mark kept
  EXPECT_EQ(read_mark(mark_file()), kT + 10'000);
}

TEST_F(LeasedGenerator, BorrowedIdsStopAtTheReservedMark) {
  SnowflakePolicy policy;
  policy.max_borrow_ms = 50;
  SharedLeasedSnowflakeGenerator gen(open_lease_store(url("?ttl=60000")), kTwitter, clock, policy);
  const std::int64_t mark = read_mark(mark_file());
  EXPECT_EQ(mark, kT + 60'000);
  clock.set_ms(mark - 10);  // the clock 10 ms before the mark, borrowing up to 50 ms ahead
  std::vector<Snowflake> ids(60 * 4096);
  try {
    gen.next_batch(ids);
    FAIL() << "borrowed past the reserved mark";
  } catch (const LeaseError& e) {
    EXPECT_EQ(e.reason(), LeaseFailure::fenced) << e.what();
  }
  EXPECT_EQ(gen.generator().last_unix_ms(), mark);
  EXPECT_EQ(clock.waited_ns(), 0);
}

// The exception-free batch (the C ABI's path) counts what it wrote and stops at the same
// reserved mark as the throwing one, with errc::fenced.
TEST_F(LeasedGenerator, ExceptionFreeBatchCountsWhatItWroteAndStopsAtTheMark) {
  SnowflakePolicy policy;
  policy.max_borrow_ms = 50;
  SharedLeasedSnowflakeGenerator gen(open_lease_store(url("?ttl=60000")), kTwitter, clock, policy);
  const std::int64_t mark = read_mark(mark_file());
  clock.set_ms(mark - 10);
  std::vector<Snowflake> ids(60 * 4096);
  std::error_code error;
  const std::size_t n = gen.next_batch(ids, error);
  EXPECT_EQ(error, errc::fenced);
  ASSERT_GT(n, 0U);
  ASSERT_LT(n, ids.size());
  for (std::size_t i = 1; i < n; ++i) ASSERT_LT(ids[i - 1].value(), ids[i].value());
  EXPECT_LT(decompose(kTwitter, ids[n - 1]).unix_ms, mark + 1);
  EXPECT_EQ(gen.generator().last_unix_ms(), mark);
}

TEST(LeaseKeeper, RejectsAMarginThatWouldPauseBeforeTheFirstRenewal) {
  test::ScratchDir dir;
  KeeperOptions o;
  o.safety_margin_ms = 1000;  // ttl 3000: must be < 1000
  EXPECT_THROW(
      LeaseKeeper(open_lease_store("file:" + dir.path()), kTwitter, SystemClock::instance(), o),
      Error);
}

}  // namespace
}  // namespace idforge::coord
