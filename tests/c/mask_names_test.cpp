// The one spelling of mask modes and alphabets every face takes (idforge_mask_mode_parse,
// idforge_public_alphabet_parse, idforge_mask_mode_name), and a keyring's description.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "idforge/idforge.h"

namespace {

idforge_status mode(const char* name, int allow_auto, idforge_mask_mode* out) {
  return idforge_mask_mode_parse(name, std::strlen(name), allow_auto, out);
}

TEST(CMaskNames, TheFourModeNamesAndNothingElse) {
  idforge_mask_mode m = IDFORGE_MASK_U63;
  ASSERT_EQ(mode("auto", 1, &m), IDFORGE_OK);
  EXPECT_EQ(m, IDFORGE_MASK_AUTO);
  ASSERT_EQ(mode("u63", 0, &m), IDFORGE_OK);
  EXPECT_EQ(m, IDFORGE_MASK_U63);
  ASSERT_EQ(mode("u128", 0, &m), IDFORGE_OK);
  EXPECT_EQ(m, IDFORGE_MASK_U128);
  ASSERT_EQ(mode("v7", 0, &m), IDFORGE_OK);
  EXPECT_EQ(m, IDFORGE_MASK_V7);
  EXPECT_EQ(mode("auto", 0, &m), IDFORGE_E_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(idforge_last_error()), "mode 'auto' is not one of 'u63', 'u128', 'v7'");
  for (const char* bad : {"", "V7", "v7 ", "uuid", "bigint", "v8"}) {
    EXPECT_EQ(mode(bad, 1, &m), IDFORGE_E_INVALID_ARGUMENT) << bad;
    EXPECT_NE(std::string(idforge_last_error()).find("'auto', 'u63', 'u128', 'v7'"),
              std::string::npos);
  }
  // Bytes that are not text are quoted, never copied raw into the message.
  EXPECT_EQ(idforge_mask_mode_parse("v\xff\n", 3, 1, &m), IDFORGE_E_INVALID_ARGUMENT);
  EXPECT_NE(std::string(idforge_last_error()).find("'v\\xff\\n'"), std::string::npos)
      << idforge_last_error();
  EXPECT_EQ(idforge_mask_mode_parse("u63x", 3, 0, &m), IDFORGE_OK);  // len bytes only
  EXPECT_EQ(m, IDFORGE_MASK_U63);
  EXPECT_EQ(idforge_mask_mode_parse("v7", 2, 0, nullptr), IDFORGE_E_INVALID_ARGUMENT);
}

TEST(CMaskNames, ModeNamesRoundTrip) {
  for (const idforge_mask_mode m :
       {IDFORGE_MASK_AUTO, IDFORGE_MASK_U63, IDFORGE_MASK_U128, IDFORGE_MASK_V7}) {
    idforge_mask_mode back = IDFORGE_MASK_U63;
    const char* name = idforge_mask_mode_name(m);
    ASSERT_EQ(mode(name, 1, &back), IDFORGE_OK) << name;
    EXPECT_EQ(back, m);
  }
  EXPECT_STREQ(idforge_mask_mode_name(static_cast<idforge_mask_mode>(9)), "unknown");
}

TEST(CMaskNames, Alphabets) {
  idforge_public_alphabet a = IDFORGE_BASE58;
  ASSERT_EQ(idforge_public_alphabet_parse("base62", 6, &a), IDFORGE_OK);
  EXPECT_EQ(a, IDFORGE_BASE62);
  ASSERT_EQ(idforge_public_alphabet_parse("base58", 6, &a), IDFORGE_OK);
  EXPECT_EQ(a, IDFORGE_BASE58);
  EXPECT_EQ(idforge_public_alphabet_parse("base64", 6, &a), IDFORGE_E_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(idforge_last_error()),
            "alphabet 'base64' is not one of 'base58', 'base62'");
}

TEST(CMaskNames, AKeyringDescribesItsSourceAndKeysNeverItsSecret) {
  const std::string secret(64, 'a');
  const std::string text = "2:" + secret + "\n1:" + std::string(63, 'b') + "c\n";
  idforge_mask_keyring* ring = nullptr;
  ASSERT_EQ(idforge_mask_keyring_from_text(text.data(), text.size(), &ring), IDFORGE_OK)
      << idforge_last_error();
  std::size_t needed = 0;
  EXPECT_EQ(idforge_mask_keyring_describe(ring, nullptr, 0, &needed), IDFORGE_E_BUFFER_TOO_SMALL);
  std::string out(needed, '\0');
  ASSERT_EQ(idforge_mask_keyring_describe(ring, out.data(), out.size(), nullptr), IDFORGE_OK);
  out.resize(needed - 1);
  EXPECT_EQ(out, "keyring text: keys 2, 1");
  EXPECT_EQ(out.find(secret), std::string::npos);
  idforge_mask_keyring_free(ring);
  EXPECT_EQ(idforge_mask_keyring_describe(nullptr, nullptr, 0, &needed),
            IDFORGE_E_INVALID_ARGUMENT);
}

}  // namespace
