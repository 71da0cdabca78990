// Segment (hi/lo) storage: a table of (name, next value, step). A client takes a block of
// values [first, first + count) with one atomic step on the database and hands the block
// out from memory. The database only ever moves next_value up, so a block, once taken, is
// never given to anyone else: a block a client abandons (crash, shutdown) leaves a gap and
// is never reused.
//
// Identity: a store is one particular file or table, not whatever its URL names later. Each
// store holds a random store ID (table idforge_store, written when the store is made); a
// SegmentStore object remembers the ID it opened and, on every block it takes, checks that
// the store is still that one: the SQLite file at the path is still the open file (not
// deleted, moved or replaced) and holds the same ID; the PostgreSQL tables hold the same ID
// and are the tables it opened. A store re-created at the same place starts its numbers
// again, so an object that saw the old one refuses it (StoreReplaced) for good; a newly opened
// object takes it as the new store it is. docs/SEQUENCES.md says what each store cannot see.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "idforge/error.hpp"
#include "idforge/ticket/db_timeouts.hpp"
#include "idforge/ticket/ticket_errc.hpp"

namespace idforge::ticket {

/// A block of values [first, first + count), owned by whoever took it.
struct SegmentBlock {
  std::int64_t first = 0;
  std::int64_t count = 0;
};

/// One row of the segment table, as `idforge seq stats` shows it.
struct SegmentRow {
  std::string name;
  /// The first value no block has covered yet; kSegmentExhausted once a block ended at 2^63-1.
  std::int64_t next_value = 0;
  std::int64_t step = 0;       ///< the default block size
  std::int64_t blocks = 0;     ///< blocks taken so far
  std::int64_t abandoned = 0;  ///< values clients reported as lost in abandoned blocks
};

/// The store an object opened is no longer the one at its URL: the SQLite file was deleted,
/// moved or replaced, or the store ID or tables changed (dropped and re-created, restored
/// from a copy). Nothing was written and no block was taken; the object refuses every later
/// call with the same message (a store that starts again would repeat values this object
/// already handed out). code() is ticket_errc::store_unreachable.
class StoreReplaced : public Error {
 public:
  explicit StoreReplaced(const std::string& message)
      : Error(ticket_errc::store_unreachable, message) {}
};

/// Where segments live. One instance holds one connection and is not thread-safe; the
/// atomicity that matters (two clients never get the same block) is the database's.
class SegmentStore {
 public:
  virtual ~SegmentStore() = default;
  /// Creates sequence name starting at start with default block size step (> 0).
  /// ticket_errc::already_exists if it exists, errc::invalid_argument for a bad name or step.
  virtual void create(std::string_view name, std::int64_t start, std::int64_t step) = 0;
  /// Takes the next block of count values (0: the sequence's step) in one atomic step; the
  /// last block ends at 2^63-1 and may be shorter; after it, errc::counter_exhausted.
  /// ticket_errc::not_found if the sequence does not exist, ticket_errc::store_unreachable if the
  /// database does not answer (then the block may or may not be taken: a gap, never a reuse),
  /// StoreReplaced if the store is no longer the one this object opened (file comment).
  virtual SegmentBlock take(std::string_view name, std::int64_t count) = 0;
  /// Adds lost values to the sequence's abandoned counter (bookkeeping only).
  virtual void report_abandoned(std::string_view name, std::int64_t lost) = 0;
  /// Every sequence, by name.
  virtual std::vector<SegmentRow> stats() = 0;
  /// The store's URL with any password hidden.
  virtual std::string describe() const = 0;
  /// The store ID this object opened (32 hex digits; file comment).
  virtual const std::string& store_id() const noexcept = 0;
};

/// How a store is opened.
struct StoreOptions {
  /// SQLite: make the file (and its folder) when missing. false: a missing file is
  /// ticket_errc::not_found, so a mistyped path cannot silently start a second store at 1.
  bool create = true;
  /// PostgreSQL: bounds on connecting and on each statement (a frozen server gives
  /// ticket_errc::store_unreachable instead of a hang). SQLite waits for its lock as before.
  DbTimeouts timeouts;
};

/// Opens the store a URL names (sqlite:PATH or postgres://...); creates the table if missing.
/// A relative SQLite path resolves against the working folder (describe() shows it whole).
/// MariaDB URLs are refused here with a message pointing at the supported stores.
std::unique_ptr<SegmentStore> open_segment_store(std::string_view url,
                                                 const StoreOptions& options = {});

/// next_value of a sequence that has handed out every value up to 2^63-1 (its last block,
/// shorter than asked when fewer values were left, ended there).
inline constexpr std::int64_t kSegmentExhausted = -1;

/// Largest block a store hands out in one step (keeps next_value far from overflow and
/// fits the client's 38-bit offset field).
inline constexpr std::int64_t kMaxSegmentStep = std::int64_t{1} << 36;

}  // namespace idforge::ticket
