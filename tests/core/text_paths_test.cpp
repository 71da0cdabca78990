// The text code paths (scalar, SSSE3, AVX2): choosing and forcing one, and every vector path
// agreeing with the portable one byte for byte: same text, same value, same error position
// and rule, for every byte value in every position of every text form.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "idforge/random.hpp"
#include "idforge/ulid.hpp"
#include "idforge/uuid.hpp"
#include "text_paths.hpp"

namespace idforge {
namespace {

using detail::TextPath;

TEST(TextPathChoice, ScalarIsAlwaysAvailableAndNamed) {
  EXPECT_TRUE(detail::text_path_available(TextPath::scalar));
  EXPECT_STREQ(detail::to_string(TextPath::scalar), "scalar");
  EXPECT_STREQ(detail::to_string(TextPath::ssse3), "ssse3");
  EXPECT_STREQ(detail::to_string(TextPath::avx2), "avx2");
}

TEST(TextPathChoice, TheBestAvailablePathIsTheDefault) {
  TextPath best = TextPath::scalar;
  for (TextPath p : detail::kTextPaths)
    if (detail::text_path_available(p)) best = p;
  EXPECT_EQ(detail::text_path(), best);
  ASSERT_TRUE(detail::use_text_path(TextPath::scalar));
  EXPECT_EQ(detail::text_path(), TextPath::scalar);
  detail::use_best_text_path();
  EXPECT_EQ(detail::text_path(), best);
}

TEST(TextPathChoice, AnUnavailablePathIsRefusedAndNothingChanges) {
  ASSERT_TRUE(detail::use_text_path(TextPath::scalar));
  for (TextPath p : detail::kTextPaths) {
    if (detail::text_path_available(p)) continue;
    EXPECT_FALSE(detail::use_text_path(p)) << detail::to_string(p);
    EXPECT_EQ(detail::text_path(), TextPath::scalar);
  }
  detail::use_best_text_path();
}

#if defined(IDFORGE_TEXT_SCALAR_ONLY) || !defined(__x86_64__)
TEST(TextPathChoice, APortableBuildHasTheScalarPathAlone) {
  EXPECT_FALSE(detail::text_path_available(TextPath::ssse3));
  EXPECT_FALSE(detail::text_path_available(TextPath::avx2));
  EXPECT_EQ(detail::text_path(), TextPath::scalar);
}
#endif

// ---------------------------------------------------------------------------------------
// Every path against the scalar one

IDFORGE_TEXT_PATH_SUITE(TextPathsAgree);

struct Outcome {
  bool ok;
  std::size_t position;
  std::string reason;
  std::string value;  // the parsed value's hex, or empty
  bool operator==(const Outcome&) const = default;
};

Outcome parse_uuid_outcome(const std::string& text) {
  Uuid u = Uuid::max();
  const ParseStatus st = parse_uuid(text, u);
  if (!st.ok()) {
    EXPECT_EQ(u, Uuid::max()) << "failed parse wrote its output: " << text;
    return {false, st.position, st.reason, {}};
  }
  return {true, 0, {}, u.to_hex()};
}

Outcome parse_ulid_outcome(const std::string& text) {
  Ulid u = Ulid::from_u64(1, 2);
  const ParseStatus st = parse_ulid(text, u);
  if (!st.ok()) {
    EXPECT_EQ(u, Ulid::from_u64(1, 2)) << "failed parse wrote its output: " << text;
    return {false, st.position, st.reason, {}};
  }
  return {true, 0, {}, u.to_uuid().to_hex()};
}

// The outcome on the scalar path, then back on the path under test.
template <typename F>
Outcome on_scalar(TextPath back, F f) {
  detail::use_text_path(TextPath::scalar);
  Outcome o = f();
  detail::use_text_path(back);
  return o;
}

// Every byte value in every position of base: the path under test and the scalar path agree.
template <typename Parse>
void expect_every_byte_everywhere_agrees(TextPath path, const std::string& base, Parse parse) {
  for (std::size_t pos = 0; pos < base.size(); ++pos) {
    for (int b = 0; b < 256; ++b) {
      std::string t = base;
      t[pos] = static_cast<char>(b);
      const Outcome want = on_scalar(path, [&] { return parse(t); });
      ASSERT_EQ(parse(t), want) << "position " << pos << ", byte " << b;
    }
  }
}

TEST_P(TextPathsAgree, UuidCanonicalEveryByteEverywhere) {
  expect_every_byte_everywhere_agrees(GetParam(), "017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
                                      parse_uuid_outcome);
  expect_every_byte_everywhere_agrees(GetParam(), "FFFFFFFF-AAAA-BBBB-CCCC-DDDDEEEE9999",
                                      parse_uuid_outcome);
}

TEST_P(TextPathsAgree, UuidHexEveryByteEverywhere) {
  expect_every_byte_everywhere_agrees(GetParam(), "017f22e279b07cc398c4dc0c0c07398f",
                                      parse_uuid_outcome);
}

TEST_P(TextPathsAgree, UlidEveryByteEverywhere) {
  expect_every_byte_everywhere_agrees(GetParam(), "01ARZ3NDEKTSV4RRFFQ69G5FAV", parse_ulid_outcome);
  expect_every_byte_everywhere_agrees(GetParam(), "7zzzzzzzzzzzzzzzzzzzzzzzzz", parse_ulid_outcome);
  expect_every_byte_everywhere_agrees(GetParam(), "0ilo0ILO0000000000000000uU", parse_ulid_outcome);
}

TEST_P(TextPathsAgree, RandomValuesWriteTheSameText) {
  for (int i = 0; i < 20'000; ++i) {
    const Uuid u = Uuid::from_u64(random_u64(), random_u64());
    char text[36], hex[32], ulid[26];
    u.to_chars(text);
    u.to_hex_chars(hex);
    Ulid(u.bytes()).to_chars(ulid);
    const std::string want =
        on_scalar(GetParam(), [&] {
          return Outcome{true, 0, u.to_string() + u.to_hex() + Ulid(u.bytes()).to_string(), {}};
        }).reason;
    ASSERT_EQ(std::string(text, 36) + std::string(hex, 32) + std::string(ulid, 26), want);
    ASSERT_EQ(Uuid::parse(std::string_view(text, 36)), u);
    ASSERT_EQ(Uuid::parse(std::string_view(hex, 32)), u);
    ASSERT_EQ(Ulid::parse(std::string_view(ulid, 26)).bytes(), u.bytes());
  }
}

TEST_P(TextPathsAgree, RandomlyDamagedTextFailsAlike) {
  const char pool[] = "0123456789abcdefABCDEFgGhHiIlLoOuUzZ-_{}: \x80\xff\x7f/@`[~";
  for (int i = 0; i < 20'000; ++i) {
    const Uuid u = Uuid::from_u64(random_u64(), random_u64());
    std::string texts[3] = {u.to_string(), u.to_hex(), Ulid(u.bytes()).to_string()};
    for (std::string& t : texts) {
      const int damage = static_cast<int>(random_u64() % 3);
      for (int k = 0; k < damage; ++k)
        t[random_u64() % t.size()] = pool[random_u64() % (sizeof pool - 1)];
    }
    for (int k = 0; k < 2; ++k) {
      const Outcome want = on_scalar(GetParam(), [&] { return parse_uuid_outcome(texts[k]); });
      ASSERT_EQ(parse_uuid_outcome(texts[k]), want) << texts[k];
    }
    const Outcome want = on_scalar(GetParam(), [&] { return parse_ulid_outcome(texts[2]); });
    ASSERT_EQ(parse_ulid_outcome(texts[2]), want) << texts[2];
  }
}

// ---------------------------------------------------------------------------------------
// Batch writers

IDFORGE_TEXT_PATH_SUITE(BatchText);

std::vector<Uuid> some_uuids(std::size_t n) {
  std::vector<Uuid> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(Uuid::from_u64(random_u64(), random_u64()));
  return v;
}

template <typename Id, typename One, typename Many>
void expect_batch_is_the_joined_singles(const std::vector<Id>& ids, std::size_t each, One one,
                                        Many many) {
  const std::string seps[] = {
      "", "\n", "\",\"", "0123456789abcdef", "0123456789abcdefg", std::string(40, '|')};
  for (const std::string& sep : seps) {
    std::string want;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (i != 0) want += sep;
      want += one(ids[i]);
    }
    const std::size_t size = batch_text_size(ids.size(), each, sep);
    ASSERT_EQ(size, want.size());
    std::string buf(size + 64, '#');  // the writer must stop at size
    char* end = many(ids, buf.data(), sep);
    ASSERT_EQ(end, buf.data() + size) << "separator of " << sep.size();
    EXPECT_EQ(buf.substr(0, size), want) << "separator of " << sep.size();
    EXPECT_EQ(buf.substr(size), std::string(64, '#'));
  }
}

TEST_P(BatchText, UuidsAreTheJoinedCanonicalTexts) {
  for (std::size_t n : {0u, 1u, 2u, 3u, 17u, 100u}) {
    const auto ids = some_uuids(n);
    expect_batch_is_the_joined_singles(
        ids, Uuid::kTextSize, [](const Uuid& u) { return u.to_string(); },
        [](const std::vector<Uuid>& v, char* out, std::string_view sep) {
          return to_chars(std::span<const Uuid>(v), out, sep);
        });
    expect_batch_is_the_joined_singles(
        ids, Uuid::kHexSize, [](const Uuid& u) { return u.to_hex(); },
        [](const std::vector<Uuid>& v, char* out, std::string_view sep) {
          return to_hex_chars(std::span<const Uuid>(v), out, sep);
        });
  }
}

TEST_P(BatchText, UlidsAreTheJoinedTexts) {
  for (std::size_t n : {0u, 1u, 2u, 3u, 17u, 100u}) {
    std::vector<Ulid> ids;
    for (const Uuid& u : some_uuids(n)) ids.push_back(Ulid::from_uuid(u));
    expect_batch_is_the_joined_singles(
        ids, Ulid::kTextSize, [](const Ulid& u) { return u.to_string(); },
        [](const std::vector<Ulid>& v, char* out, std::string_view sep) {
          return to_chars(std::span<const Ulid>(v), out, sep);
        });
  }
}

TEST(BatchTextSize, CountsTextsAndSeparatorsBetweenThem) {
  EXPECT_EQ(batch_text_size(0, 36, ","), 0u);
  EXPECT_EQ(batch_text_size(1, 36, ","), 36u);
  EXPECT_EQ(batch_text_size(3, 26, "\",\""), 3 * 26 + 2 * 3u);
  EXPECT_EQ(batch_text_size(4, 32), 128u);
}

}  // namespace
}  // namespace idforge
