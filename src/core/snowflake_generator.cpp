#include "idforge/snowflake_generator.hpp"

#include <algorithm>
#include <string>

#include "idforge/detail/fork_epoch.hpp"
#include "idforge/error.hpp"
#include "idforge/time_format.hpp"

namespace idforge {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) noexcept { return (a + b - 1) / b; }

}  // namespace

template <bool Shared>
BasicSnowflakeGenerator<Shared>::BasicSnowflakeGenerator(const Layout& layout, std::uint64_t node,
                                       const SnowflakePolicy& policy)
    : BasicSnowflakeGenerator(layout, node, SystemClock::instance(), policy) {}

template <bool Shared>
BasicSnowflakeGenerator<Shared>::BasicSnowflakeGenerator(const Layout& layout, std::uint64_t node, Clock& clock,
                                       const SnowflakePolicy& policy)
    : layout_(layout),
      policy_(policy),
      clock_(clock),
      node_(layout.check_node(node)) {
  if (policy.max_backward_wait_ms < 0 || policy.max_borrow_ms < 0)
    throw Error(errc::invalid_argument,
                "policy: max_backward_wait_ms (" + std::to_string(policy.max_backward_wait_ms) +
                    ") and max_borrow_ms (" + std::to_string(policy.max_borrow_ms) +
                    ") must be >= 0");
  const std::int64_t now_ms = clock.now_ns() / 1'000'000;
  Layout::make(layout.fields(), now_ms);  // rejects an epoch after this clock's now
  detail::install_fork_handler();
  fork_epoch_ = detail::fork_epoch();
  node_bits_shifted_ = node_ << layout.node_shift();
  epoch_ns_ = layout.epoch_ms() * 1'000'000;
  tick_ns_ = layout.tick_ms() * 1'000'000;
  inv_tick_ns_ = 1.0 / static_cast<double>(tick_ns_);
  limits_ = {layout.sequence_bits(), layout.max_tick(), ceil_div(policy.max_borrow_ms, layout.tick_ms()),
             ceil_div(policy.max_backward_wait_ms, layout.tick_ms())};
  std::uint64_t start = 0;
  if (policy.issued_up_to_unix_ms >= layout.epoch_ms()) {
    // The mark's whole tick counts as used: the first ID lands in the tick after it.
    const auto mark_tick = static_cast<std::uint64_t>((policy.issued_up_to_unix_ms - layout.epoch_ms()) /
                                                      layout.tick_ms());
    start = (mark_tick << limits_.sequence_bits) | (layout.ids_per_tick() - 1);
  }
  stamp_.store(start);
  // fetch_add must never carry a stamp past 2^64 (a wrap would reissue old stamps): with
  // time + sequence bits <= 62 even 2^62 claims cannot, so only such layouts claim by add.
  claim_by_add_ = layout.time_bits() + layout.sequence_bits() <= 62;
}

// A 64-bit integer divide costs 25-90 cycles on x86; the clock read is the floor we are
// measured against, so the tick is found with a double multiply and one exact correction.
// The double's 53-bit mantissa keeps the estimate within 1 of the quotient for any tick
// count below 2^50, far beyond what a time field holds.
template <bool Shared>
inline std::int64_t BasicSnowflakeGenerator<Shared>::tick_of(std::int64_t unix_ns) const noexcept {
  const std::int64_t d = unix_ns - epoch_ns_;
  if (tick_ns_ == 1'000'000) return d / 1'000'000;  // the common 1 ms tick: a constant divide (multiply)
  auto q = static_cast<std::int64_t>(static_cast<double>(d) * inv_tick_ns_);
  const std::int64_t r = d - q * tick_ns_;
  if (r < 0) --q;
  else if (r >= tick_ns_) ++q;
  return q;
}

template <bool Shared>
std::int64_t BasicSnowflakeGenerator<Shared>::ns_of_tick(std::int64_t tick) const noexcept {
  return epoch_ns_ + tick * tick_ns_;
}

// A thread preempted between its clock read and its claim sees a state that other threads
// moved on in the meantime, which looks exactly like the clock stepping back. So before
// refusing, read the clock once more: a real step back is still there, a stale read is not.
template <bool Shared>
typename BasicSnowflakeGenerator<Shared>::Step BasicSnowflakeGenerator<Shared>::recheck(
    std::uint64_t last, std::int64_t& now_ns, std::int64_t& now_tick) const noexcept {
  now_ns = read_clock();
  now_tick = tick_of(now_ns);
  return advance(last, now_tick, limits_);
}

// One predictable branch on the fast path; the reasons are sorted out only when it fires.
template <bool Shared>
inline bool BasicSnowflakeGenerator<Shared>::must_check(std::int64_t now_ns) const noexcept {
  return detail::fork_epoch() != fork_epoch_ || now_ns >= fence_ns_.load(std::memory_order_relaxed) ||
         now_ns < epoch_ns_;
}

template <bool Shared>
std::error_code BasicSnowflakeGenerator<Shared>::check_process_and_fence(std::int64_t now_ns) const noexcept {
  if (detail::fork_epoch() != fork_epoch_) return make_error_code(errc::forked);
  if (now_ns >= fence_ns_.load(std::memory_order_acquire)) return make_error_code(errc::fenced);
  if (now_ns < epoch_ns_) return make_error_code(errc::clock_before_epoch);
  return {};
}

template <bool Shared>
void BasicSnowflakeGenerator<Shared>::throw_code(std::error_code ec, std::int64_t now_ns) const {
  const auto e = static_cast<errc>(ec.value());
  switch (e) {
    case errc::forked:
      throw Error(e, "snowflake generator for node " + std::to_string(node_) +
                         " was created before fork(); the child must rebind() to a node ID of "
                         "its own (the parent keeps issuing with this one)");
    case errc::fenced:
      throw Error(e, "snowflake generator for node " + std::to_string(node_) +
                         " is fenced since " +
                         format_iso8601_ms(fence_ns_.load(std::memory_order_relaxed) / 1'000'000) +
                         " (its lease may expire); it issues again after a renewal");
    case errc::clock_before_epoch:
      throw Error(e, "clock reads " + format_iso8601_ms(now_ns / 1'000'000) +
                         ", before layout '" + layout_.name() + "' epoch " +
                         format_iso8601_ms(layout_.epoch_ms()));
    default:
      throw Error(e, ec.message());
  }
}

template <bool Shared>
bool BasicSnowflakeGenerator<Shared>::wait_for(const Step& step) noexcept {
  if (step.kind != Step::Kind::wait) return false;
  (step.behind > limits_.borrow_ticks ? backward_waits_ : exhausted_waits_)
      .fetch_add(1, std::memory_order_relaxed);
  clock_.wait_until_ns(ns_of_tick(step.until_tick));
  return true;
}

template <bool Shared>
std::error_code BasicSnowflakeGenerator<Shared>::refusal_code(const Step& step) noexcept {
  if (step.kind == Step::Kind::refuse_backwards) {
    backward_refusals_.fetch_add(1, std::memory_order_relaxed);
    return make_error_code(errc::clock_moved_backwards);
  }
  return make_error_code(errc::time_exhausted);
}

template <bool Shared>
void BasicSnowflakeGenerator<Shared>::throw_refusal(const Step& step, std::int64_t now_ns) const {
  if (step.kind == Step::Kind::refuse_backwards) {
    const std::int64_t behind_ms = step.behind * layout_.tick_ms();
    throw ClockBackwardsError(
        "clock moved backwards: it reads " + format_iso8601_ms(now_ns / 1'000'000) + ", " +
            std::to_string(behind_ms) + " ms behind the last issued time " +
            format_iso8601_ms(last_unix_ms()) + "; the policy waits at most " +
            std::to_string(policy_.max_backward_wait_ms) + " ms, so nothing was issued",
        behind_ms);
  }
  throw Error(errc::time_exhausted,
              "layout '" + layout_.name() + "': its " + std::to_string(layout_.time_bits()) +
                  "-bit time field ran out at " + format_iso8601_ms(describe(layout_).time_runs_out_ms));
}

template <bool Shared>
inline void BasicSnowflakeGenerator<Shared>::note_ahead(std::uint64_t stamp, std::int64_t now_tick) noexcept {
  const std::int64_t ahead = static_cast<std::int64_t>(stamp >> limits_.sequence_bits) - now_tick;
  std::int64_t seen = max_ahead_ticks_.load(std::memory_order_relaxed);
  while (ahead > seen && !max_ahead_ticks_.compare_exchange_weak(seen, ahead, std::memory_order_relaxed)) {
  }
}

// Claiming with fetch_add instead of compare-and-swap: the locked add does not depend on
// the clock reading; a CAS has to wait for the reading and the arithmetic on it, and then
// may fail (measured in one run: 32.5 ns with the add, 37.5 ns with a CAS, against a 22 ns
// clock read). The claimed stamp old+1 is ours alone. advance(old, now) then says
// what to do with it: issue it; jump ahead to the new tick (one CAS, once per tick); wait
// until its tick comes (sequence exhausted, or clock a little behind); or refuse. A stamp
// claimed and then refused or abandoned is a gap, never a duplicate.
template <bool Shared>
Snowflake BasicSnowflakeGenerator<Shared>::next() {
  if (!claim_by_add_) return next_by_cas();
  for (;;) {
    std::int64_t now_ns = read_clock();
    if (must_check(now_ns)) [[unlikely]] {
      if (const auto ec = check_process_and_fence(now_ns)) throw_code(ec, now_ns);
    }
    std::int64_t now_tick = tick_of(now_ns);
    const std::uint64_t old = stamp_.fetch_add_one();
    Step step = advance(old, now_tick, limits_);
    if (step.kind == Step::Kind::refuse_backwards) step = recheck(old, now_ns, now_tick);
    if (step.kind == Step::Kind::issue) [[likely]] {
      if (step.stamp == old + 1) {
        if (limits_.borrow_ticks != 0) note_ahead(step.stamp, now_tick);
        return Snowflake(id_of(step.stamp));
      }
      // The clock moved to a new tick: move the counter up to it, unless someone else
      // claimed after us (then our claim is a gap and we try again).
      std::uint64_t expected = old + 1;
      if (stamp_.cas_strong(expected, step.stamp))
        return Snowflake(id_of(step.stamp));
      continue;
    }
    if (wait_for(step)) return Snowflake(id_of(old + 1));  // its tick has come: still ours
    refusal_code(step);
    throw_refusal(step, now_ns);
  }
}

template <bool Shared>
Snowflake BasicSnowflakeGenerator<Shared>::next_by_cas() {
  for (;;) {
    std::int64_t now_ns = read_clock();
    if (must_check(now_ns)) [[unlikely]] {
      if (const auto ec = check_process_and_fence(now_ns)) throw_code(ec, now_ns);
    }
    std::int64_t now_tick = tick_of(now_ns);
    std::uint64_t last = stamp_.load();
    Step step = advance(last, now_tick, limits_);
    if (step.kind == Step::Kind::refuse_backwards) step = recheck(last, now_ns, now_tick);
    while (step.kind == Step::Kind::issue) {
      if (stamp_.cas_weak(last, step.stamp)) {
        if (limits_.borrow_ticks != 0) note_ahead(step.stamp, now_tick);
        return Snowflake(id_of(step.stamp));
      }
      step = advance(last, now_tick, limits_);  // lost a race: same clock reading, newer state
    }
    if (!wait_for(step)) {
      refusal_code(step);
      throw_refusal(step, now_ns);
    }
  }
}

template <bool Shared>
std::size_t BasicSnowflakeGenerator<Shared>::next_batch(std::span<Snowflake> out, std::error_code& error) noexcept {
  Refusal ignored;
  return fill(out, error, ignored);
}

template <bool Shared>
std::size_t BasicSnowflakeGenerator<Shared>::fill(std::span<Snowflake> out, std::error_code& error,
                                     Refusal& refusal) noexcept {
  const int S = limits_.sequence_bits;
  const std::uint64_t max_stamp = (limits_.max_tick << S) | ((std::uint64_t{1} << S) - 1);
  std::size_t done = 0;
  error.clear();
  while (done < out.size()) {
    std::int64_t now_ns = read_clock();
    refusal.now_ns = now_ns;
    if (const auto ec = check_process_and_fence(now_ns)) return error = ec, done;
    std::int64_t now_tick = tick_of(now_ns);
    std::uint64_t last = stamp_.load();
    Step step = advance(last, now_tick, limits_);
    if (step.kind == Step::Kind::refuse_backwards) step = recheck(last, now_ns, now_tick);
    // Every stamp below `ceiling` is allowed at this clock reading.
    const std::uint64_t ceiling =
        std::min(static_cast<std::uint64_t>(now_tick + limits_.borrow_ticks + 1) << S, max_stamp + 1);
    while (step.kind == Step::Kind::issue) {
      const std::uint64_t k = std::min<std::uint64_t>(out.size() - done, ceiling - step.stamp);
      if (stamp_.cas_weak(last, step.stamp + k - 1)) {
        if (limits_.borrow_ticks != 0) note_ahead(step.stamp + k - 1, now_tick);
        for (std::uint64_t j = 0; j < k; ++j) out[done + j] = Snowflake(id_of(step.stamp + j));
        done += k;
        if (done < out.size() && step.stamp + k == ceiling && ceiling <= max_stamp) {
          // This reading's ticks are used up: wait for the next tick before reading again.
          exhausted_waits_.fetch_add(1, std::memory_order_relaxed);
          clock_.wait_until_ns(ns_of_tick(static_cast<std::int64_t>(ceiling >> S) - limits_.borrow_ticks));
        }
        break;
      }
      step = advance(last, now_tick, limits_);
    }
    if (step.kind != Step::Kind::issue && !wait_for(step)) {
      refusal.step = step;
      refusal.now_ns = now_ns;
      return error = refusal_code(step), done;
    }
  }
  return done;
}

template <bool Shared>
void BasicSnowflakeGenerator<Shared>::next_batch(std::span<Snowflake> out) {
  std::error_code ec;
  Refusal refusal;
  fill(out, ec, refusal);
  if (!ec) return;
  if (ec == errc::clock_moved_backwards || ec == errc::time_exhausted)
    throw_refusal(refusal.step, refusal.now_ns);
  throw_code(ec, refusal.now_ns);
}

template <bool Shared>
std::int64_t BasicSnowflakeGenerator<Shared>::last_unix_ms() const noexcept {
  const std::uint64_t stamp = stamp_.load();
  if (stamp == 0) return std::numeric_limits<std::int64_t>::min();
  return layout_.epoch_ms() + static_cast<std::int64_t>(stamp >> limits_.sequence_bits) * layout_.tick_ms();
}

template <bool Shared>
std::int64_t BasicSnowflakeGenerator<Shared>::ahead_ms() const noexcept {
  const std::uint64_t stamp = stamp_.load();
  const std::int64_t ahead = static_cast<std::int64_t>(stamp >> limits_.sequence_bits) - tick_of(read_clock());
  return ahead > 0 ? ahead * layout_.tick_ms() : 0;
}

template <bool Shared>
SnowflakeStats BasicSnowflakeGenerator<Shared>::stats() const noexcept {
  return {exhausted_waits_.load(std::memory_order_relaxed), backward_waits_.load(std::memory_order_relaxed),
          backward_refusals_.load(std::memory_order_relaxed),
          max_ahead_ticks_.load(std::memory_order_relaxed) * layout_.tick_ms()};
}

template <bool Shared>
void BasicSnowflakeGenerator<Shared>::rebind(std::uint64_t node) {
  node_ = layout_.check_node(node);
  node_bits_shifted_ = node_ << layout_.node_shift();
  fork_epoch_ = detail::fork_epoch();
}

template class BasicSnowflakeGenerator<true>;
template class BasicSnowflakeGenerator<false>;

}  // namespace idforge
