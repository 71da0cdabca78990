#include "idforge/ticket/ticket_errc.hpp"

#include "idforge/detail/wing_category.hpp"

namespace idforge {

const std::error_category& ticket_error_category() noexcept {
  static const detail::WingCategory<ticket_errc, 3> category(
      "idforge.ticket", {{{ticket_errc::store_unreachable, "ticket store unreachable"},
                          {ticket_errc::not_found, "not found"},
                          {ticket_errc::already_exists, "already exists"}}});
  return category;
}

}  // namespace idforge
