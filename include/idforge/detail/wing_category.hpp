// The std::error_category of one wing's error codes (coord_errc, ticket_errc, lab_errc): a
// name and a message per code, so each wing states its table and nothing else. Core's own
// category (error.cpp) keeps its switch: it is the one the compiler checks for a missing case.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <system_error>

namespace idforge::detail {

/// One code of a wing and its message.
template <class E>
struct WingCode {
  E code;
  const char* message;
};

/// A category named name ("idforge.<wing>") whose codes are those of codes; any other value
/// reads "unknown <name> error <value>".
template <class E, std::size_t N>
class WingCategory final : public std::error_category {
 public:
  constexpr WingCategory(const char* name, std::array<WingCode<E>, N> codes) noexcept
      : name_(name), codes_(codes) {}
  const char* name() const noexcept override { return name_; }
  std::string message(int ev) const override {
    for (const WingCode<E>& c : codes_)
      if (static_cast<int>(c.code) == ev) return c.message;
    return "unknown " + std::string(name_) + " error " + std::to_string(ev);
  }

 private:
  const char* name_;
  std::array<WingCode<E>, N> codes_;
};

}  // namespace idforge::detail
