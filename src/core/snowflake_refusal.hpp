// Why a Snowflake call issued nothing, and that reason as an error. Every message a caller
// of the generator can read is built here, so the call path (snowflake_generator.cpp)
// carries only the reason and the few numbers the message names.
#pragma once

#include <cstdint>
#include <system_error>

#include "idforge/snowflake_generator.hpp"

namespace idforge::detail {

enum class SnowflakeWhy : std::uint8_t {
  none,
  forked,
  before_epoch,
  fenced,
  backwards,
  exhausted,
  sequence_wait  // the tick's sequence is used up and the next tick is beyond the policy
};

/// What a refused call saw.
struct SnowflakeRefusal {
  SnowflakeWhy why = SnowflakeWhy::none;
  std::int64_t now_ms = 0;     ///< the clock reading it refused on
  std::int64_t behind_ms = 0;  ///< backwards: how far the clock is behind the last tick
  std::int64_t wait_ms = 0;    ///< sequence_wait: ms until the next tick begins
  bool whole_batch = false;    ///< sequence_wait: a batch's waits together passed the policy

  /// Records the reason; false, so a call path can say `return no.set(...)`.
  bool set(SnowflakeWhy w, std::int64_t ms) noexcept {
    why = w;
    now_ms = ms;
    return false;
  }
};

/// The generator's state a message names, read when the refusal is thrown.
struct SnowflakeFacts {
  std::uint64_t node;
  const Layout& layout;
  const SnowflakePolicy& policy;
  std::int64_t fence_unix_ms;
  std::int64_t last_unix_ms;
  std::int64_t time_runs_out_ms;
};

/// The error code of a reason (none: no error).
std::error_code code_of(SnowflakeWhy why) noexcept;

/// Throws the refusal as Error (ClockBackwardsError for backwards) with its message.
[[noreturn]] void throw_refusal(const SnowflakeRefusal& r, const SnowflakeFacts& f);

}  // namespace idforge::detail
