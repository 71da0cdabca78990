#include "snowflake_refusal.hpp"

#include <string>

#include "idforge/error.hpp"
#include "idforge/time_format.hpp"

namespace idforge::detail {

std::error_code code_of(SnowflakeWhy why) noexcept {
  switch (why) {
    case SnowflakeWhy::forked:
      return make_error_code(errc::forked);
    case SnowflakeWhy::before_epoch:
      return make_error_code(errc::clock_before_epoch);
    case SnowflakeWhy::fenced:
      return make_error_code(errc::fenced);
    case SnowflakeWhy::backwards:
      return make_error_code(errc::clock_moved_backwards);
    case SnowflakeWhy::exhausted:
      return make_error_code(errc::time_exhausted);
    case SnowflakeWhy::sequence_wait:
      return make_error_code(errc::counter_exhausted);
    case SnowflakeWhy::none:
      break;
  }
  return {};
}

void throw_refusal(const SnowflakeRefusal& r, const SnowflakeFacts& f) {
  const std::string node = std::to_string(f.node);
  const Layout& l = f.layout;
  switch (r.why) {
    case SnowflakeWhy::forked:
      throw Error(errc::forked,
                  "snowflake generator for node " + node +
                      " was created before fork(); the child must rebind() to a node ID of "
                      "its own (the parent keeps issuing with this one)");
    case SnowflakeWhy::before_epoch:
      throw Error(errc::clock_before_epoch, "clock reads " + format_iso8601_ms(r.now_ms) +
                                                ", before layout '" + l.name() + "' epoch " +
                                                format_iso8601_ms(l.epoch_ms()));
    case SnowflakeWhy::fenced:
      throw Error(errc::fenced,
                  f.fence_unix_ms <= l.epoch_ms()
                      ? "snowflake generator for node " + node + " is fenced: it issues no more IDs"
                      : "snowflake generator for node " + node + " is fenced at " +
                            format_iso8601_ms(f.fence_unix_ms) +
                            " (it issues no ID whose tick ends after that, as its lease may "
                            "expire or its reserved high-water mark ends there); it issues "
                            "again once the fence moves");
    case SnowflakeWhy::backwards:
      throw ClockBackwardsError(
          "clock moved backwards: it reads " + format_iso8601_ms(r.now_ms) + ", " +
              std::to_string(r.behind_ms) + " ms behind the last issued time " +
              format_iso8601_ms(f.last_unix_ms) + "; the policy waits at most " +
              std::to_string(f.policy.max_backward_wait_ms) + " ms, so nothing was issued",
          r.behind_ms);
    case SnowflakeWhy::sequence_wait:
      if (r.whole_batch)
        throw Error(errc::counter_exhausted,
                    "layout '" + l.name() + "': a batch waits at most " +
                        std::to_string(f.policy.max_sequence_wait_ms) +
                        " ms in all (max_sequence_wait_ms) and its next tick begins later "
                        "than that after the call began; the IDs written so far stay valid, "
                        "ask for fewer per call or call again for the rest");
      throw Error(errc::counter_exhausted,
                  "layout '" + l.name() + "': the " + std::to_string(l.ids_per_tick()) +
                      " IDs of this " + std::to_string(l.tick_ms()) +
                      " ms tick are used up and the next tick begins in " +
                      std::to_string(r.wait_ms) +
                      " ms, more than the policy waits (max_sequence_wait_ms = " +
                      std::to_string(f.policy.max_sequence_wait_ms) +
                      "), so nothing was issued; call again after that");
    case SnowflakeWhy::exhausted:
    case SnowflakeWhy::none:
      break;
  }
  throw Error(errc::time_exhausted,
              "layout '" + l.name() + "': its " + std::to_string(l.time_bits()) +
                  "-bit time field ran out at " + format_iso8601_ms(f.time_runs_out_ms) +
                  ", so nothing was issued");
}

}  // namespace idforge::detail
