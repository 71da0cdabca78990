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

SnowflakeGenerator::SnowflakeGenerator(const Layout& layout, std::uint64_t node,
                                       const SnowflakePolicy& policy)
    : SnowflakeGenerator(layout, node, SystemClock::instance(), policy) {}

SnowflakeGenerator::SnowflakeGenerator(const Layout& layout, std::uint64_t node, Clock& clock,
                                       const SnowflakePolicy& policy)
    : layout_(layout), policy_(policy), clock_(&clock), node_(layout.check_node(node)) {
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
  stamp_.store(start, std::memory_order_relaxed);
}

// A 64-bit integer divide costs 25-90 cycles on x86; the clock read is the floor we are
// measured against, so the tick is found with a double multiply and one exact correction.
// The double's 53-bit mantissa keeps the estimate within 1 of the quotient for any tick
// count below 2^50, far beyond what a time field holds.
inline std::int64_t SnowflakeGenerator::tick_of(std::int64_t unix_ns) const noexcept {
  const std::int64_t d = unix_ns - epoch_ns_;
  auto q = static_cast<std::int64_t>(static_cast<double>(d) * inv_tick_ns_);
  const std::int64_t r = d - q * tick_ns_;
  if (r < 0) --q;
  else if (r >= tick_ns_) ++q;
  return q;
}

std::int64_t SnowflakeGenerator::ns_of_tick(std::int64_t tick) const noexcept {
  return epoch_ns_ + tick * tick_ns_;
}

std::error_code SnowflakeGenerator::check_process_and_fence(std::int64_t now_ns) const noexcept {
  if (detail::fork_epoch() != fork_epoch_) return make_error_code(errc::forked);
  if (now_ns >= fence_ns_.load(std::memory_order_acquire)) return make_error_code(errc::fenced);
  if (now_ns < epoch_ns_) return make_error_code(errc::clock_before_epoch);
  return {};
}

void SnowflakeGenerator::throw_code(std::error_code ec, std::int64_t now_ns) const {
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

bool SnowflakeGenerator::wait_for(const Step& step) noexcept {
  if (step.kind != Step::Kind::wait) return false;
  (step.behind > limits_.borrow_ticks ? backward_waits_ : exhausted_waits_)
      .fetch_add(1, std::memory_order_relaxed);
  clock_->wait_until_ns(ns_of_tick(step.until_tick));
  return true;
}

std::error_code SnowflakeGenerator::refusal_code(const Step& step) noexcept {
  if (step.kind == Step::Kind::refuse_backwards) {
    backward_refusals_.fetch_add(1, std::memory_order_relaxed);
    return make_error_code(errc::clock_moved_backwards);
  }
  return make_error_code(errc::time_exhausted);
}

void SnowflakeGenerator::throw_refusal(const Step& step, std::int64_t now_ns) const {
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

inline void SnowflakeGenerator::note_ahead(std::uint64_t stamp, std::int64_t now_tick) noexcept {
  const std::int64_t ahead = static_cast<std::int64_t>(stamp >> limits_.sequence_bits) - now_tick;
  std::int64_t seen = max_ahead_ticks_.load(std::memory_order_relaxed);
  while (ahead > seen && !max_ahead_ticks_.compare_exchange_weak(seen, ahead, std::memory_order_relaxed)) {
  }
}

Snowflake SnowflakeGenerator::next() {
  for (;;) {
    const std::int64_t now_ns = clock_->now_ns();
    if (detail::fork_epoch() != fork_epoch_ || now_ns >= fence_ns_.load(std::memory_order_relaxed) ||
        now_ns < epoch_ns_) [[unlikely]] {
      if (const auto ec = check_process_and_fence(now_ns)) throw_code(ec, now_ns);
    }
    const std::int64_t now_tick = tick_of(now_ns);
    std::uint64_t last = stamp_.load(std::memory_order_relaxed);
    Step step = advance(last, now_tick, limits_);
    while (step.kind == Step::Kind::issue) [[likely]] {
      if (stamp_.compare_exchange_weak(last, step.stamp, std::memory_order_relaxed)) [[likely]] {
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

std::size_t SnowflakeGenerator::next_batch(std::span<Snowflake> out, std::error_code& error) noexcept {
  Refusal ignored;
  return fill(out, error, ignored);
}

std::size_t SnowflakeGenerator::fill(std::span<Snowflake> out, std::error_code& error,
                                     Refusal& refusal) noexcept {
  const int S = limits_.sequence_bits;
  const std::uint64_t max_stamp = (limits_.max_tick << S) | ((std::uint64_t{1} << S) - 1);
  std::size_t done = 0;
  error.clear();
  while (done < out.size()) {
    const std::int64_t now_ns = clock_->now_ns();
    refusal.now_ns = now_ns;
    if (const auto ec = check_process_and_fence(now_ns)) return error = ec, done;
    const std::int64_t now_tick = tick_of(now_ns);
    // Every stamp below `ceiling` is allowed at this clock reading.
    const std::uint64_t ceiling =
        std::min(static_cast<std::uint64_t>(now_tick + limits_.borrow_ticks + 1) << S, max_stamp + 1);
    std::uint64_t last = stamp_.load(std::memory_order_relaxed);
    Step step = advance(last, now_tick, limits_);
    while (step.kind == Step::Kind::issue) {
      const std::uint64_t k = std::min<std::uint64_t>(out.size() - done, ceiling - step.stamp);
      if (stamp_.compare_exchange_weak(last, step.stamp + k - 1, std::memory_order_relaxed)) {
        if (limits_.borrow_ticks != 0) note_ahead(step.stamp + k - 1, now_tick);
        for (std::uint64_t j = 0; j < k; ++j) out[done + j] = Snowflake(id_of(step.stamp + j));
        done += k;
        if (done < out.size() && step.stamp + k == ceiling && ceiling <= max_stamp) {
          // This reading's ticks are used up: wait for the next tick before reading again.
          exhausted_waits_.fetch_add(1, std::memory_order_relaxed);
          clock_->wait_until_ns(ns_of_tick(static_cast<std::int64_t>(ceiling >> S) - limits_.borrow_ticks));
        }
        break;
      }
      step = advance(last, now_tick, limits_);
    }
    if (step.kind != Step::Kind::issue && !wait_for(step)) {
      refusal.step = step;
      return error = refusal_code(step), done;
    }
  }
  return done;
}

void SnowflakeGenerator::next_batch(std::span<Snowflake> out) {
  std::error_code ec;
  Refusal refusal;
  fill(out, ec, refusal);
  if (!ec) return;
  if (ec == errc::clock_moved_backwards || ec == errc::time_exhausted)
    throw_refusal(refusal.step, refusal.now_ns);
  throw_code(ec, refusal.now_ns);
}

std::int64_t SnowflakeGenerator::last_unix_ms() const noexcept {
  const std::uint64_t stamp = stamp_.load(std::memory_order_acquire);
  if (stamp == 0) return std::numeric_limits<std::int64_t>::min();
  return layout_.epoch_ms() + static_cast<std::int64_t>(stamp >> limits_.sequence_bits) * layout_.tick_ms();
}

std::int64_t SnowflakeGenerator::ahead_ms() const noexcept {
  const std::uint64_t stamp = stamp_.load(std::memory_order_acquire);
  const std::int64_t ahead = static_cast<std::int64_t>(stamp >> limits_.sequence_bits) - tick_of(clock_->now_ns());
  return ahead > 0 ? ahead * layout_.tick_ms() : 0;
}

SnowflakeStats SnowflakeGenerator::stats() const noexcept {
  return {exhausted_waits_.load(std::memory_order_relaxed), backward_waits_.load(std::memory_order_relaxed),
          backward_refusals_.load(std::memory_order_relaxed),
          max_ahead_ticks_.load(std::memory_order_relaxed) * layout_.tick_ms()};
}

void SnowflakeGenerator::rebind(std::uint64_t node) {
  node_ = layout_.check_node(node);
  node_bits_shifted_ = node_ << layout_.node_shift();
  fork_epoch_ = detail::fork_epoch();
}

}  // namespace idforge
