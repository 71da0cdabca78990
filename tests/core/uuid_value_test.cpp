#include <gtest/gtest.h>

#include <set>
#include <unordered_set>

#include "idforge/uuid.hpp"

namespace idforge {
namespace {

TEST(UuidValue, NilAndMax) {
  EXPECT_TRUE(Uuid::nil().is_nil());
  EXPECT_TRUE(Uuid().is_nil());
  EXPECT_TRUE(Uuid::max().is_max());
  EXPECT_EQ(Uuid::nil().to_string(), "00000000-0000-0000-0000-000000000000");
  EXPECT_EQ(Uuid::max().to_string(), "ffffffff-ffff-ffff-ffff-ffffffffffff");
  EXPECT_EQ(Uuid::nil().version(), 0);
  EXPECT_EQ(Uuid::max().version(), 15);
  EXPECT_EQ(Uuid::nil().variant(), UuidVariant::ncs);
  EXPECT_EQ(Uuid::max().variant(), UuidVariant::future);
  EXPECT_LT(Uuid::nil(), Uuid::max());
}

TEST(UuidValue, HalvesAreBigEndian) {
  const Uuid u = Uuid::from_u64(0x0011223344556677ull, 0x8899aabbccddeeffull);
  EXPECT_EQ(u.bytes()[0], 0x00);
  EXPECT_EQ(u.bytes()[7], 0x77);
  EXPECT_EQ(u.bytes()[8], 0x88);
  EXPECT_EQ(u.bytes()[15], 0xff);
  EXPECT_EQ(u.high(), 0x0011223344556677ull);
  EXPECT_EQ(u.low(), 0x8899aabbccddeeffull);
  EXPECT_EQ(Uuid(u.bytes()), u);
}

TEST(UuidValue, VariantFromTheTopBitsOfByte8) {
  EXPECT_EQ(Uuid::from_u64(0, 0x7FFFull << 48).variant(), UuidVariant::ncs);
  EXPECT_EQ(Uuid::from_u64(0, 0x8000ull << 48).variant(), UuidVariant::rfc9562);
  EXPECT_EQ(Uuid::from_u64(0, 0xBFFFull << 48).variant(), UuidVariant::rfc9562);
  EXPECT_EQ(Uuid::from_u64(0, 0xC000ull << 48).variant(), UuidVariant::microsoft);
  EXPECT_EQ(Uuid::from_u64(0, 0xE000ull << 48).variant(), UuidVariant::future);
  EXPECT_STREQ(to_string(UuidVariant::rfc9562), "RFC 9562");
}

TEST(UuidValue, OrderingIsByteOrder) {
  // Byte 0 dominates, then on to byte 15: the order of the canonical text.
  const Uuid a = Uuid::parse("00000000-0000-0000-0000-0000000000ff");
  const Uuid b = Uuid::parse("00000000-0000-0000-0000-000000000100");
  const Uuid c = Uuid::parse("01000000-0000-0000-0000-000000000000");
  const Uuid d = Uuid::parse("ff000000-0000-0000-0000-000000000000");
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_LT(c, d);
  EXPECT_LT(a.to_string(), b.to_string());
  EXPECT_EQ(std::set<Uuid>({d, c, b, a}).begin()->to_string(), a.to_string());
}

TEST(UuidValue, HashesDistinguishValues) {
  std::unordered_set<Uuid> s{Uuid::nil(), Uuid::max(), Uuid::from_u64(1, 0), Uuid::from_u64(0, 1)};
  EXPECT_EQ(s.size(), 4u);
  EXPECT_TRUE(s.contains(Uuid::from_u64(0, 1)));
}

}  // namespace
}  // namespace idforge
