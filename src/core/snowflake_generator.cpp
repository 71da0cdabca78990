#include "idforge/snowflake_generator.hpp"

#include <algorithm>
#include <string>

#include "idforge/detail/explore.hpp"
#include "snowflake_refusal.hpp"

namespace idforge {
namespace {

constexpr std::int64_t kMaxPolicyMs =
    86'400'000;  // a day: keeps every tick count far from overflow

std::int64_t ceil_div(std::int64_t a, std::int64_t b) noexcept {
  return (a + b - 1) / b;
}

}  // namespace

namespace detail {

// Everything a call does, as functions of the generator. next() and next_batch() both go
// through claim(), which a reader can follow top to bottom.
template <bool Shared>
struct SnowflakeCalls {
  using G = BasicSnowflakeGenerator<Shared>;
  using Kind = SnowflakeRule::Step::Kind;
  using Why = SnowflakeWhy;

  // What claim() got: stamps [first, first + count).
  struct Claim {
    std::uint64_t first = 0;
    std::uint64_t count = 0;
    bool at_room_end = false;   // count stopped at the last stamp this clock reading allows
    std::int64_t now_ms = 0;    // the clock reading it used
    std::int64_t first_ms = 0;  // the call's first clock reading, before any wait
  };

  // The clock readings of one call: the thread's TSC window first; after a wait or a step
  // back, the clock itself. Inside a window the clock still reads the millisecond the window
  // was opened in, and one rdtsc stands in for clock_gettime, which is most of an ID's cost.
  // A reading inside a window is never later than the clock; it can be earlier only across
  // a clock step, for less than the rest of that millisecond. So every reading a call acts
  // on by waiting or refusing is taken again from the clock itself: a window can only ever
  // save a clock read, never decide a wait or a refusal. Readings taken again because a claim newer
  // than the reading looked like a step back are counted: each follows another thread's successful
  // claim, so the bound holds back only a thread that keeps losing the race, which then reports the
  // step it sees.
  struct Reading {
    static constexpr int kMaxRereads = 64;
    bool from_clock = false;
    int rereads = 0;
    std::int64_t first_ms = 0;

    std::int64_t take(const G& g) noexcept {
      const std::int64_t ms = from_clock ? g.clock_.exact_ms() : g.clock_.now_ms();
      if (!from_clock) first_ms = ms;
      from_clock = true;
      return ms;
    }
    // A step back is read again once always (a reading can be stale, and a real step back is
    // still there on the next one), and again while another thread claimed after this
    // reading was taken (it may have read a later tick). One seen behind a claim loaded
    // before the reading is real.
    bool read_again(bool overtaken) noexcept {
      if (rereads != 0 && (!overtaken || rereads >= kMaxRereads)) return false;
      ++rereads;
      return true;
    }
  };

  // ---- the call path -------------------------------------------------------------------

  // Claims up to `want` consecutive stamps into c, or says in no why it issued nothing.
  [[gnu::always_inline]] static bool claim(G& g, const std::uint64_t want, Claim& c,
                                           SnowflakeRefusal& no) noexcept {
    Reading reading;
    for (;;) {
      // The last claim is loaded before the clock is read, so a reading behind it is a real
      // step back, never one that went stale while this thread waited for a core.
      std::uint64_t last = g.stamp_.load();
      const std::int64_t now_ms = reading.take(g);
      if (g.fork_.forked()) [[unlikely]]
        return no.set(Why::forked, now_ms);
      if (now_ms < g.ticks_.epoch_ms) [[unlikely]]
        return no.set(Why::before_epoch, now_ms);
      const std::int64_t now = g.ticks_.tick_of(now_ms);
      for (bool overtaken = false;; overtaken = true) {
        const SnowflakeRule::Step step = SnowflakeRule::advance(last, now, g.limits_);
        if (step.kind != Kind::issue) [[unlikely]] {
          if (!not_yet(g, step, last, now_ms, reading, overtaken, no)) return false;
          break;  // waited, or read again: a new reading
        }
        const std::uint64_t fence = g.fence_.before_claim();
        const std::uint64_t room = last_allowed_at(g, now) - step.stamp + 1;
        const std::uint64_t count =
            SnowflakeFence::admitted(step.stamp, want == 1 ? 1 : std::min(want, room), fence);
        if (count == 0) [[unlikely]]
          return no.set(Why::fenced, now_ms);
        IDFORGE_EXPLORE_POINT(ExplorePoint::claim, nullptr);
        if (!g.stamp_.try_claim(last, step.stamp + count - 1)) continue;  // the rule again
        IDFORGE_EXPLORE_POINT(ExplorePoint::fence_check, nullptr);
        c = {step.stamp, SnowflakeFence::admitted(step.stamp, count, g.fence_.after_claim()),
             count == room, now_ms, reading.first_ms};
        if (c.count == 0) [[unlikely]]
          return no.set(Why::fenced, now_ms);
        if (c.count < count) c.at_room_end = false;  // the rest is a gap
        if (g.limits_.borrow_ticks != 0) note_ahead(g, c.first + c.count - 1, now);
        return true;
      }
    }
  }

  // A step that does not issue: wait and return true (read the clock again), or read
  // again, or record the refusal and return false.
  static bool not_yet(G& g, const SnowflakeRule::Step& step, std::uint64_t last,
                      std::int64_t now_ms, Reading& reading, bool overtaken,
                      SnowflakeRefusal& no) noexcept {
    if (step.kind == Kind::refuse_backwards && reading.read_again(overtaken)) return true;
    if (step.kind != Kind::wait) {
      no.set(step.kind == Kind::refuse_backwards ? Why::backwards
             : step.kind == Kind::before_epoch   ? Why::before_epoch
                                                 : Why::exhausted,
             now_ms);
      no.behind_ms = step.behind * g.ticks_.tick_ms;
      if (no.why == Why::backwards) g.backward_refusals_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    const std::int64_t until_ns = g.ticks_.ns_of_tick(step.until_tick);
    const bool exhausted = step.behind <= g.limits_.borrow_ticks;
    // A next tick further than the policy waits is the answer before the fence: the fence
    // of a lease ends where its reserved window does, and a long tick's next stamp lies past
    // any window reserved today ("call again then" is the truth).
    if (exhausted && too_far(g, until_ns, now_ms, now_ms, no)) return false;
    // A wait ends in a tick whose first stamp is last + 1: no use waiting for a stamp the
    // fence already forbids.
    if (last + 1 > g.fence_.before_claim()) return no.set(Why::fenced, now_ms);
    if (const std::int64_t wait_ms = ms_until(until_ns, now_ms);
        !exhausted && wait_ms > g.policy_.max_backward_wait_ms) {
      // Decided in ms, not ticks: on a 1 s tick a step back of 1.998 s rounds to one tick,
      // and waiting it out would hold the call 999 ms against a 5 ms bound.
      no.set(Why::backwards, now_ms);
      no.behind_ms = wait_ms;
      g.backward_refusals_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    (exhausted ? g.exhausted_waits_ : g.backward_waits_).fetch_add(1, std::memory_order_relaxed);
    wait_for(g, until_ns, now_ms);
    return true;
  }

  // Writes out from claims, one clock reading per tick: after a claim that used up its
  // reading's ticks, it waits for the next tick before reading again. The waits of one
  // call together stay within policy.max_sequence_wait_ms: it never waits for a tick that
  // begins later than that after its first clock reading (a batch of 5 on a layout with
  // one ID per 999 ms tick would otherwise block for 5 s).
  static std::size_t fill(G& g, std::span<Snowflake> out, SnowflakeRefusal& no) noexcept {
    std::size_t done = 0;
    std::int64_t began_ms = 0;
    while (done < out.size()) {
      Claim c;
      if (!claim(g, out.size() - done, c, no)) return done;
      if (done == 0) began_ms = c.first_ms;
      const std::uint64_t node_bits = g.node_bits_.load(std::memory_order_relaxed);
      for (std::uint64_t j = 0; j < c.count; ++j)
        out[done + j] = Snowflake(g.bits_.id_of(c.first + j, node_bits));
      done += c.count;
      const std::uint64_t end = c.first + c.count - 1;
      if (done < out.size() && c.at_room_end && end != g.ticks_.max_stamp) {
        const auto next_tick = static_cast<std::int64_t>(g.ticks_.tick_of_stamp(end)) + 1;
        const std::int64_t until_ns = g.ticks_.ns_of_tick(next_tick - g.limits_.borrow_ticks);
        if (too_far(g, until_ns, c.now_ms, began_ms, no)) return done;
        g.exhausted_waits_.fetch_add(1, std::memory_order_relaxed);
        wait_for(g, until_ns, c.now_ms);
      }
    }
    return done;
  }

  // ---- small pieces ---------------------------------------------------------------------

  // The wait budget: a wait for the next tick because this one's sequence is used up is
  // refused when that tick begins more than policy.max_sequence_wait_ms after from_ms (this
  // reading, or a batch's first), as a day-long tick would otherwise block the caller,
  // uninterruptibly, for up to a day.
  static bool too_far(const G& g, std::int64_t until_ns, std::int64_t now_ms, std::int64_t from_ms,
                      SnowflakeRefusal& no) noexcept {
    if (ms_until(until_ns, from_ms) <= g.policy_.max_sequence_wait_ms) return false;
    no.set(Why::sequence_wait, now_ms);
    no.wait_ms = ms_until(until_ns, now_ms);
    no.whole_batch = no.wait_ms <= g.policy_.max_sequence_wait_ms;
    return true;
  }

  // At most as long as the reading of now_ms says: a step back between it and the wait must
  // not stretch the wait to the size of the step.
  static void wait_for(G& g, std::int64_t until_ns, std::int64_t now_ms) noexcept {
    g.clock_.clock().wait_until_ns_at_most(until_ns, until_ns - ns_of_ms(now_ms));
  }

  // The last stamp a reading of tick `now` allows: the end of tick now + borrow.
  static std::uint64_t last_allowed_at(const G& g, std::int64_t now) noexcept {
    return g.ticks_.end_of_tick(static_cast<std::uint64_t>(now) +
                                static_cast<std::uint64_t>(g.limits_.borrow_ticks));
  }

  static void note_ahead(G& g, std::uint64_t stamp, std::int64_t now) noexcept {
    const std::int64_t ahead = static_cast<std::int64_t>(g.ticks_.tick_of_stamp(stamp)) - now;
    std::int64_t seen = g.max_ahead_ticks_.load(std::memory_order_relaxed);
    while (ahead > seen &&
           !g.max_ahead_ticks_.compare_exchange_weak(seen, ahead, std::memory_order_relaxed)) {
    }
  }

  [[noreturn]] static void refuse(const G& g, const SnowflakeRefusal& no) {
    throw_refusal(no, {g.node(), g.layout_, g.policy_, g.fence_unix_ms(), g.last_unix_ms(),
                       g.time_runs_out_ms_});
  }
};

}  // namespace detail

template <bool Shared>
BasicSnowflakeGenerator<Shared>::BasicSnowflakeGenerator(const Layout& layout, std::uint64_t node,
                                                         const SnowflakePolicy& policy)
    : BasicSnowflakeGenerator(layout, node, SystemClock::instance(), policy) {}

template <bool Shared>
BasicSnowflakeGenerator<Shared>::BasicSnowflakeGenerator(const Layout& layout, std::uint64_t node,
                                                         Clock& clock,
                                                         const SnowflakePolicy& policy)
    : clock_(clock), layout_(layout), policy_(policy) {
  if (policy.max_backward_wait_ms < 0 || policy.max_backward_wait_ms > kMaxPolicyMs ||
      policy.max_borrow_ms < 0 || policy.max_borrow_ms > kMaxPolicyMs ||
      policy.max_sequence_wait_ms < 0 || policy.max_sequence_wait_ms > kMaxPolicyMs)
    throw Error(errc::invalid_argument,
                "policy: max_backward_wait_ms (" + std::to_string(policy.max_backward_wait_ms) +
                    "), max_borrow_ms (" + std::to_string(policy.max_borrow_ms) +
                    ") and max_sequence_wait_ms (" + std::to_string(policy.max_sequence_wait_ms) +
                    ") must be in 0.." + std::to_string(kMaxPolicyMs) + " (a day)");
  const std::int64_t now_ms = clock_.exact_ms();
  Layout::make(layout.fields(), now_ms);  // rejects an epoch after this clock's now
  layout.check_node(node);
  const int S = layout.sequence_bits();
  ticks_ = detail::SnowflakeTicks::of(layout.epoch_ms(), layout.tick_ms(), S, layout.max_tick());
  bits_ = detail::SnowflakeBits::of(S, layout.time_shift(), layout.node_shift(),
                                    layout.sequence_shift());
  limits_ = {S, layout.max_tick(), ceil_div(policy.max_borrow_ms, layout.tick_ms()),
             ceil_div(policy.max_backward_wait_ms, layout.tick_ms())};
  time_runs_out_ms_ = describe(layout).time_runs_out_ms;
  node_.store(node, std::memory_order_relaxed);
  node_bits_.store(bits_.node_bits(node), std::memory_order_relaxed);
  stamp_.raise_to(ticks_.used_through(policy.issued_up_to_unix_ms));
  if (now_ms >= time_runs_out_ms_) {
    detail::SnowflakeRefusal no;
    no.set(detail::SnowflakeWhy::exhausted, now_ms);
    detail::SnowflakeCalls<Shared>::refuse(*this, no);
  }
}

template <bool Shared>
Snowflake BasicSnowflakeGenerator<Shared>::next() {
  using C = detail::SnowflakeCalls<Shared>;
  typename C::Claim c;
  detail::SnowflakeRefusal no;
  if (!C::claim(*this, 1, c, no)) [[unlikely]]
    C::refuse(*this, no);
  return Snowflake(bits_.id_of(c.first, node_bits_.load(std::memory_order_relaxed)));
}

template <bool Shared>
std::size_t BasicSnowflakeGenerator<Shared>::next_batch(std::span<Snowflake> out,
                                                        std::error_code& error) noexcept {
  detail::SnowflakeRefusal no;
  const std::size_t done = detail::SnowflakeCalls<Shared>::fill(*this, out, no);
  error = detail::code_of(no.why);
  return done;
}

template <bool Shared>
void BasicSnowflakeGenerator<Shared>::next_batch(std::span<Snowflake> out) {
  detail::SnowflakeRefusal no;
  detail::SnowflakeCalls<Shared>::fill(*this, out, no);
  if (no.why != detail::SnowflakeWhy::none) detail::SnowflakeCalls<Shared>::refuse(*this, no);
}

template <bool Shared>
void BasicSnowflakeGenerator<Shared>::set_fence_unix_ms(std::int64_t unix_ms) noexcept {
  fence_.set(unix_ms, ticks_.last_ending_by(unix_ms));
}

template <bool Shared>
std::int64_t BasicSnowflakeGenerator<Shared>::last_unix_ms() const noexcept {
  const std::uint64_t stamp = stamp_.load();
  return stamp == 0 ? kNoUnixMs : ticks_.unix_ms_of_stamp(stamp);
}

template <bool Shared>
std::int64_t BasicSnowflakeGenerator<Shared>::ahead_ms() const noexcept {
  const std::int64_t now_ms = clock_.exact_ms();
  if (now_ms < ticks_.epoch_ms) return 0;
  const std::int64_t ahead =
      static_cast<std::int64_t>(ticks_.tick_of_stamp(stamp_.load())) - ticks_.tick_of(now_ms);
  return ahead > 0 ? ahead * ticks_.tick_ms : 0;
}

template <bool Shared>
SnowflakeStats BasicSnowflakeGenerator<Shared>::stats() const noexcept {
  return {exhausted_waits_.load(std::memory_order_relaxed),
          backward_waits_.load(std::memory_order_relaxed),
          backward_refusals_.load(std::memory_order_relaxed),
          max_ahead_ticks_.load(std::memory_order_relaxed) * ticks_.tick_ms};
}

template <bool Shared>
void BasicSnowflakeGenerator<Shared>::rebind(std::uint64_t node,
                                             std::int64_t issued_up_to_unix_ms) {
  if (!fork_.forked())
    throw Error(errc::invalid_argument,
                "rebind(" + std::to_string(node) +
                    "): only a child process forked after the generator was made may rebind it; "
                    "this process "
                    "made it, so build a new generator for another node ID");
  layout_.check_node(node);
  node_.store(node, std::memory_order_relaxed);
  node_bits_.store(bits_.node_bits(node), std::memory_order_relaxed);
  stamp_.raise_to(ticks_.used_through(issued_up_to_unix_ms));
  // Publishes node and floor: a call that sees this process as the guard's sees them too.
  fork_.adopt_current();
}

template <bool Shared>
void BasicSnowflakeGenerator<Shared>::raise_floor_unix_ms(std::int64_t unix_ms) noexcept {
  stamp_.raise_to(ticks_.used_through(unix_ms));
}

template class BasicSnowflakeGenerator<true>;
template class BasicSnowflakeGenerator<false>;

}  // namespace idforge
