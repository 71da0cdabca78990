#include <gtest/gtest.h>

#include "idforge/uuid.hpp"
#include "idforge/uuid_generator.hpp"
#include "text_paths.hpp"

namespace idforge {
namespace {

IDFORGE_TEXT_PATH_SUITE(UuidText);

constexpr const char* kCanonical = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";

TEST_P(UuidText, AllFormsParseToTheSameValue) {
  const Uuid u = Uuid::parse(kCanonical);
  EXPECT_EQ(Uuid::parse("017F22E2-79B0-7CC3-98C4-DC0C0C07398F"), u);
  EXPECT_EQ(Uuid::parse("017F22e2-79b0-7Cc3-98C4-dc0c0c07398F"), u);
  EXPECT_EQ(Uuid::parse("017f22e279b07cc398c4dc0c0c07398f"), u);
  EXPECT_EQ(Uuid::parse("017F22E279B07CC398C4DC0C0C07398F"), u);
  EXPECT_EQ(Uuid::parse("{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}"), u);
  EXPECT_EQ(Uuid::parse("urn:uuid:017f22e2-79b0-7cc3-98c4-dc0c0c07398f"), u);
  EXPECT_EQ(Uuid::parse("URN:UUID:017F22E2-79B0-7CC3-98C4-DC0C0C07398F"), u);
}

TEST_P(UuidText, FormatsAreLowercase) {
  const Uuid u = Uuid::parse("017F22E2-79B0-7CC3-98C4-DC0C0C07398F");
  EXPECT_EQ(u.to_string(), kCanonical);
  EXPECT_EQ(u.to_hex(), "017f22e279b07cc398c4dc0c0c07398f");
  EXPECT_EQ(u.to_urn(), std::string("urn:uuid:") + kCanonical);
}

TEST_P(UuidText, ToCharsWritesExactly36IntoACallerBuffer) {
  char buf[40];
  std::fill(std::begin(buf), std::end(buf), '#');
  const Uuid u = Uuid::parse(kCanonical);
  char* end = u.to_chars(buf);
  EXPECT_EQ(end, buf + Uuid::kTextSize);
  EXPECT_EQ(std::string(buf, end), kCanonical);
  EXPECT_EQ(buf[36], '#');
  end = u.to_hex_chars(buf);
  EXPECT_EQ(std::string(buf, end), "017f22e279b07cc398c4dc0c0c07398f");
}

TEST_P(UuidText, RoundTripsOfRandomValues) {
  for (int i = 0; i < 10'000; ++i) {
    const Uuid u = Uuid::from_u64(random_u64(), random_u64());
    EXPECT_EQ(Uuid::parse(u.to_string()), u);
    EXPECT_EQ(Uuid::parse(u.to_hex()), u);
    EXPECT_EQ(Uuid::parse(u.to_urn()), u);
    EXPECT_EQ(Uuid::parse("{" + u.to_string() + "}"), u);
  }
}

TEST_P(UuidText, TryParseAndTheStatusApiDoNotThrow) {
  EXPECT_TRUE(Uuid::try_parse(kCanonical).has_value());
  EXPECT_FALSE(Uuid::try_parse("nope").has_value());
  Uuid out = Uuid::max();
  const ParseStatus st = parse_uuid("017f22e2-79b0-7cc3-98c4-dc0c0c07398g", out);
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.position, 35u);
  EXPECT_EQ(out, Uuid::max());  // untouched on failure
}

}  // namespace
}  // namespace idforge
