// Tests that need a real server (Redis, etcd, PostgreSQL, MariaDB): the server's URL comes
// from a variable that scripts/services.sh writes into .data/services.env. Without it the
// test is skipped, unless IDFORGE_REQUIRE_SERVICES=1 (scripts/test.sh sets it): then a
// missing server is a failure, so CI cannot go green by skipping.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace idforge::test {

/// True when IDFORGE_REQUIRE_SERVICES=1: a missing server fails the test instead of skipping it.
bool services_required();

/// The value of the environment variable name, or nullopt when it is unset or empty.
std::optional<std::string> service_var(const char* name);

}  // namespace idforge::test

/// Skips the current test with the message, or fails it under IDFORGE_REQUIRE_SERVICES=1.
/// Returns from the enclosing void function (a test body or a SetUp) either way.
#define IDFORGE_SKIP_OR_FAIL(message)                                 \
  do {                                                                \
    const std::string idforge_why_ = (message);                       \
    if (::idforge::test::services_required()) FAIL() << idforge_why_; \
    GTEST_SKIP() << idforge_why_;                                     \
  } while (false)

/// Declares `const std::string var` holding the service variable name, or skips / fails the
/// test (see IDFORGE_SKIP_OR_FAIL) when the variable is not set.
#define IDFORGE_NEED_SERVICE(var, name)                                             \
  const std::optional<std::string> var##_opt_ = ::idforge::test::service_var(name); \
  if (!var##_opt_)                                                                  \
    IDFORGE_SKIP_OR_FAIL(std::string(name) +                                        \
                         " is not set: start the servers with "                     \
                         "scripts/services.sh start and load .data/services.env");  \
  const std::string var = *var##_opt_
