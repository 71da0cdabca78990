#include "idforge/coord/coord_errc.hpp"

#include "idforge/detail/wing_category.hpp"

namespace idforge {

const std::error_category& coord_error_category() noexcept {
  static const detail::WingCategory<coord_errc, 2> category(
      "idforge.coord", {{{coord_errc::lease_error, "lease error"},
                         {coord_errc::store_unreachable, "lease store unreachable"}}});
  return category;
}

}  // namespace idforge
