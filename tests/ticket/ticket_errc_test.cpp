// ticket_errc: the ticket wing's own error category, thrown through idforge::Error, numbered from
// the space all idforge categories share (the C ABI passes the value on as its status).
#include "idforge/ticket/ticket_errc.hpp"

#include <gtest/gtest.h>

#include <string>

#include "expect_errc.hpp"
#include "idforge/error.hpp"

namespace idforge {
namespace {

TEST(TicketErrc, HasItsOwnCategoryAndTheSharedNumbers) {
  EXPECT_STREQ(ticket_error_category().name(), "idforge.ticket");
  EXPECT_NE(&ticket_error_category(), &error_category());
  {
    const std::error_code code = ticket_errc::store_unreachable;
    EXPECT_EQ(&code.category(), &ticket_error_category());
    EXPECT_EQ(code.value(), 12);
    EXPECT_FALSE(code.message().empty());
    EXPECT_EQ(code.message().find("unknown"), std::string::npos) << code.message();
    // A core code with the same number is another error: categories keep them apart.
    EXPECT_NE(code, std::error_code(12, error_category()));
  }
  {
    const std::error_code code = ticket_errc::not_found;
    EXPECT_EQ(&code.category(), &ticket_error_category());
    EXPECT_EQ(code.value(), 14);
    EXPECT_FALSE(code.message().empty());
    EXPECT_EQ(code.message().find("unknown"), std::string::npos) << code.message();
    // A core code with the same number is another error: categories keep them apart.
    EXPECT_NE(code, std::error_code(14, error_category()));
  }
  {
    const std::error_code code = ticket_errc::already_exists;
    EXPECT_EQ(&code.category(), &ticket_error_category());
    EXPECT_EQ(code.value(), 15);
    EXPECT_FALSE(code.message().empty());
    EXPECT_EQ(code.message().find("unknown"), std::string::npos) << code.message();
    // A core code with the same number is another error: categories keep them apart.
    EXPECT_NE(code, std::error_code(15, error_category()));
  }
  EXPECT_NE(std::error_code(999, ticket_error_category()).message().find("999"), std::string::npos);
}

TEST(TicketErrc, TravelsThroughErrorAndComparesWithEquals) {
  EXPECT_ERRC(throw Error(ticket_errc::store_unreachable, "boom"), ticket_errc::store_unreachable,
              "boom");
  try {
    throw Error(ticket_errc::store_unreachable, "boom");
  } catch (const Error& e) {
    EXPECT_TRUE(e.code() == ticket_errc::store_unreachable);
    EXPECT_FALSE(e.code() == errc::invalid_argument);
  }
}

}  // namespace
}  // namespace idforge
