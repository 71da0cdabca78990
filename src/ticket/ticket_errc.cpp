#include "idforge/ticket/ticket_errc.hpp"

#include <string>

namespace idforge {
namespace {

class Category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "idforge.ticket"; }
  std::string message(int ev) const override {
    switch (static_cast<ticket_errc>(ev)) {
      case ticket_errc::store_unreachable:
        return "ticket store unreachable";
      case ticket_errc::not_found:
        return "not found";
      case ticket_errc::already_exists:
        return "already exists";
    }
    return "unknown idforge.ticket error " + std::to_string(ev);
  }
};

}  // namespace

const std::error_category& ticket_error_category() noexcept {
  static const Category category;
  return category;
}

}  // namespace idforge
