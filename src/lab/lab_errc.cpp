#include "idforge/lab/lab_errc.hpp"

#include "idforge/detail/wing_category.hpp"

namespace idforge {

const std::error_category& lab_error_category() noexcept {
  static const detail::WingCategory<lab_errc, 2> category(
      "idforge.lab", {{{lab_errc::store_unreachable, "lab store unreachable"},
                       {lab_errc::already_exists, "already exists"}}});
  return category;
}

}  // namespace idforge
