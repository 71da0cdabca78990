// lab_errc: the lab wing's own error category, thrown through idforge::Error, numbered from the
// space all idforge categories share (the C ABI passes the value on as its status).
#include "idforge/lab/lab_errc.hpp"

#include <gtest/gtest.h>

#include "wing_errc_checks.hpp"

namespace idforge {
namespace {

TEST(LabErrc, HasItsOwnCategoryAndTheSharedNumbers) {
  test::expect_wing_category<lab_errc>(
      lab_error_category(), "idforge.lab",
      {{lab_errc::store_unreachable, 12}, {lab_errc::already_exists, 15}});
}

TEST(LabErrc, TravelsThroughErrorAndComparesWithEquals) {
  test::expect_travels_through_error(lab_errc::store_unreachable);
}

}  // namespace
}  // namespace idforge
