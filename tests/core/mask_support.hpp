// Fixed keys for the masking tests (never use these anywhere else: they are public).
#pragma once

#include <string>

#include "idforge/mask.hpp"

namespace idforge::test {

/// Secret 00 01 02 ... 1f: the key of the committed known-answer vectors.
inline constexpr unsigned char kCountingSecret[MaskKey::kSecretBytes] = {
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
    0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f};
/// Secret ff fe fd ... e0: a second, unrelated key.
inline constexpr unsigned char kDescendingSecret[MaskKey::kSecretBytes] = {
    0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa, 0xf9, 0xf8, 0xf7, 0xf6, 0xf5, 0xf4, 0xf3, 0xf2, 0xf1, 0xf0,
    0xef, 0xee, 0xed, 0xec, 0xeb, 0xea, 0xe9, 0xe8, 0xe7, 0xe6, 0xe5, 0xe4, 0xe3, 0xe2, 0xe1, 0xe0};
/// The keyring line of kCountingSecret under key ID id.
inline std::string counting_line(unsigned id) {
  return std::to_string(id) + ":000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
}
/// The keyring line of kDescendingSecret under key ID id.
inline std::string descending_line(unsigned id) {
  return std::to_string(id) + ":fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0efeeedecebeae9e8e7e6e5e4e3e2e1e0";
}

}  // namespace idforge::test
