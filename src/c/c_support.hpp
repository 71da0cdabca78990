// Shared by every C entry point: the per-thread last message and the guard that turns any
// C++ exception into a status code, so none ever crosses the C boundary.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "idforge/error.hpp"
#include "idforge/idforge.h"
#include "idforge/snowflake_layout.hpp"

namespace idforge::c {

/// Stores message as the calling thread's last error and returns status. Never throws.
idforge_status fail(idforge_status status, const char* message) noexcept;
/// Same, for a message built by the caller.
idforge_status fail(idforge_status status, const std::string& message) noexcept;
/// IDFORGE_E_INVALID_ARGUMENT naming the function and the NULL argument.
idforge_status null_argument(const char* function, const char* argument) noexcept;

/// The C status of an idforge::Error's code: the same number for core's and the wings'
/// categories; any other category (none is thrown as Error today) is internal.
idforge_status status_of(std::error_code code) noexcept;

/// Runs body (returning idforge_status) and turns every exception into a status and a
/// message: idforge::Error keeps its code (core's and the wings' categories share one number
/// space, the C statuses' numbers), the rest are out of memory or internal.
template <class Body>
idforge_status guard(Body&& body) noexcept {
  try {
    return body();
  } catch (const Error& e) {
    return fail(status_of(e.code()), e.what());
  } catch (const std::bad_alloc&) {
    return fail(IDFORGE_E_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return fail(IDFORGE_E_INTERNAL, e.what());
  } catch (...) {
    return fail(IDFORGE_E_INTERNAL, "an unexpected error of unknown type");
  }
}

/// IDFORGE_E_INVALID_ARGUMENT for a text length no object can have (above PTRDIFF_MAX), which
/// would otherwise surface as an internal length error; IDFORGE_OK for any other.
idforge_status check_length(const char* function, std::size_t len) noexcept;

/// IDFORGE_E_INVALID_ARGUMENT for a NULL output buffer with a non-zero size (NULL with size 0
/// asks for the size: IDFORGE_E_BUFFER_TOO_SMALL and *needed); IDFORGE_OK otherwise.
idforge_status check_out(const char* function, const char* out, std::size_t size) noexcept;

/// A layout from a preset name or spec; NULL means twitter. Throws what parse_layout throws.
Layout layout_or_default(const char* spec);

/// Copies text and a NUL into out[0..size); *needed (if not NULL) gets text.size() + 1.
idforge_status write_text(const std::string& text, char* out, std::size_t size,
                          std::size_t* needed) noexcept;

}  // namespace idforge::c
