// The masking part of the PostgreSQL extension's shim, without PostgreSQL: the backend's
// keyring (loaded once per setting generation), the functions' results against core's, and
// the status classes the glue turns into SQLSTATEs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "idforge/mask_keyring.hpp"
#include "idforge/public_id.hpp"
#include "idforge/uuid.hpp"
#include "idforge_pg_mask_shim.h"
#include "idforge_pg_shim.h"

namespace {

const std::string kSecretA = "6f1c2a9e4b7d3f8a0c5e1b9d7a3f6c2e8b4d0a7f3c9e5b1d8a6f2c4e0b7d9a31";
const std::string kSecretB = "93ab5c7e1f0d2b4a6c8e9f1a3b5d7c9e0f2a4b6c8d0e1f3a5b7c9d1e2f4a6b82";

class PgMaskShim : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("idforge_pg_mask_" + std::to_string(::getpid()) + ".keys"))
                .string();
    write("2:" + kSecretB + "\n1:" + kSecretA + "\n");
    ::unsetenv("IDFORGE_MASK_KEY_FILE");
    ::unsetenv("IDFORGE_MASK_KEYS");
    ASSERT_EQ(idf_mask_load(path_.c_str(), ++generation_, err_), IDF_MASK_OK) << err_;
  }
  void TearDown() override { std::filesystem::remove(path_); }
  void write(const std::string& text) { std::ofstream(path_, std::ios::trunc) << text; }
  idforge::MaskKeyring ring() const { return idforge::MaskKeyring::load_file(path_); }

  std::string path_;
  static inline std::uint64_t generation_ = 1000;
  char err_[IDF_ERR_SIZE] = "";
};

TEST_F(PgMaskShim, BigintsGiveCoresPublicIdsAndRawValues) {
  char out[IDF_PUBLIC_ID_SIZE];
  ASSERT_EQ(idf_mask_bigint_public(4001, "base58", IDF_MASK_PRIMARY, out, err_), IDF_MASK_OK);
  EXPECT_EQ(std::string(out),
            idforge::to_public_id(ring().primary(), idforge::MaskMode::u63, {0, 4001}));
  ASSERT_EQ(idf_mask_bigint_public(4001, "base62", 1, out, err_), IDF_MASK_OK);
  EXPECT_EQ(std::string(out), idforge::to_public_id(ring().at(1), idforge::MaskMode::u63, {0, 4001},
                                                    idforge::PublicAlphabet::base62));
  std::int64_t raw = 0, back = 0;
  ASSERT_EQ(idf_mask_bigint_raw(4001, IDF_MASK_PRIMARY, 0, &raw, err_), IDF_MASK_OK);
  EXPECT_EQ(static_cast<std::uint64_t>(raw), ring().primary().mask_u63(4001));
  ASSERT_EQ(idf_mask_bigint_raw(raw, IDF_MASK_PRIMARY, 1, &back, err_), IDF_MASK_OK);
  EXPECT_EQ(back, 4001);
  std::int64_t unmasked = 0;
  ASSERT_EQ(idf_mask_bigint_public(4001, "base58", 1, out, err_), IDF_MASK_OK);
  ASSERT_EQ(idf_unmask_public(out, std::strlen(out), "base58", 0, &unmasked, nullptr, err_),
            IDF_MASK_OK)
      << err_;
  EXPECT_EQ(unmasked, 4001);
}

TEST_F(PgMaskShim, UuidsRoundTripInEveryMode) {
  const auto v7 = idforge::Uuid::parse("017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
  unsigned char masked[16], back[16];
  for (const char* mode : {"auto", "v7", "u128"}) {
    ASSERT_EQ(idf_mask_uuid_raw(v7.bytes().data(), mode, IDF_MASK_PRIMARY, 0, masked, err_),
              IDF_MASK_OK)
        << mode << ": " << err_;
    const char* back_mode = std::strcmp(mode, "u128") == 0 ? "u128" : "auto";
    ASSERT_EQ(idf_mask_uuid_raw(masked, back_mode, IDF_MASK_PRIMARY, 1, back, err_), IDF_MASK_OK);
    EXPECT_EQ(std::memcmp(back, v7.bytes().data(), 16), 0) << mode;
    char pub[IDF_PUBLIC_ID_SIZE];
    ASSERT_EQ(idf_mask_uuid_public(v7.bytes().data(), mode, "base58", 2, pub, err_), IDF_MASK_OK);
    EXPECT_EQ(std::strlen(pub), std::strcmp(mode, "u128") == 0 ? 27u : 26u);
    ASSERT_EQ(idf_unmask_public(pub, std::strlen(pub), "base58", 1, nullptr, back, err_),
              IDF_MASK_OK);
    EXPECT_EQ(std::memcmp(back, v7.bytes().data(), 16), 0) << mode;
  }
  EXPECT_EQ(std::memcmp(masked, ring().primary().mask_u128(v7).bytes().data(), 16), 0);
}

TEST_F(PgMaskShim, FailuresCarryTheirClassAndNameTheValue) {
  char out[IDF_PUBLIC_ID_SIZE];
  std::int64_t v = 0;
  EXPECT_EQ(idf_mask_bigint_public(0, "base58", IDF_MASK_PRIMARY, out, err_), IDF_MASK_BAD_VALUE);
  EXPECT_STREQ(err_, "cannot mask 0: value outside 1..2^63-1");
  EXPECT_EQ(idf_mask_bigint_raw(-7, IDF_MASK_PRIMARY, 1, &v, err_), IDF_MASK_BAD_VALUE);
  EXPECT_NE(std::string(err_).find("-7"), std::string::npos);
  EXPECT_EQ(idf_mask_bigint_public(1, "base64", IDF_MASK_PRIMARY, out, err_), IDF_MASK_BAD_VALUE);
  EXPECT_EQ(idf_mask_bigint_raw(1, 9, 0, &v, err_), IDF_MASK_KEY_ERROR);
  EXPECT_NE(std::string(err_).find("mask key 9"), std::string::npos) << err_;
  EXPECT_EQ(idf_mask_bigint_raw(1, 58, 0, &v, err_), IDF_MASK_BAD_VALUE);
  EXPECT_EQ(idf_unmask_public("abc", 3, "base58", 0, &v, nullptr, err_), IDF_MASK_BAD_TEXT);
  ASSERT_EQ(idf_mask_bigint_public(4001, "base58", IDF_MASK_PRIMARY, out, err_), IDF_MASK_OK);
  std::string typo(out);
  typo.back() = typo.back() == 'a' ? 'b' : 'a';
  EXPECT_EQ(idf_unmask_public(typo.data(), typo.size(), "base58", 0, &v, nullptr, err_),
            IDF_MASK_BAD_TEXT);
  EXPECT_NE(std::string(err_).find("mistyped"), std::string::npos) << err_;
  unsigned char u[16];
  EXPECT_EQ(idf_unmask_public(out, std::strlen(out), "base58", 1, nullptr, u, err_),
            IDF_MASK_WRONG_KIND);
  // Another secret under key 2: not ours, and the secret never in the message.
  write("2:" + kSecretA + "\n");
  ASSERT_EQ(idf_mask_load(path_.c_str(), ++generation_, err_), IDF_MASK_OK);
  EXPECT_EQ(idf_unmask_public(out, std::strlen(out), "base58", 0, &v, nullptr, err_),
            IDF_MASK_NOT_OURS);
  EXPECT_EQ(std::string(err_).find(kSecretA), std::string::npos);
}

TEST_F(PgMaskShim, TheKeyringIsReadAgainOnlyWhenTheGenerationMoves) {
  char before[IDF_PUBLIC_ID_SIZE], after[IDF_PUBLIC_ID_SIZE];
  ASSERT_EQ(idf_mask_bigint_public(4001, "base58", IDF_MASK_PRIMARY, before, err_), IDF_MASK_OK);
  write("1:" + kSecretA + "\n");
  ASSERT_EQ(idf_mask_load(path_.c_str(), generation_, err_), IDF_MASK_OK);  // cached
  ASSERT_EQ(idf_mask_bigint_public(4001, "base58", IDF_MASK_PRIMARY, after, err_), IDF_MASK_OK);
  EXPECT_STREQ(before, after);
  ASSERT_EQ(idf_mask_load(path_.c_str(), ++generation_, err_), IDF_MASK_OK);  // a reload
  ASSERT_EQ(idf_mask_bigint_public(4001, "base58", IDF_MASK_PRIMARY, after, err_), IDF_MASK_OK);
  EXPECT_STRNE(before, after);
  char text[IDF_ERR_SIZE];
  ASSERT_EQ(idf_mask_describe(text, sizeof text, err_), IDF_MASK_OK);
  EXPECT_EQ(std::string(text), "file '" + path_ + "': keys 1");
  // A failed load keeps nothing: the next call says so rather than masking with old keys.
  std::filesystem::remove(path_);
  EXPECT_EQ(idf_mask_load(path_.c_str(), ++generation_, err_), IDF_MASK_KEY_ERROR);
  EXPECT_NE(std::string(err_).find("cannot be read"), std::string::npos) << err_;
  EXPECT_EQ(idf_mask_bigint_public(4001, "base58", IDF_MASK_PRIMARY, after, err_), IDF_MASK_NO_KEY);
  // Empty setting: the environment, or a message naming both variables.
  EXPECT_EQ(idf_mask_load("", ++generation_, err_), IDF_MASK_NO_KEY);
  EXPECT_NE(std::string(err_).find("IDFORGE_MASK_KEY_FILE nor IDFORGE_MASK_KEYS"),
            std::string::npos);
  ::setenv("IDFORGE_MASK_KEYS", ("5:" + kSecretB).c_str(), 1);
  EXPECT_EQ(idf_mask_load("", ++generation_, err_), IDF_MASK_OK) << err_;
  ASSERT_EQ(idf_mask_describe(text, sizeof text, err_), IDF_MASK_OK);
  EXPECT_STREQ(text, "IDFORGE_MASK_KEYS: keys 5");
  ::unsetenv("IDFORGE_MASK_KEYS");
}

}  // namespace
