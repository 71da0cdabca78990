// Uuid::to_chars and to_hex_chars agree with a plain printf formatter on every text path,
// for every byte value in every position and for random UUIDs.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "idforge/uuid.hpp"
#include "idforge/uuid_generator.hpp"
#include "text_paths.hpp"

namespace idforge {
namespace {

IDFORGE_TEXT_PATH_SUITE(UuidToChars);

std::string reference_hex(const Uuid& u) {
  std::string s;
  char buf[3];
  for (auto b : u.bytes()) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    s += buf;
  }
  return s;
}

std::string reference_canonical(const Uuid& u) {
  const std::string h = reference_hex(u);
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) +
         "-" + h.substr(20);
}

void expect_matches(const Uuid& u) {
  char text[Uuid::kTextSize + 1] = {};
  text[Uuid::kTextSize] = '#';  // the writer must stop at 36
  EXPECT_EQ(u.to_chars(text), text + Uuid::kTextSize);
  EXPECT_EQ(std::string(text, Uuid::kTextSize), reference_canonical(u));
  EXPECT_EQ(text[Uuid::kTextSize], '#');
  char hex[Uuid::kHexSize];
  EXPECT_EQ(u.to_hex_chars(hex), hex + Uuid::kHexSize);
  EXPECT_EQ(std::string(hex, Uuid::kHexSize), reference_hex(u));
}

TEST_P(UuidToChars, EveryByteValueInEveryPosition) {
  for (int pos = 0; pos < 16; ++pos) {
    for (int v = 0; v < 256; ++v) {
      Uuid::Bytes b{};
      for (int i = 0; i < 16; ++i) b[i] = static_cast<std::uint8_t>(i * 17 + 3);
      b[pos] = static_cast<std::uint8_t>(v);
      expect_matches(Uuid(b));
    }
  }
}

TEST_P(UuidToChars, RandomUuidsAndEdges) {
  expect_matches(Uuid::nil());
  expect_matches(Uuid::max());
  for (int i = 0; i < 20000; ++i) expect_matches(new_uuid_v4());
}

}  // namespace
}  // namespace idforge
