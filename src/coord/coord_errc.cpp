#include "idforge/coord/coord_errc.hpp"

#include <string>

namespace idforge {
namespace {

class Category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "idforge.coord"; }
  std::string message(int ev) const override {
    switch (static_cast<coord_errc>(ev)) {
      case coord_errc::lease_error:
        return "lease error";
      case coord_errc::store_unreachable:
        return "lease store unreachable";
    }
    return "unknown idforge.coord error " + std::to_string(ev);
  }
};

}  // namespace

const std::error_category& coord_error_category() noexcept {
  static const Category category;
  return category;
}

}  // namespace idforge
