#include "idforge/lab/key128.hpp"

namespace idforge::lab {

std::array<unsigned char, 16> to_bytes(const Key128& k) noexcept {
  std::array<unsigned char, 16> b{};
  for (int i = 0; i < 8; ++i) {
    b[i] = static_cast<unsigned char>(k.hi >> (56 - 8 * i));
    b[8 + i] = static_cast<unsigned char>(k.lo >> (56 - 8 * i));
  }
  return b;
}

std::string to_hex(const Key128& k) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s(32, '0');
  const auto b = to_bytes(k);
  for (int i = 0; i < 16; ++i) {
    s[2 * i] = digits[b[i] >> 4];
    s[2 * i + 1] = digits[b[i] & 15];
  }
  return s;
}

std::string to_uuid_text(const Key128& k) {
  const std::string h = to_hex(k);
  return h.substr(0, 8) + '-' + h.substr(8, 4) + '-' + h.substr(12, 4) + '-' + h.substr(16, 4) +
         '-' + h.substr(20, 12);
}

}  // namespace idforge::lab
