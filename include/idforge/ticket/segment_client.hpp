// SegmentClient: hands out a sequence's values from memory, blocks at a time (hi/lo).
//
// Fast path (no lock): one 64-bit atomic word holds generation << 40 | offset. next() does a
// fetch_add on it; the generation names the block (its first value and size sit in a small
// ring of slots, published before the word moves to that generation), the offset is the
// position in it. Every value comes from a unique fetch_add result, so no two calls on any
// thread get the same value. Offsets past the block's end mean "exhausted": the caller
// takes the slow path, which swaps in the spare block under a mutex (no I/O) and moves the
// word to the next generation with a compare-and-swap.
//
// Double buffer: once a block is `prefetch_at` used, a background thread takes the next
// block from the store, so callers never wait on the database while the spare lasts. Only
// when both blocks are used up does a caller load synchronously, and a store error then
// reaches the caller as an idforge::Error (ticket_errc::store_unreachable) with the database's
// words.
//
// Step adaptation: with target_block_ns > 0 the step follows the rate of use, measured on
// the Clock, so a block lasts about that long (clamped to [min_step, max_step]).
//
// A replaced store: once the store says it is no longer the one opened (StoreReplaced, on a
// background or a synchronous load), the client hands out nothing more, not even the rest
// of the block it holds: those values were the old store's, and the store now at its place
// starts its numbers again, so it may hand them out too. Every later next() throws the same
// StoreReplaced; the values left are counted as lost. Only a new client (a restarted
// process) may use the store found there.
//
// Lost values: a block is never returned to the store. close() (or the destructor) counts
// what is left in the current and the spare block, reports it to the store's abandoned
// counter and returns it. A process killed with -9 loses its current and spare block.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>

#include "idforge/clock.hpp"
#include "idforge/ticket/segment_store.hpp"
#include "idforge/ticket/ticket_errc.hpp"

namespace idforge::ticket {

/// How a SegmentClient sizes and refills its blocks. Validated by the constructor.
struct SegmentOptions {
  /// Size of the first block; 0 = the sequence's step from the store. >= 0.
  std::int64_t initial_step = 0;
  /// Bounds of the adapted step. 1 <= min_step <= max_step <= kMaxSegmentStep.
  std::int64_t min_step = 1;
  std::int64_t max_step = std::int64_t{1} << 30;
  /// Adapt the step so a block lasts about this long (ns); 0 = keep the step fixed.
  std::int64_t target_block_ns = 0;
  /// Fraction of a block used when the spare is requested, in (0, 1]. Default: half.
  /// 1 = never load ahead (the block is used up first; e.g. a one-shot command).
  double prefetch_at = 0.5;
  /// Load the spare on a background thread (true) or in the caller that crosses the
  /// prefetch point (false: simpler, but that one call waits for the database).
  bool background = true;
};

/// Counters for `seq stats` and metrics. Exact when no next() runs concurrently.
struct SegmentClientStats {
  std::int64_t handed = 0;         ///< values returned by next()
  std::int64_t blocks = 0;         ///< blocks taken from the store
  std::int64_t step = 0;           ///< size the next block will be asked for
  std::int64_t sync_loads = 0;     ///< times a caller waited for the database (no spare)
  std::int64_t load_failures = 0;  ///< store errors while loading (background or not)
  std::int64_t lost = 0;           ///< values abandoned (set by close())
  bool spare_ready = false;        ///< a spare block is waiting
};

/// A sequence's values from memory, a block leased at a time from a SegmentStore, which must
/// outlive the client (file comment).
class SegmentClient {
 public:
  /// Serves sequence name from store. The store and clock must outlive the client; the
  /// client owns the store's use (one connection: nobody else may use it meanwhile).
  /// Throws errc::invalid_argument for bad options or name; talks to the store only on
  /// the first next().
  SegmentClient(SegmentStore& store, std::string name, SegmentOptions options = {},
                Clock& clock = SystemClock::instance());
  /// Closes (see close()), swallowing store errors.
  ~SegmentClient();
  SegmentClient(const SegmentClient&) = delete;
  SegmentClient& operator=(const SegmentClient&) = delete;

  /// The next value. Thread-safe, lock-free between refills. Throws idforge::Error when a
  /// block is needed and the store fails; a later call tries again.
  std::int64_t next();
  /// Fills out with values (each from next()'s rule; ascending within a block).
  void next_batch(std::span<std::int64_t> out);
  /// Stops the loader, counts the values left in the current and spare block as lost,
  /// reports them to the store (best effort) and returns them. Must not race with next();
  /// afterwards next() throws. Idempotent: later calls return the same number.
  std::int64_t close();
  /// Counters (see SegmentClientStats).
  SegmentClientStats stats() const;
  /// The sequence's name.
  const std::string& name() const noexcept { return name_; }

 private:
  static constexpr int kOffsetBits = 40;
  static constexpr std::uint64_t kOffsetMask = (std::uint64_t{1} << kOffsetBits) - 1;
  static constexpr std::size_t kRing = 256;

  // One published block. Written only while its generation is not current (seqlock: gen
  // is cleared first and set last), read by next() and checked against the word's generation.
  struct Slot {
    std::atomic<std::uint64_t> gen{~std::uint64_t{0}};
    std::atomic<std::int64_t> first{0};
    std::atomic<std::int64_t> count{0};
    std::atomic<std::int64_t> prefetch{0};  ///< offset whose claimer requests the spare
  };

  void refill(std::uint64_t exhausted_gen);
  void request_spare();
  void loader_loop();
  SegmentBlock load_block(std::unique_lock<std::mutex>& lk);
  std::int64_t adapted_step(std::int64_t used, std::int64_t elapsed_ns) const;
  void publish(std::uint64_t gen, const SegmentBlock& b);
  /// With mu_ held and no load in progress: drops the spare and parks the word on an empty
  /// generation, counting what was left as lost, so every next() reaches refill() and throws.
  void refuse_locked(const StoreReplaced& e);

  SegmentStore& store_;
  std::string name_;
  SegmentOptions options_;
  Clock& clock_;

  alignas(64) std::atomic<std::uint64_t> word_{0};
  alignas(64) std::array<Slot, kRing> slots_{};

  mutable std::mutex mu_;  // guards everything below
  std::condition_variable cv_;
  std::mutex store_mu_;  // one store call at a time (background or synchronous)
  std::optional<SegmentBlock> spare_;
  bool want_spare_ = false;
  bool loading_ = false;
  bool stopping_ = false;
  bool closed_ = false;
  std::int64_t step_ = 0;
  std::int64_t block_started_ns_ = 0;
  std::int64_t retired_handed_ = 0;
  std::int64_t blocks_ = 0;
  std::int64_t sync_loads_ = 0;
  std::int64_t load_failures_ = 0;
  std::int64_t lost_ = 0;
  std::int64_t refused_lost_ = 0;  // values left when the store was found replaced
  std::string refused_;            // the StoreReplaced message; empty while the store is good
  std::atomic<std::int64_t> stale_claims_{0};
  std::thread loader_;
};

}  // namespace idforge::ticket
