// The per-thread last error message, status names and the version.
#include <cstdint>
#include <cstring>

#include "c_support.hpp"
#include "idforge/coord/coord_errc.hpp"
#include "idforge/detail/printable.hpp"
#include "idforge/version.hpp"

namespace idforge::c {
namespace {
// One message per thread, as errno: a caller reads it right after the failing call.
thread_local std::string t_last_error;
}  // namespace

// No message is longer than this: one that quotes a long input more than once (a lease
// store URL of 5,000 bytes, its path again in the cause) keeps its head and its tail.
constexpr std::size_t kMaxMessage = 1024;

idforge_status fail(idforge_status status, const char* message) noexcept {
  try {
    t_last_error = detail::shortened(message, kMaxMessage);
  } catch (...) {
    t_last_error.clear();  // no room for the message: the status still says what happened
  }
  return status;
}

idforge_status fail(idforge_status status, const std::string& message) noexcept {
  return fail(status, message.c_str());
}

idforge_status status_of(std::error_code code) noexcept {
  if (code.category() == error_category() || code.category() == coord_error_category())
    return static_cast<idforge_status>(code.value());
  return IDFORGE_E_INTERNAL;
}

idforge_status null_argument(const char* function, const char* argument) noexcept {
  try {
    return fail(IDFORGE_E_INVALID_ARGUMENT,
                std::string(function) + ": " + argument + " must not be NULL");
  } catch (...) {
    return fail(IDFORGE_E_INVALID_ARGUMENT, "an argument must not be NULL");
  }
}

Layout layout_or_default(const char* spec) {
  return spec ? parse_layout(spec) : presets::twitter();
}

idforge_status check_length(const char* function, std::size_t len) noexcept {
  if (len <= static_cast<std::size_t>(PTRDIFF_MAX)) return IDFORGE_OK;
  try {
    return fail(IDFORGE_E_INVALID_ARGUMENT, std::string(function) + ": len " + std::to_string(len) +
                                                " is longer than any text can be (PTRDIFF_MAX)");
  } catch (...) {
    return fail(IDFORGE_E_INVALID_ARGUMENT, "len is longer than any text can be (PTRDIFF_MAX)");
  }
}

idforge_status check_out(const char* function, const char* out, std::size_t size) noexcept {
  if (out || size == 0) return IDFORGE_OK;
  try {
    return fail(IDFORGE_E_INVALID_ARGUMENT,
                std::string(function) + ": out must not be NULL when size is " +
                    std::to_string(size) + " (NULL with size 0 asks for the size)");
  } catch (...) {
    return fail(IDFORGE_E_INVALID_ARGUMENT, "out must not be NULL when size > 0");
  }
}

idforge_status write_text(const std::string& text, char* out, std::size_t size,
                          std::size_t* needed) noexcept {
  if (needed) *needed = text.size() + 1;
  if (!out || size < text.size() + 1) {
    try {
      return fail(IDFORGE_E_BUFFER_TOO_SMALL, "output buffer of " + std::to_string(size) +
                                                  " bytes is too small: it takes " +
                                                  std::to_string(text.size() + 1));
    } catch (...) {
      return fail(IDFORGE_E_BUFFER_TOO_SMALL, "output buffer too small");
    }
  }
  std::memcpy(out, text.data(), text.size());
  out[text.size()] = '\0';
  return IDFORGE_OK;
}

}  // namespace idforge::c

extern "C" {

const char* idforge_last_error(void) {
  return idforge::c::t_last_error.c_str();
}

const char* idforge_status_name(idforge_status status) {
  switch (status) {
    case IDFORGE_OK:
      return "ok";
    case IDFORGE_E_INVALID_LAYOUT:
      return "invalid_layout";
    case IDFORGE_E_EPOCH_IN_FUTURE:
      return "epoch_in_future";
    case IDFORGE_E_NODE_OUT_OF_RANGE:
      return "node_out_of_range";
    case IDFORGE_E_CLOCK_MOVED_BACKWARDS:
      return "clock_moved_backwards";
    case IDFORGE_E_CLOCK_BEFORE_EPOCH:
      return "clock_before_epoch";
    case IDFORGE_E_TIME_EXHAUSTED:
      return "time_exhausted";
    case IDFORGE_E_FORKED:
      return "forked";
    case IDFORGE_E_FENCED:
      return "fenced";
    case IDFORGE_E_PARSE_ERROR:
      return "parse_error";
    case IDFORGE_E_COUNTER_EXHAUSTED:
      return "counter_exhausted";
    case IDFORGE_E_LEASE_ERROR:
      return "lease_error";
    case IDFORGE_E_STORE_UNREACHABLE:
      return "store_unreachable";
    case IDFORGE_E_INVALID_ARGUMENT:
      return "invalid_argument";
    case IDFORGE_E_NOT_FOUND:
      return "not_found";
    case IDFORGE_E_ALREADY_EXISTS:
      return "already_exists";
    case IDFORGE_E_KEY_ERROR:
      return "key_error";
    case IDFORGE_E_NOT_OURS:
      return "not_ours";
    case IDFORGE_E_BUFFER_TOO_SMALL:
      return "buffer_too_small";
    case IDFORGE_E_OUT_OF_MEMORY:
      return "out_of_memory";
    case IDFORGE_E_INTERNAL:
      return "internal";
  }
  return "unknown";
}

const char* idforge_version(void) {
  return idforge::version_string;
}

}  // extern "C"
