// TicketClient's failover timing on a ManualClock, with a double in place of a server (the
// real servers' failover is in ticket_freeze_test.cpp): a server that keeps failing is
// skipped for twice as long after each failure in a row, up to 32 times retry_after_ns, and
// for retry_after_ns again once it has answered.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "idforge/clock.hpp"
#include "idforge/error.hpp"
#include "idforge/ticket/ticket_client.hpp"
#include "idforge/ticket/ticket_errc.hpp"
#include "idforge/ticket/ticket_server.hpp"

namespace idforge::ticket {
namespace {

// Hands out from a counter, or fails as an unreachable server does; counts its calls.
// Only next() is used by a client: the resize steps are refused.
class DoubleServer final : public TicketServer {
 public:
  DoubleServer(std::string name, std::int64_t first, bool* failing, std::vector<int>* calls)
      : name_(std::move(name)), value_(first), failing_(failing), calls_(calls) {}
  std::string describe() const override { return name_; }
  std::string identity() override { return "double:" + name_; }
  TicketValue next(std::string_view) override {
    if (calls_) calls_->push_back(1);
    if (failing_ && *failing_)
      throw Error(ticket_errc::store_unreachable, name_ + " does not answer");
    value_ += 2;
    return {value_, 1};
  }
  std::optional<MemberRecord> read(std::string_view) override { return refuse(); }
  MemberRecord fence(std::string_view, std::int64_t, const std::string&) override {
    return refuse();
  }
  void prepare(std::string_view, std::optional<std::int64_t>, const std::string&,
               const TicketConfig&) override {
    refuse();
  }
  MemberRecord activate(std::string_view, const std::string&) override { return refuse(); }
  void discard(std::string_view, const std::string&) override { refuse(); }
  void set_statement_hook(StatementHook) override {}

 private:
  [[noreturn]] static MemberRecord refuse() {
    throw Error(errc::invalid_argument, "a double server takes no resize");
  }
  std::string name_;
  std::int64_t value_;
  bool* failing_;
  std::vector<int>* calls_;
};

TEST(TicketClient, AServerFailingInARowIsSkippedTwiceAsLongEachTimeUpTo32Times) {
  constexpr std::int64_t kRetry = 1000;
  ManualClock clock(0);
  bool a_fails = true;
  std::vector<int> a_calls;
  std::vector<std::unique_ptr<TicketServer>> servers;
  servers.push_back(std::make_unique<DoubleServer>("a", 0, &a_fails, &a_calls));
  servers.push_back(std::make_unique<DoubleServer>("b", 1, nullptr, nullptr));
  TicketClient client(std::move(servers), "orders", {.retry_after_ns = kRetry}, clock);

  // Two calls per step: one of them starts its round at a, so a is asked unless skipped.
  std::vector<std::int64_t> asked_at;
  const auto step = [&] {
    const std::size_t before = a_calls.size();
    client.next();
    client.next();
    if (a_calls.size() > before) asked_at.push_back(clock.now_ns());
    clock.advance_ns(kRetry);
  };
  while (clock.now_ns() <= 130'000) step();
  // Skips of 1, 2, 4, 8, 16, 32, then 32 again (the cap) times kRetry.
  EXPECT_EQ(asked_at,
            (std::vector<std::int64_t>{0, 1000, 3000, 7000, 15000, 31000, 63000, 95000, 127000}));

  // Answering once resets the skip; the next failure is skipped for kRetry alone.
  clock.set_ns(1'000'000);
  a_fails = false;
  asked_at.clear();
  step();
  a_fails = true;
  step();
  step();
  step();
  EXPECT_EQ(asked_at, (std::vector<std::int64_t>{1'000'000, 1'001'000, 1'002'000}));
  EXPECT_GT(client.stats()[0].served, 0);
}

// Every failure of a lone server doubles a skip near the int64 limit: it saturates (UBSan
// builds report an overflow otherwise), and the server is still asked when it is all there is.
TEST(TicketClient, AHugeRetryDoesNotOverflowTheSkip) {
  ManualClock clock(1'000);
  bool fails = true;
  std::vector<int> calls;
  std::vector<std::unique_ptr<TicketServer>> servers;
  servers.push_back(std::make_unique<DoubleServer>("a", 0, &fails, &calls));
  TicketClient client(std::move(servers), "orders",
                      {.retry_after_ns = std::numeric_limits<std::int64_t>::max() / 3}, clock);
  for (int i = 0; i < 8; ++i) {
    try {
      client.next();
      ADD_FAILURE() << "a failing server gave a value";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ticket_errc::store_unreachable) << e.what();
    }
  }
  EXPECT_EQ(calls.size(), 8u);
  fails = false;
  EXPECT_EQ(client.next(), 2) << "asked while skipped, as the only server";
}

}  // namespace
}  // namespace idforge::ticket
