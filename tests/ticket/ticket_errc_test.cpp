// ticket_errc: the ticket wing's own error category, thrown through idforge::Error, numbered from
// the space all idforge categories share (the C ABI passes the value on as its status).
#include "idforge/ticket/ticket_errc.hpp"

#include <gtest/gtest.h>

#include "wing_errc_checks.hpp"

namespace idforge {
namespace {

TEST(TicketErrc, HasItsOwnCategoryAndTheSharedNumbers) {
  test::expect_wing_category<ticket_errc>(ticket_error_category(), "idforge.ticket",
                                          {{ticket_errc::store_unreachable, 12},
                                           {ticket_errc::not_found, 14},
                                           {ticket_errc::already_exists, 15}});
}

TEST(TicketErrc, TravelsThroughErrorAndComparesWithEquals) {
  test::expect_travels_through_error(ticket_errc::store_unreachable);
}

}  // namespace
}  // namespace idforge
