#include "idforge/snowflake_generator.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "idforge/detail/explore.hpp"
#include "idforge/detail/fork_epoch.hpp"
#include "idforge/detail/ms_reader.hpp"
#include "idforge/time_format.hpp"

namespace idforge {
namespace {

constexpr std::int64_t kMaxPolicyMs =
    86'400'000;  // a day: keeps every tick count far from overflow

std::int64_t ceil_div(std::int64_t a, std::int64_t b) noexcept {
  return (a + b - 1) / b;
}

// On the system clock, each thread reads the millisecond through its own TSC window
// (detail/ms_reader.hpp): inside one, the clock still reads the millisecond the window was
// opened in, and one rdtsc stands in for clock_gettime, which is most of an ID's cost. A
// reading inside a window is never later than the clock; it can be earlier only across a
// clock step, for less than the rest of that millisecond. So every reading the call acts
// on by waiting or refusing is taken again from the clock itself (claim() below): a window
// can only ever save a clock read, never decide a wait or a refusal.
const bool kTscWindows = detail::tsc_windows_supported();
thread_local detail::MsReader t_system_ms{SystemClock::instance()};

}  // namespace

namespace detail {

// Everything a call does, as functions of the generator. next() and next_batch() both go
// through claim(), which a reader can follow top to bottom.
template <bool Shared>
struct SnowflakeCalls {
  using G = BasicSnowflakeGenerator<Shared>;
  using Step = typename G::Step;
  using Kind = typename Step::Kind;

  // Readings taken again because a claim newer than the reading looked like a step back;
  // each one follows another thread's successful claim, so this bounds only a thread that
  // keeps losing the race, which then reports the step it sees.
  static constexpr int kMaxRereads = 64;

  // Why a call issued nothing.
  enum class Why : std::uint8_t {
    none,
    forked,
    before_epoch,
    fenced,
    backwards,
    exhausted,
    sequence_wait  // the tick's sequence is used up and the next tick is beyond the policy
  };

  // What claim() got: stamps [first, first + count), or a refusal (count 0, why set).
  struct Claim {
    std::uint64_t first = 0;
    std::uint64_t count = 0;
    Why why = Why::none;
    bool at_room_end = false;   // count stopped at the last stamp this clock reading allows
    std::int64_t now_ms = 0;    // the clock reading it used
    std::int64_t behind = 0;    // backwards: ticks the clock was behind
    std::int64_t wait_ms = 0;   // sequence_wait: ms until the next tick begins
    bool batch_budget = false;  // sequence_wait: a batch's waits together went past the policy
    std::int64_t first_ms = 0;  // issued: the call's first clock reading, before any wait
  };

  // ---- the call path -------------------------------------------------------------------

  // Claims up to `want` consecutive stamps. Every clock reading is followed by the fork
  // and epoch checks; every claim by the fence check; every wait by a new reading.
  [[gnu::always_inline]] static Claim claim(G& g, const std::uint64_t want) noexcept {
    const typename G::Limits& lim = g.limits_;
    int rereads = 0;
    bool from_clock = false;  // after a wait or a step back: read the clock, not a window
    std::int64_t first_ms = 0;
    for (;;) {
      // 1. The last claim, then the clock, then what may have changed since the last
      // reading: fork and epoch. The claim is loaded before the clock is read, so a reading
      // behind it is a real step back of the clock, never a reading that went stale while
      // this thread waited for a core and others claimed later ticks.
      std::uint64_t last = g.stamp_.load(std::memory_order_acquire);
      bool last_predates_reading = true;
      const std::int64_t now_ms = read_ms(g, from_clock);
      if (!from_clock) first_ms = now_ms;
      from_clock = true;
      if (forked(g) || now_ms < g.epoch_ms_) [[unlikely]]
        return refused(forked(g) ? Why::forked : Why::before_epoch, now_ms);
      const std::int64_t now = tick_of(g, now_ms);
      for (;;) {
        // 2. The rule.
        const Step step = G::advance(last, now, lim);
        std::uint64_t fence = g.fence_stamp_.load(std::memory_order_relaxed);
        if (step.kind == Kind::issue) [[likely]] {
          if (step.stamp > fence) [[unlikely]]
            return refused(Why::fenced, now_ms);
          std::uint64_t count = 1;
          bool at_room_end = false;
          if (want > 1) {
            const std::uint64_t room = last_allowed_at(g, now) - step.stamp + 1;
            count = std::min({want, room, fence - step.stamp + 1});
            at_room_end = count == room;
          }
          // 3. The claim: ours alone, or someone claimed since we loaded `last` (then the
          // rule runs again on the newer state with the same reading).
          IDFORGE_EXPLORE_POINT(ExplorePoint::claim, nullptr);
          if (!cas(g, last, step.stamp + count - 1)) {
            last_predates_reading = false;  // `last` is now newer than the reading
            continue;
          }
          // 4. The fence, read after the claim: a fence set before our claim is seen here.
          IDFORGE_EXPLORE_POINT(ExplorePoint::fence_check, nullptr);
          fence = g.fence_stamp_.load(std::memory_order_seq_cst);
          if (step.stamp + count - 1 > fence) [[unlikely]] {
            if (step.stamp > fence) return refused(Why::fenced, now_ms);
            count = fence - step.stamp + 1, at_room_end = false;  // the rest is a gap
          }
          if (lim.borrow_ticks != 0) note_ahead(g, step.stamp + count - 1, now);
          return {step.stamp, count, Why::none, at_room_end, now_ms, 0, 0, false, first_ms};
        }
        if (step.kind == Kind::refuse_backwards &&
            (rereads == 0 || (!last_predates_reading && rereads < kMaxRereads))) {
          // Read again: once always (a reading can be stale, and a real step back is still
          // there on the next one), and again while another thread claimed after this
          // reading was taken (it may have read a later tick). A step back seen behind a
          // claim loaded before the reading is real.
          ++rereads;
          break;
        }
        if (step.kind == Kind::wait) {
          const std::int64_t until_ns = ns_of_tick(g, step.until_tick);
          const bool exhausted = step.behind <= lim.borrow_ticks;
          // A next tick further than the policy waits is the answer before the fence: the
          // fence of a lease ends where its reserved window does, and a long tick's next
          // stamp lies past any window reserved today ("call again then" is the truth).
          if (exhausted) {
            Claim c = refused_if_too_far(g, until_ns, now_ms);
            if (c.why != Why::none) return c;
          }
          // A wait ends in a tick whose first stamp is last + 1: no use waiting for a
          // stamp the fence already forbids.
          if (last + 1 > fence) return refused(Why::fenced, now_ms);
          if (const std::int64_t wait_ms = ms_until(until_ns, now_ms);
              !exhausted && wait_ms > g.policy_.max_backward_wait_ms) {
            // Decided in ms, not ticks: on a 1 s tick a step back of 1.998 s rounds to one
            // tick, and waiting it out would hold the call 999 ms against a 5 ms bound.
            Claim c = refused(Why::backwards, now_ms);
            c.behind = step.behind;
            c.wait_ms = wait_ms;
            g.backward_refusals_.fetch_add(1, std::memory_order_relaxed);
            return c;
          }
          (exhausted ? g.exhausted_waits_ : g.backward_waits_)
              .fetch_add(1, std::memory_order_relaxed);
          // At most as long as this reading says: a step back between it and the wait
          // must not stretch the wait to the size of the step.
          g.clock_.wait_until_ns_at_most(until_ns, until_ns - ns_of_ms(now_ms));
          break;  // read the clock again
        }
        Claim c = refused(step.kind == Kind::refuse_backwards ? Why::backwards
                          : step.kind == Kind::before_epoch   ? Why::before_epoch
                                                              : Why::exhausted,
                          now_ms);
        c.behind = step.behind;
        if (c.why == Why::backwards) g.backward_refusals_.fetch_add(1, std::memory_order_relaxed);
        return c;
      }
    }
  }

  // Writes out from claims, one clock reading per tick: after a claim that used up its
  // reading's ticks, it waits for the next tick before reading again.
  // The waits of one call together stay within policy.max_sequence_wait_ms: it never waits
  // for a tick that begins later than that after its first clock reading (a batch of 5 on
  // a layout with one ID per 999 ms tick would otherwise block for 5 s).
  static std::size_t fill(G& g, std::span<Snowflake> out, Claim& refusal) noexcept {
    std::size_t done = 0;
    std::int64_t began_ms = 0;
    while (done < out.size()) {
      const Claim c = claim(g, out.size() - done);
      if (c.count == 0) {
        refusal = c;
        return done;
      }
      if (done == 0) began_ms = c.first_ms;
      const std::uint64_t node_bits = g.node_bits_.load(std::memory_order_relaxed);
      for (std::uint64_t j = 0; j < c.count; ++j)
        out[done + j] = Snowflake(id_of(g, c.first + j, node_bits));
      done += c.count;
      const std::uint64_t end = c.first + c.count - 1;
      if (done < out.size() && c.at_room_end && end != g.max_stamp_) {
        const auto next_tick = static_cast<std::int64_t>(end >> g.limits_.sequence_bits) + 1;
        const std::int64_t until_ns = ns_of_tick(g, next_tick - g.limits_.borrow_ticks);
        refusal = refused_if_too_far(g, until_ns, c.now_ms, began_ms);
        if (refusal.why != Why::none) return done;
        g.exhausted_waits_.fetch_add(1, std::memory_order_relaxed);
        g.clock_.wait_until_ns_at_most(until_ns, until_ns - ns_of_ms(c.now_ms));
      }
    }
    return done;
  }

  // ---- small pieces ---------------------------------------------------------------------

  static Claim refused(Why why, std::int64_t now_ms) noexcept {
    return {0, 0, why, false, now_ms, 0, 0};
  }

  // The clock's Unix millisecond: through this thread's TSC window on the system clock
  // unless from_clock (see kTscWindows).
  static std::int64_t read_ms(const G& g, bool from_clock) noexcept {
    if (kTscWindows && !from_clock && g.clock_.is_system()) return t_system_ms.now_ms();
    return g.clock_.now_ms();
  }

  // A wait for the next tick because this one's sequence is used up, refused when that tick
  // begins further away than the policy allows (a day-long tick would otherwise block the
  // caller, uninterruptibly, for up to a day). Why::none: go ahead and wait.
  // The Unix ns at which millisecond ms begins: a reading of ms was taken at or after it, so
  // a wait decided on that reading needs at most until_ns minus this (saturated far out).
  static std::int64_t ns_of_ms(std::int64_t ms) noexcept {
    constexpr std::int64_t kMaxMs = std::numeric_limits<std::int64_t>::max() / 1'000'000 - 1;
    return ms >= kMaxMs ? std::numeric_limits<std::int64_t>::max() : ms * 1'000'000;
  }

  // Whole ms from the start of millisecond from_ms until until_ns (0 if passed): the longest
  // a wait decided on a reading of from_ms can take.
  static std::int64_t ms_until(std::int64_t until_ns, std::int64_t from_ms) noexcept {
    const std::int64_t from_ns = from_ms > std::numeric_limits<std::int64_t>::max() / 1'000'000
                                     ? until_ns
                                     : from_ms * 1'000'000;
    return until_ns > from_ns ? (until_ns - from_ns + 999'999) / 1'000'000 : 0;
  }

  // With began_ms (a batch's first reading), the wait is measured from there.
  static Claim refused_if_too_far(const G& g, std::int64_t until_ns, std::int64_t now_ms,
                                  std::optional<std::int64_t> began_ms = std::nullopt) noexcept {
    if (ms_until(until_ns, began_ms.value_or(now_ms)) <= g.policy_.max_sequence_wait_ms)
      return refused(Why::none, now_ms);
    Claim c = refused(Why::sequence_wait, now_ms);
    c.wait_ms = ms_until(until_ns, now_ms);
    c.batch_budget = c.wait_ms <= g.policy_.max_sequence_wait_ms;
    return c;
  }

  static bool forked(const G& g) noexcept {
    return detail::fork_epoch() != g.fork_epoch_.load(std::memory_order_acquire);
  }

  // A 64-bit integer divide costs 25-90 cycles on x86 and sits on the latency path after
  // the clock read: the common 1 ms tick needs none, others use a double multiply and one
  // exact correction (the double's 53-bit mantissa keeps the estimate within 1 of the
  // quotient for any clock reading in range). Precondition: unix_ms >= epoch.
  static std::int64_t tick_of(const G& g, std::int64_t unix_ms) noexcept {
    const std::int64_t d = unix_ms - g.epoch_ms_;
    if (g.tick_ms_ == 1) [[likely]]
      return d;
    auto q = static_cast<std::int64_t>(static_cast<double>(d) * g.inv_tick_ms_);
    const std::int64_t r = d - q * g.tick_ms_;
    if (r < 0)
      --q;
    else if (r >= g.tick_ms_)
      ++q;
    return q;
  }

  // Unix ns at which tick begins, saturated (ticks beyond year 2262 are never reached).
  static std::int64_t ns_of_tick(const G& g, std::int64_t tick) noexcept {
    constexpr std::int64_t kMaxMs = std::numeric_limits<std::int64_t>::max() / 1'000'000;
    if (tick > (kMaxMs - g.epoch_ms_) / g.tick_ms_) return std::numeric_limits<std::int64_t>::max();
    return (g.epoch_ms_ + tick * g.tick_ms_) * 1'000'000;
  }

  // The last stamp a reading of tick `now` allows: the end of tick now + borrow, or of the
  // time field.
  static std::uint64_t last_allowed_at(const G& g, std::int64_t now) noexcept {
    const std::uint64_t tick =
        static_cast<std::uint64_t>(now) + static_cast<std::uint64_t>(g.limits_.borrow_ticks);
    if (tick >= g.limits_.max_tick) return g.max_stamp_;
    return ((tick + 1) << g.limits_.sequence_bits) - 1;
  }

  static bool cas(G& g, std::uint64_t& expected, std::uint64_t desired) noexcept {
    if constexpr (Shared) {
      return g.stamp_.compare_exchange_strong(expected, desired, std::memory_order_seq_cst,
                                              std::memory_order_relaxed);
    } else {
      g.stamp_.store(desired, std::memory_order_relaxed);  // one thread: nobody to race
      return true;
    }
  }

  static std::uint64_t id_of(const G& g, std::uint64_t stamp, std::uint64_t node_bits) noexcept {
    return ((stamp >> g.limits_.sequence_bits) << g.time_shift_) | node_bits |
           ((stamp & g.sequence_mask_) << g.sequence_shift_);
  }
  static std::uint64_t id_of(const G& g, std::uint64_t stamp) noexcept {
    return id_of(g, stamp, g.node_bits_.load(std::memory_order_relaxed));
  }

  static void note_ahead(G& g, std::uint64_t stamp, std::int64_t now) noexcept {
    const std::int64_t ahead = static_cast<std::int64_t>(stamp >> g.limits_.sequence_bits) - now;
    std::int64_t seen = g.max_ahead_ticks_.load(std::memory_order_relaxed);
    while (ahead > seen &&
           !g.max_ahead_ticks_.compare_exchange_weak(seen, ahead, std::memory_order_relaxed)) {
    }
  }

  // The stamp meaning "everything up to and including the tick of unix_ms is used".
  static std::uint64_t used_through(const G& g, std::int64_t unix_ms) noexcept {
    if (unix_ms < g.epoch_ms_) return 0;
    const auto tick =
        static_cast<std::uint64_t>(unix_ms - g.epoch_ms_) / static_cast<std::uint64_t>(g.tick_ms_);
    if (tick >= g.limits_.max_tick) return g.max_stamp_;
    return ((tick + 1) << g.limits_.sequence_bits) - 1;
  }

  // ---- refusals as errors ---------------------------------------------------------------

  static std::error_code code_of(Why why) noexcept {
    switch (why) {
      case Why::forked:
        return make_error_code(errc::forked);
      case Why::before_epoch:
        return make_error_code(errc::clock_before_epoch);
      case Why::fenced:
        return make_error_code(errc::fenced);
      case Why::backwards:
        return make_error_code(errc::clock_moved_backwards);
      case Why::exhausted:
        return make_error_code(errc::time_exhausted);
      case Why::sequence_wait:
        return make_error_code(errc::counter_exhausted);
      case Why::none:
        break;
    }
    return {};
  }

  [[noreturn]] static void throw_refusal(const G& g, const Claim& c) {
    const std::string node = std::to_string(g.node());
    switch (c.why) {
      case Why::forked:
        throw Error(errc::forked,
                    "snowflake generator for node " + node +
                        " was created before fork(); the child must rebind() to a node ID of "
                        "its own (the parent keeps issuing with this one)");
      case Why::before_epoch:
        throw Error(errc::clock_before_epoch, "clock reads " + format_iso8601_ms(c.now_ms) +
                                                  ", before layout '" + g.layout_.name() +
                                                  "' epoch " + format_iso8601_ms(g.epoch_ms_));
      case Why::fenced: {
        const std::int64_t f = g.fence_unix_ms();
        throw Error(
            errc::fenced,
            f <= g.epoch_ms_
                ? "snowflake generator for node " + node + " is fenced: it issues no more IDs"
                : "snowflake generator for node " + node + " is fenced at " + format_iso8601_ms(f) +
                      " (it issues no ID whose tick ends after that, as its lease may "
                      "expire or its reserved high-water mark ends there); it issues again "
                      "once the fence moves");
      }
      case Why::backwards: {
        // A step refused before its wait names the wait it would have needed (the clock's
        // distance to the last tick's start); one refused on ticks, those ticks.
        const std::int64_t behind_ms = c.wait_ms > 0 ? c.wait_ms : c.behind * g.tick_ms_;
        throw ClockBackwardsError(
            "clock moved backwards: it reads " + format_iso8601_ms(c.now_ms) + ", " +
                std::to_string(behind_ms) + " ms behind the last issued time " +
                format_iso8601_ms(g.last_unix_ms()) + "; the policy waits at most " +
                std::to_string(g.policy_.max_backward_wait_ms) + " ms, so nothing was issued",
            behind_ms);
      }
      case Why::sequence_wait:
        if (c.batch_budget)
          throw Error(errc::counter_exhausted,
                      "layout '" + g.layout_.name() + "': a batch waits at most " +
                          std::to_string(g.policy_.max_sequence_wait_ms) +
                          " ms in all (max_sequence_wait_ms) and its next tick begins later "
                          "than that after the call began; the IDs written so far stay valid, "
                          "ask for fewer per call or call again for the rest");
        throw Error(errc::counter_exhausted,
                    "layout '" + g.layout_.name() + "': the " +
                        std::to_string(g.sequence_mask_ + 1) + " IDs of this " +
                        std::to_string(g.tick_ms_) +
                        " ms tick are used up and the next tick "
                        "begins in " +
                        std::to_string(c.wait_ms) +
                        " ms, more than the policy waits (max_sequence_wait_ms = " +
                        std::to_string(g.policy_.max_sequence_wait_ms) +
                        "), so nothing was issued; call again after that");
      case Why::exhausted:
      case Why::none:
        break;
    }
    throw Error(errc::time_exhausted,
                "layout '" + g.layout_.name() + "': its " + std::to_string(g.layout_.time_bits()) +
                    "-bit time field ran out at " + format_iso8601_ms(g.time_runs_out_ms_) +
                    ", so nothing was issued");
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
  using C = detail::SnowflakeCalls<Shared>;
  if (policy.max_backward_wait_ms < 0 || policy.max_backward_wait_ms > kMaxPolicyMs ||
      policy.max_borrow_ms < 0 || policy.max_borrow_ms > kMaxPolicyMs ||
      policy.max_sequence_wait_ms < 0 || policy.max_sequence_wait_ms > kMaxPolicyMs)
    throw Error(errc::invalid_argument,
                "policy: max_backward_wait_ms (" + std::to_string(policy.max_backward_wait_ms) +
                    "), max_borrow_ms (" + std::to_string(policy.max_borrow_ms) +
                    ") and max_sequence_wait_ms (" + std::to_string(policy.max_sequence_wait_ms) +
                    ") must be in 0.." + std::to_string(kMaxPolicyMs) + " (a day)");
  const std::int64_t now_ms = clock_.now_ms();
  Layout::make(layout.fields(), now_ms);  // rejects an epoch after this clock's now
  layout.check_node(node);
  epoch_ms_ = layout.epoch_ms();
  tick_ms_ = layout.tick_ms();
  inv_tick_ms_ = 1.0 / static_cast<double>(tick_ms_);
  time_shift_ = layout.time_shift();
  sequence_shift_ = layout.sequence_shift();
  const int S = layout.sequence_bits();
  sequence_mask_ = (std::uint64_t{1} << S) - 1;
  limits_ = {S, layout.max_tick(), ceil_div(policy.max_borrow_ms, tick_ms_),
             ceil_div(policy.max_backward_wait_ms, tick_ms_)};
  max_stamp_ = (layout.max_tick() << S) | sequence_mask_;  // time + sequence <= 64 bits: fits
  time_runs_out_ms_ = describe(layout).time_runs_out_ms;
  node_.store(node, std::memory_order_relaxed);
  node_bits_.store(node << layout.node_shift(), std::memory_order_relaxed);
  fence_stamp_.store(~std::uint64_t{0}, std::memory_order_relaxed);
  stamp_.store(C::used_through(*this, policy.issued_up_to_unix_ms), std::memory_order_relaxed);
  detail::install_fork_handler();
  fork_epoch_.store(detail::fork_epoch(), std::memory_order_release);
  if (now_ms >= time_runs_out_ms_) C::throw_refusal(*this, C::refused(C::Why::exhausted, now_ms));
}

template <bool Shared>
Snowflake BasicSnowflakeGenerator<Shared>::next() {
  using C = detail::SnowflakeCalls<Shared>;
  const typename C::Claim c = C::claim(*this, 1);
  if (c.count == 0) [[unlikely]]
    C::throw_refusal(*this, c);
  return Snowflake(C::id_of(*this, c.first));
}

template <bool Shared>
std::size_t BasicSnowflakeGenerator<Shared>::next_batch(std::span<Snowflake> out,
                                                        std::error_code& error) noexcept {
  using C = detail::SnowflakeCalls<Shared>;
  typename C::Claim refusal;
  const std::size_t done = C::fill(*this, out, refusal);
  error = C::code_of(refusal.why);
  return done;
}

template <bool Shared>
void BasicSnowflakeGenerator<Shared>::next_batch(std::span<Snowflake> out) {
  using C = detail::SnowflakeCalls<Shared>;
  typename C::Claim refusal;
  C::fill(*this, out, refusal);
  if (refusal.why != C::Why::none) C::throw_refusal(*this, refusal);
}

template <bool Shared>
void BasicSnowflakeGenerator<Shared>::set_fence_unix_ms(std::int64_t unix_ms) noexcept {
  std::uint64_t last_allowed = ~std::uint64_t{0};
  if (unix_ms != std::numeric_limits<std::int64_t>::max()) {
    // Ticks 0..ticks-1 end by unix_ms.
    const std::uint64_t ticks = unix_ms <= epoch_ms_
                                    ? 0
                                    : static_cast<std::uint64_t>(unix_ms - epoch_ms_) /
                                          static_cast<std::uint64_t>(tick_ms_);
    last_allowed = ticks == 0                      ? 0
                   : ticks - 1 >= limits_.max_tick ? max_stamp_
                                                   : (ticks << limits_.sequence_bits) - 1;
  }
  fence_unix_ms_.store(unix_ms, std::memory_order_release);
  fence_stamp_.store(last_allowed, std::memory_order_seq_cst);
}

template <bool Shared>
std::int64_t BasicSnowflakeGenerator<Shared>::last_unix_ms() const noexcept {
  const std::uint64_t stamp = stamp_.load(std::memory_order_seq_cst);
  if (stamp == 0) return kNoUnixMs;
  const std::uint64_t tick = stamp >> limits_.sequence_bits;
  const auto room =
      static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max() - epoch_ms_) /
      static_cast<std::uint64_t>(tick_ms_);
  if (tick > room) return std::numeric_limits<std::int64_t>::max();
  return epoch_ms_ + static_cast<std::int64_t>(tick) * tick_ms_;
}

template <bool Shared>
std::int64_t BasicSnowflakeGenerator<Shared>::ahead_ms() const noexcept {
  using C = detail::SnowflakeCalls<Shared>;
  const std::int64_t now_ms = clock_.now_ms();
  if (now_ms < epoch_ms_) return 0;
  const auto last_tick =
      static_cast<std::int64_t>(stamp_.load(std::memory_order_relaxed) >> limits_.sequence_bits);
  const std::int64_t ahead = last_tick - C::tick_of(*this, now_ms);
  return ahead > 0 ? ahead * tick_ms_ : 0;
}

template <bool Shared>
SnowflakeStats BasicSnowflakeGenerator<Shared>::stats() const noexcept {
  return {exhausted_waits_.load(std::memory_order_relaxed),
          backward_waits_.load(std::memory_order_relaxed),
          backward_refusals_.load(std::memory_order_relaxed),
          max_ahead_ticks_.load(std::memory_order_relaxed) * tick_ms_};
}

template <bool Shared>
void BasicSnowflakeGenerator<Shared>::rebind(std::uint64_t node,
                                             std::int64_t issued_up_to_unix_ms) {
  using C = detail::SnowflakeCalls<Shared>;
  if (!C::forked(*this))
    throw Error(errc::invalid_argument,
                "rebind(" + std::to_string(node) +
                    "): only a child process forked after the generator was made may rebind it; "
                    "this process "
                    "made it, so build a new generator for another node ID");
  layout_.check_node(node);
  node_.store(node, std::memory_order_relaxed);
  node_bits_.store(node << layout_.node_shift(), std::memory_order_relaxed);
  const std::uint64_t floor = C::used_through(*this, issued_up_to_unix_ms);
  std::uint64_t cur = stamp_.load(std::memory_order_relaxed);
  while (cur < floor && !stamp_.compare_exchange_weak(cur, floor, std::memory_order_relaxed)) {
  }
  // Publishes node and floor: a call that sees this epoch sees them too (acquire in claim()).
  fork_epoch_.store(detail::fork_epoch(), std::memory_order_release);
}

template <bool Shared>
void BasicSnowflakeGenerator<Shared>::raise_floor_unix_ms(std::int64_t unix_ms) noexcept {
  using C = detail::SnowflakeCalls<Shared>;
  const std::uint64_t floor = C::used_through(*this, unix_ms);
  std::uint64_t cur = stamp_.load(std::memory_order_relaxed);
  while (cur < floor && !stamp_.compare_exchange_weak(cur, floor, std::memory_order_seq_cst,
                                                      std::memory_order_relaxed)) {
  }
}

template class BasicSnowflakeGenerator<true>;
template class BasicSnowflakeGenerator<false>;

}  // namespace idforge
