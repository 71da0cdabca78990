#include "idforge/ticket/segment_client.hpp"

#include <algorithm>
#include <string>

#include "idforge/error.hpp"
#include "idforge/ticket/sequence_name.hpp"

namespace idforge::ticket {
namespace {

constexpr std::uint64_t kNoGen = ~std::uint64_t{0};

void check_options(const SegmentOptions& o) {
  const auto bad = [](const std::string& what) {
    throw Error(errc::invalid_argument, "segment options: " + what);
  };
  if (o.initial_step < 0 || o.initial_step > kMaxSegmentStep)
    bad("initial_step " + std::to_string(o.initial_step) + " must be 0 (the store's step) or 1.." +
        std::to_string(kMaxSegmentStep));
  if (o.min_step < 1 || o.min_step > o.max_step || o.max_step > kMaxSegmentStep)
    bad("min_step " + std::to_string(o.min_step) + " and max_step " + std::to_string(o.max_step) +
        " must satisfy 1 <= min_step <= max_step <= " + std::to_string(kMaxSegmentStep));
  if (o.target_block_ns < 0)
    bad("target_block_ns " + std::to_string(o.target_block_ns) + " must be >= 0");
  if (!(o.prefetch_at > 0.0 && o.prefetch_at <= 1.0))
    bad("prefetch_at " + std::to_string(o.prefetch_at) + " must lie in (0, 1]");
}

}  // namespace

SegmentClient::SegmentClient(SegmentStore& store, std::string name, SegmentOptions options,
                             Clock& clock)
    : store_(store), name_(std::move(name)), options_(options), clock_(clock) {
  check_sequence_name(name_);
  check_options(options_);
  step_ = options_.initial_step;
  // Generation 0 is an empty block: the first next() finds it exhausted and loads.
  publish(0, {0, 0});
  word_.store(0, std::memory_order_release);
  if (options_.background) loader_ = std::thread([this] { loader_loop(); });
}

SegmentClient::~SegmentClient() {
  try {
    close();
  } catch (...) {
    // close() reports to the store best-effort already; nothing may escape a destructor.
  }
}

// --- fast path ------------------------------------------------------------------------------

std::int64_t SegmentClient::next() {
  for (;;) {
    const std::uint64_t w = word_.fetch_add(1, std::memory_order_acq_rel);
    const std::uint64_t gen = w >> kOffsetBits;
    const auto off = static_cast<std::int64_t>(w & kOffsetMask);
    const Slot& s = slots_[gen % kRing];
    const std::uint64_t g1 = s.gen.load(std::memory_order_acquire);
    const std::int64_t first = s.first.load(std::memory_order_relaxed);
    const std::int64_t count = s.count.load(std::memory_order_relaxed);
    const std::int64_t prefetch = s.prefetch.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    const std::uint64_t g2 = s.gen.load(std::memory_order_relaxed);
    if (g1 == gen && g2 == gen) [[likely]] {
      if (off < count) [[likely]] {
        if (off == prefetch) [[unlikely]]
          request_spare();
        return first + off;
      }
      refill(gen);
      continue;
    }
    // This thread stalled between its fetch_add and reading the slot for kRing refills:
    // the slot now holds another block. The value it claimed cannot be named any more,
    // so it is never handed out; count it with the lost ones.
    stale_claims_.fetch_add(1, std::memory_order_relaxed);
  }
}

void SegmentClient::next_batch(std::span<std::int64_t> out) {
  for (auto& v : out) v = next();
}

// --- slow path ------------------------------------------------------------------------------

void SegmentClient::publish(std::uint64_t gen, const SegmentBlock& b) {
  Slot& s = slots_[gen % kRing];
  s.gen.store(kNoGen, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  s.first.store(b.first, std::memory_order_relaxed);
  s.count.store(b.count, std::memory_order_relaxed);
  const auto at = static_cast<std::int64_t>(static_cast<double>(b.count) * options_.prefetch_at);
  // prefetch_at = 1 puts the trigger at count, which no claim reaches: no spare is loaded.
  s.prefetch.store(std::clamp<std::int64_t>(at, 0, b.count), std::memory_order_relaxed);
  s.gen.store(gen, std::memory_order_release);
}

std::int64_t SegmentClient::adapted_step(std::int64_t used, std::int64_t elapsed_ns) const {
  if (options_.target_block_ns <= 0 || used <= 0) return step_;
  const long double per_ns = static_cast<long double>(used) /
                             static_cast<long double>(std::max<std::int64_t>(elapsed_ns, 1));
  const long double want = per_ns * static_cast<long double>(options_.target_block_ns);
  if (want >= static_cast<long double>(options_.max_step)) return options_.max_step;
  return std::max(options_.min_step, static_cast<std::int64_t>(want));
}

SegmentBlock SegmentClient::load_block(std::unique_lock<std::mutex>& lk) {
  loading_ = true;
  const std::int64_t step = step_;
  lk.unlock();
  SegmentBlock b;
  try {
    std::lock_guard store_lock(store_mu_);
    b = store_.take(name_, step);
  } catch (const StoreReplaced& e) {
    lk.lock();
    loading_ = false;
    ++load_failures_;
    refuse_locked(e);
    cv_.notify_all();
    throw;
  } catch (...) {
    lk.lock();
    loading_ = false;
    ++load_failures_;
    cv_.notify_all();
    throw;
  }
  lk.lock();
  loading_ = false;
  ++blocks_;
  if (step_ == 0) step_ = b.count;  // first block sized by the store's step
  cv_.notify_all();
  return b;
}

void SegmentClient::refill(std::uint64_t exhausted_gen) {
  std::unique_lock lk(mu_);
  SegmentBlock b;
  for (;;) {
    if (closed_)
      throw Error(errc::invalid_argument, "segment client for '" + name_ + "' is closed");
    if (!refused_.empty()) throw StoreReplaced(refused_);
    if ((word_.load(std::memory_order_acquire) >> kOffsetBits) != exhausted_gen)
      return;  // someone moved on
    if (spare_) {
      b = *spare_;
      spare_.reset();
      break;
    }
    if (loading_) {  // the spare is on its way: wait for it rather than load a second one
      cv_.wait(lk);
      continue;
    }
    ++sync_loads_;
    b = load_block(lk);  // throws the store's error to this caller
    if ((word_.load(std::memory_order_acquire) >> kOffsetBits) != exhausted_gen) {
      spare_ = b;  // not reachable while loads are serialised by loading_; kept safe anyway
      return;
    }
    break;
  }
  const std::uint64_t next_gen = exhausted_gen + 1;
  publish(next_gen, b);
  // Claimers keep incrementing the exhausted word meanwhile; the CAS wins once it sees the
  // latest value, whose offset tells how much of the old block was handed out.
  std::uint64_t expected = word_.load(std::memory_order_relaxed);
  while (!word_.compare_exchange_weak(expected, next_gen << kOffsetBits, std::memory_order_acq_rel,
                                      std::memory_order_relaxed)) {
  }
  const Slot& old = slots_[exhausted_gen % kRing];
  const std::int64_t old_count = old.count.load(std::memory_order_relaxed);
  const std::int64_t used = std::min(static_cast<std::int64_t>(expected & kOffsetMask), old_count);
  retired_handed_ += used;
  const std::int64_t now = clock_.now_ns();
  if (exhausted_gen > 0) step_ = adapted_step(used, now - block_started_ns_);
  block_started_ns_ = now;
}

void SegmentClient::refuse_locked(const StoreReplaced& e) {
  if (!refused_.empty()) return;
  refused_ = e.what();
  std::int64_t lost = 0;
  if (spare_) lost += spare_->count;
  spare_.reset();
  // As refill() moves to a new block, but to an empty one: claimers still on the old word
  // may finish a value they already hold; every later claim finds nothing and refills.
  const std::uint64_t gen = word_.load(std::memory_order_acquire) >> kOffsetBits;
  publish(gen + 1, {0, 0});
  std::uint64_t expected = word_.load(std::memory_order_relaxed);
  while (!word_.compare_exchange_weak(expected, (gen + 1) << kOffsetBits, std::memory_order_acq_rel,
                                      std::memory_order_relaxed)) {
  }
  const std::int64_t count = slots_[gen % kRing].count.load(std::memory_order_relaxed);
  const std::int64_t used = std::min(static_cast<std::int64_t>(expected & kOffsetMask), count);
  retired_handed_ += used;
  refused_lost_ = lost + (count - used);
}

void SegmentClient::request_spare() {
  std::unique_lock lk(mu_);
  if (spare_ || loading_ || stopping_) return;
  want_spare_ = true;
  if (options_.background) {
    cv_.notify_all();
    return;
  }
  want_spare_ = false;
  try {
    spare_ = load_block(lk);
  } catch (const Error&) {
    // Counted in load_failures_; the caller's value is good. If the database stays down,
    // the caller that exhausts this block loads synchronously and sees the error.
  }
}

void SegmentClient::loader_loop() {
  std::unique_lock lk(mu_);
  for (;;) {
    cv_.wait(lk, [&] { return stopping_ || (want_spare_ && !spare_ && !loading_); });
    if (stopping_) return;
    want_spare_ = false;
    try {
      spare_ = load_block(lk);
    } catch (const Error&) {
      // As in request_spare(): a failed prefetch is retried by the synchronous path.
    }
  }
}

// --- closing and stats ----------------------------------------------------------------------

std::int64_t SegmentClient::close() {
  {
    std::lock_guard lk(mu_);
    if (closed_) return lost_;
    stopping_ = true;
  }
  cv_.notify_all();
  if (loader_.joinable()) loader_.join();
  std::unique_lock lk(mu_);
  closed_ = true;
  const std::uint64_t w = word_.load(std::memory_order_acquire);
  const std::uint64_t gen = w >> kOffsetBits;
  const std::int64_t count = slots_[gen % kRing].count.load(std::memory_order_relaxed);
  const std::int64_t used = std::min(static_cast<std::int64_t>(w & kOffsetMask), count);
  retired_handed_ += used;
  std::int64_t lost = count - used + stale_claims_.load(std::memory_order_relaxed) + refused_lost_;
  if (spare_) lost += spare_->count;
  spare_.reset();
  // Park the word on an empty generation: every later next() reaches refill() and throws.
  publish(gen + 1, {0, 0});
  word_.store((gen + 1) << kOffsetBits, std::memory_order_release);
  lost_ = lost;
  lk.unlock();
  if (lost > 0) {
    try {
      std::lock_guard store_lock(store_mu_);
      store_.report_abandoned(name_, lost);
    } catch (const Error&) {
      std::lock_guard relock(mu_);
      ++load_failures_;  // bookkeeping only: the values are lost either way
    }
  }
  return lost;
}

SegmentClientStats SegmentClient::stats() const {
  std::lock_guard lk(mu_);
  SegmentClientStats s;
  s.handed = retired_handed_;
  if (!closed_) {
    const std::uint64_t w = word_.load(std::memory_order_acquire);
    const std::int64_t count =
        slots_[(w >> kOffsetBits) % kRing].count.load(std::memory_order_relaxed);
    s.handed += std::min(static_cast<std::int64_t>(w & kOffsetMask), count);
  }
  s.blocks = blocks_;
  s.step = step_;
  s.sync_loads = sync_loads_;
  s.load_failures = load_failures_;
  s.lost = lost_;
  s.spare_ready = spare_.has_value();
  return s;
}

}  // namespace idforge::ticket
