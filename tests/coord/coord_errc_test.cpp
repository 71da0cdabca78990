// coord_errc: the coord wing's own error category, thrown through idforge::Error, numbered from the
// space all idforge categories share (the C ABI passes the value on as its status).
#include "idforge/coord/coord_errc.hpp"

#include <gtest/gtest.h>

#include "wing_errc_checks.hpp"

namespace idforge {
namespace {

TEST(CoordErrc, HasItsOwnCategoryAndTheSharedNumbers) {
  test::expect_wing_category<coord_errc>(
      coord_error_category(), "idforge.coord",
      {{coord_errc::lease_error, 11}, {coord_errc::store_unreachable, 12}});
}

TEST(CoordErrc, TravelsThroughErrorAndComparesWithEquals) {
  test::expect_travels_through_error(coord_errc::lease_error);
}

}  // namespace
}  // namespace idforge
