// The checks every wing's error category must pass (coord_errc, ticket_errc, lab_errc), so
// each wing's test lists its codes and numbers and nothing else:
//
//   TEST(CoordErrc, HasItsOwnCategoryAndTheSharedNumbers) {
//     test::expect_wing_category(coord_error_category(), "idforge.coord",
//                                {{coord_errc::lease_error, 11}, {coord_errc::store_unreachable,
//                                12}});
//   }
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <system_error>
#include <utility>

#include "expect_errc.hpp"
#include "idforge/error.hpp"

namespace idforge::test {

/// category is named name and is not core's; each code is in it with its number (the space all
/// idforge categories share) and a message of its own; a core code with the same number is
/// another error; a value outside the table reads "unknown ... <value>".
template <class E>
void expect_wing_category(const std::error_category& category, const char* name,
                          std::initializer_list<std::pair<E, int>> codes) {
  EXPECT_STREQ(category.name(), name);
  EXPECT_NE(&category, &error_category());
  for (const auto& [e, number] : codes) {
    SCOPED_TRACE("code " + std::to_string(number));
    const std::error_code code = e;
    EXPECT_EQ(&code.category(), &category);
    EXPECT_EQ(code.value(), number);
    EXPECT_FALSE(code.message().empty());
    EXPECT_EQ(code.message().find("unknown"), std::string::npos) << code.message();
    EXPECT_NE(code, std::error_code(number, error_category()));
  }
  const std::string unknown = std::error_code(999, category).message();
  EXPECT_NE(unknown.find("999"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find(name), std::string::npos) << unknown;
}

/// A wing's code thrown as idforge::Error arrives as that code, and equals no core code.
template <class E>
void expect_travels_through_error(E e) {
  EXPECT_ERRC(throw Error(e, "boom"), e, "boom");
  try {
    throw Error(e, "boom");
  } catch (const Error& err) {
    EXPECT_TRUE(err.code() == e);
    EXPECT_FALSE(err.code() == errc::invalid_argument);
  }
}

}  // namespace idforge::test
