// The v7 -> v4 mode read by two UUID parsers that share no code with idforge: libuuid
// (util-linux, uuid-dev) and Boost.UUID (libboost1.81-dev). Each masked v7 must parse as
// version 4 with the RFC 9562 variant, in text and in bytes, and unmask to the exact v7.
#include <gtest/gtest.h>
#include <uuid/uuid.h>

#include <boost/uuid/string_generator.hpp>
#include <boost/uuid/uuid.hpp>
#include <cstring>
#include <random>

#include "idforge/mask.hpp"
#include "idforge/uuid_generator.hpp"
#include "mask_support.hpp"

namespace idforge {
namespace {

TEST(MaskV4Parsers, LibuuidAndBoostReadVersion4AndTheRfcVariant) {
  const MaskKey key(1, test::kCountingSecret);
  UuidV7Generator gen;
  std::mt19937_64 rng(17);
  const boost::uuids::string_generator boost_parse;
  for (int i = 0; i < 20'000; ++i) {
    const Uuid v7 =
        i % 2 ? gen.next()
              : Uuid::from_u64((rng() & ~0xF000ull) | 0x7000ull, (rng() >> 2) | (2ull << 62));
    const Uuid v4 = key.mask_v7(v7);
    const std::string text = v4.to_string();

    uuid_t lu;
    ASSERT_EQ(uuid_parse(text.c_str(), lu), 0) << text;
    EXPECT_EQ(uuid_type(lu), 4) << text;  // UUID_TYPE_DCE_RANDOM
    EXPECT_EQ(uuid_variant(lu), UUID_VARIANT_DCE) << text;
    EXPECT_EQ(std::memcmp(lu, v4.bytes().data(), 16), 0) << text;

    const boost::uuids::uuid bu = boost_parse(text);
    EXPECT_EQ(bu.version(), boost::uuids::uuid::version_random_number_based) << text;
    EXPECT_EQ(bu.variant(), boost::uuids::uuid::variant_rfc_4122) << text;
    EXPECT_EQ(std::memcmp(bu.data, v4.bytes().data(), 16), 0) << text;

    ASSERT_EQ(key.unmask_v4(v4), v7);
  }
}

}  // namespace
}  // namespace idforge
