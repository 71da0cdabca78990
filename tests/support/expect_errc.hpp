// One-line checks that a call throws an idforge::Error with a given code and message, in
// place of try { ...; FAIL(); } catch (const Error& e) { EXPECT_EQ(e.code(), ...); ... }.
//
//   EXPECT_ERRC(parse_uuid("x"), errc::parse_error, "position 0", "hex digit");
//   EXPECT_ERRC_AS(ParseError, parse_uuid("x"), errc::parse_error, "position 0");
//   EXPECT_TRUE(test::throws_errc([&] { Gen g(a, b); }, errc::invalid_argument, {"a"}));
//
// The statement may be a declaration. A statement with a comma outside parentheses (a
// braced list, a template argument list) takes the function form, as in the last line.
// A failure names what was thrown instead, or which words the message lacked, and quotes it.
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <initializer_list>
#include <string>
#include <string_view>
#include <system_error>

#include "idforge/error.hpp"

namespace idforge::test {

/// Calls fn; succeeds when it throws Ex (Error or a subclass) whose code() is code and whose
/// what() contains every one of parts.
template <class Ex = Error, class Fn>
::testing::AssertionResult throws_errc(Fn&& fn, std::error_code code,
                                       std::initializer_list<std::string_view> parts = {}) {
  const auto name = [](std::error_code c) {
    return std::string(c.category().name()) + " '" + c.message() + "' (" +
           std::to_string(c.value()) + ")";
  };
  try {
    fn();
  } catch (const Ex& e) {
    const std::string what = e.what();
    if (e.code() != code)
      return ::testing::AssertionFailure()
             << "threw code " << name(e.code()) << ", expected " << name(code) << ": " << what;
    for (std::string_view part : parts)
      if (what.find(part) == std::string::npos)
        return ::testing::AssertionFailure() << "message lacks '" << part << "': " << what;
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw another exception than expected: " << e.what();
  }
  return ::testing::AssertionFailure() << "threw nothing; expected " << name(code);
}

}  // namespace idforge::test

/// EXPECT_ERRC(statement, code, "part", ...): statement throws an idforge::Error with code
/// (core's errc or a wing's coord_errc, ticket_errc, lab_errc) whose message contains each part.
/// ASSERT_ERRC stops the test.
#define EXPECT_ERRC(statement, code, ...)                                            \
  EXPECT_TRUE(::idforge::test::throws_errc([&] { statement; }, code, {__VA_ARGS__})) \
      << "  in: " #statement
#define ASSERT_ERRC(statement, code, ...)                                            \
  ASSERT_TRUE(::idforge::test::throws_errc([&] { statement; }, code, {__VA_ARGS__})) \
      << "  in: " #statement
/// The same, and the exception is an Ex (ParseError, LeaseError, ...).
#define EXPECT_ERRC_AS(Ex, statement, code, ...)                                         \
  EXPECT_TRUE(::idforge::test::throws_errc<Ex>([&] { statement; }, code, {__VA_ARGS__})) \
      << "  in: " #statement
