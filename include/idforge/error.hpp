// Errors: core's error category, plus typed exceptions that carry the offending values so
// callers can react without parsing messages. The wings define their own codes in their own
// categories (coord_errc, ticket_errc, lab_errc) and throw them through the same Error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace idforge {

/// What went wrong, independent of the message text. Stable: tests compare by identity.
enum class errc {
  invalid_layout = 1,     ///< layout fields do not add up, or a field is out of range
  epoch_in_future,        ///< a layout's epoch lies after the clock's now
  node_out_of_range,      ///< node, datacenter or worker does not fit its bits
  clock_moved_backwards,  ///< clock is behind the last issued tick by more than the wait bound
  clock_before_epoch,     ///< clock reads earlier than the layout's epoch
  time_exhausted,         ///< the timestamp field has no more ticks left
  forked,                 ///< generator used in a child process before it got its own node ID
  fenced,                 ///< generator is past its fence (lease deadline) and must not issue
  parse_error,            ///< text is not a valid ID / number / spec
  counter_exhausted,      ///< a random/counter field ran out inside one tick (e.g. ULID)
  // 11, 12, 14 and 15 are the wings' (coord_errc, ticket_errc, lab_errc). All idforge
  // categories share one number space: a number means one thing in each category that has it
  // (12 is "did not answer" in coord, ticket and lab alike) and core never takes the wings'
  // numbers, so the C ABI's status is the code's value whichever category it comes from.
  invalid_argument = 13,  ///< any other argument that breaks a stated rule
  key_error = 16,         ///< a masking key is missing, malformed, or not in the keyring
  not_ours,               ///< a public ID fails its keyed check: another key made it, or none
};

}  // namespace idforge

// Declared before Error's constructors and code() comparisons instantiate it.
template <>
struct std::is_error_code_enum<idforge::errc> : std::true_type {};

namespace idforge {

/// The std::error_category of idforge::errc.
const std::error_category& error_category() noexcept;

/// Makes a std::error_code from an idforge::errc.
inline std::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), error_category()};
}

/// Base of every exception idforge throws. code() tells what (core's errc, or a wing's
/// code: compare with ==, e.g. e.code() == errc::fenced), what() says it in words.
class Error : public std::runtime_error {
 public:
  Error(errc code, const std::string& message)
      : std::runtime_error(message), code_(make_error_code(code)) {}
  /// A wing's code (coord_errc, ticket_errc, lab_errc), or one passed on from another Error.
  Error(std::error_code code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  std::error_code code() const noexcept { return code_; }

 private:
  std::error_code code_;
};

/// The clock reads earlier than the last issued tick, beyond what the policy waits for.
class ClockBackwardsError : public Error {
 public:
  ClockBackwardsError(const std::string& message, std::int64_t behind_ms)
      : Error(errc::clock_moved_backwards, message), behind_ms_(behind_ms) {}
  /// How far the clock is behind the last issued time, in milliseconds.
  std::int64_t behind_ms() const noexcept { return behind_ms_; }

 private:
  std::int64_t behind_ms_;
};

/// Text that does not parse. Carries the input, the 0-based position and the rule broken.
class ParseError : public Error {
 public:
  ParseError(std::string_view what_kind, std::string_view input, std::size_t position,
             std::string_view reason);
  const std::string& input() const noexcept { return input_; }
  std::size_t position() const noexcept { return position_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string input_;
  std::size_t position_;
  std::string reason_;
};

}  // namespace idforge
