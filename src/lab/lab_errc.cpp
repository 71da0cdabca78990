#include "idforge/lab/lab_errc.hpp"

#include <string>

namespace idforge {
namespace {

class Category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "idforge.lab"; }
  std::string message(int ev) const override {
    switch (static_cast<lab_errc>(ev)) {
      case lab_errc::store_unreachable:
        return "lab store unreachable";
      case lab_errc::already_exists:
        return "already exists";
    }
    return "unknown idforge.lab error " + std::to_string(ev);
  }
};

}  // namespace

const std::error_category& lab_error_category() noexcept {
  static const Category category;
  return category;
}

}  // namespace idforge
