// coord_errc: the coord wing's own error category, thrown through idforge::Error, numbered from the
// space all idforge categories share (the C ABI passes the value on as its status).
#include "idforge/coord/coord_errc.hpp"

#include <gtest/gtest.h>

#include <string>

#include "expect_errc.hpp"
#include "idforge/error.hpp"

namespace idforge {
namespace {

TEST(CoordErrc, HasItsOwnCategoryAndTheSharedNumbers) {
  EXPECT_STREQ(coord_error_category().name(), "idforge.coord");
  EXPECT_NE(&coord_error_category(), &error_category());
  {
    const std::error_code code = coord_errc::lease_error;
    EXPECT_EQ(&code.category(), &coord_error_category());
    EXPECT_EQ(code.value(), 11);
    EXPECT_FALSE(code.message().empty());
    EXPECT_EQ(code.message().find("unknown"), std::string::npos) << code.message();
    // A core code with the same number is another error: categories keep them apart.
    EXPECT_NE(code, std::error_code(11, error_category()));
  }
  {
    const std::error_code code = coord_errc::store_unreachable;
    EXPECT_EQ(&code.category(), &coord_error_category());
    EXPECT_EQ(code.value(), 12);
    EXPECT_FALSE(code.message().empty());
    EXPECT_EQ(code.message().find("unknown"), std::string::npos) << code.message();
    // A core code with the same number is another error: categories keep them apart.
    EXPECT_NE(code, std::error_code(12, error_category()));
  }
  EXPECT_NE(std::error_code(999, coord_error_category()).message().find("999"), std::string::npos);
}

TEST(CoordErrc, TravelsThroughErrorAndComparesWithEquals) {
  EXPECT_ERRC(throw Error(coord_errc::lease_error, "boom"), coord_errc::lease_error, "boom");
  try {
    throw Error(coord_errc::lease_error, "boom");
  } catch (const Error& e) {
    EXPECT_TRUE(e.code() == coord_errc::lease_error);
    EXPECT_FALSE(e.code() == errc::invalid_argument);
  }
}

}  // namespace
}  // namespace idforge
