// What every SQL function of the extension shares: the guard that turns any C++ exception into
// sqlite3_result_error (none may unwind through SQLite's C frames), and the readers that check
// an argument's type before any work, with a message naming the function, the value and the rule.
#pragma once

#include <sqlite3ext.h>

#include "idforge/idforge.h"

#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

SQLITE_EXTENSION_INIT3

namespace idforge::sqlite {

/// An argument of the wrong type or shape (NULL, an integer where text is wanted, a blob of
/// the wrong length); what() names the value and the rule.
class ArgumentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A C ABI call that failed (idforge.h): what() is idforge_last_error()'s message, the words
/// the CLI prints; status() says which kind of failure.
class CallError : public std::runtime_error {
 public:
  CallError(idforge_status status, const char* message)
      : std::runtime_error(message), status_(status) {}
  idforge_status status() const noexcept { return status_; }

 private:
  idforge_status status_;
};

/// Throws CallError with the calling thread's last C ABI message unless status is IDFORGE_OK
/// (std::bad_alloc for IDFORGE_E_OUT_OF_MEMORY, so the guard answers SQLite's own NOMEM).
inline void ok(idforge_status status) {
  if (status == IDFORGE_OK) return;
  if (status == IDFORGE_E_OUT_OF_MEMORY) throw std::bad_alloc();
  throw CallError(status, idforge_last_error());
}

/// Sets "FUNCTION(): message" as the call's error, quoted by idforge_quote: bytes that are not
/// valid UTF-8 and control characters are escaped, since SQLite hands error text on as UTF-8.
/// Never throws (out of memory becomes SQLite's own out-of-memory error).
void fail(sqlite3_context* ctx, const char* function, std::string_view message) noexcept;

/// Runs body and turns every exception it throws into the call's error.
template <class Body>
void guard(sqlite3_context* ctx, const char* function, Body&& body) noexcept {
  try {
    body();
  } catch (const std::bad_alloc&) {
    sqlite3_result_error_nomem(ctx);
  } catch (const std::exception& e) {
    fail(ctx, function, e.what());
  } catch (...) {
    fail(ctx, function, "an unexpected error of unknown type");
  }
}

/// A value as a message shows it: NULL, integer 5, real 1.5, text 'abc', blob of 15 bytes.
/// Long text is cut (its length is given).
std::string describe(sqlite3_value* value);

/// Text as a message quotes it, through idforge_quote as every face does: up to 48 bytes whole,
/// longer as head...tail and its length; NUL and other control bytes escaped (\x00, \n: a NUL
/// would end what() early), bytes that are not UTF-8 as \xNN.
std::string shown(std::string_view text);

/// The bytes of a TEXT argument, all of them (a NUL inside included; UTF-8 not assumed).
/// Throws ArgumentError naming the value for any other type; rule says what is wanted.
std::string_view text_arg(sqlite3_value* value, std::string_view rule);

}  // namespace idforge::sqlite
