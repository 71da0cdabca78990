// lab_errc: the lab wing's own error category, thrown through idforge::Error, numbered from the
// space all idforge categories share (the C ABI passes the value on as its status).
#include "idforge/lab/lab_errc.hpp"

#include <gtest/gtest.h>

#include <string>

#include "expect_errc.hpp"
#include "idforge/error.hpp"

namespace idforge {
namespace {

TEST(LabErrc, HasItsOwnCategoryAndTheSharedNumbers) {
  EXPECT_STREQ(lab_error_category().name(), "idforge.lab");
  EXPECT_NE(&lab_error_category(), &error_category());
  {
    const std::error_code code = lab_errc::store_unreachable;
    EXPECT_EQ(&code.category(), &lab_error_category());
    EXPECT_EQ(code.value(), 12);
    EXPECT_FALSE(code.message().empty());
    EXPECT_EQ(code.message().find("unknown"), std::string::npos) << code.message();
    // A core code with the same number is another error: categories keep them apart.
    EXPECT_NE(code, std::error_code(12, error_category()));
  }
  {
    const std::error_code code = lab_errc::already_exists;
    EXPECT_EQ(&code.category(), &lab_error_category());
    EXPECT_EQ(code.value(), 15);
    EXPECT_FALSE(code.message().empty());
    EXPECT_EQ(code.message().find("unknown"), std::string::npos) << code.message();
    // A core code with the same number is another error: categories keep them apart.
    EXPECT_NE(code, std::error_code(15, error_category()));
  }
  EXPECT_NE(std::error_code(999, lab_error_category()).message().find("999"), std::string::npos);
}

TEST(LabErrc, TravelsThroughErrorAndComparesWithEquals) {
  EXPECT_ERRC(throw Error(lab_errc::store_unreachable, "boom"), lab_errc::store_unreachable,
              "boom");
  try {
    throw Error(lab_errc::store_unreachable, "boom");
  } catch (const Error& e) {
    EXPECT_TRUE(e.code() == lab_errc::store_unreachable);
    EXPECT_FALSE(e.code() == errc::invalid_argument);
  }
}

}  // namespace
}  // namespace idforge
