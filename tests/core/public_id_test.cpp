// Public IDs: the text form of masked values. Round trips in both alphabets and all modes,
// every single mistyped character and every swap of neighbours caught, key rotation, and
// "not ours" told apart from "mistyped" and "unknown key".
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "expect_errc.hpp"
#include "idforge/detail/dihedral_check.hpp"
#include "idforge/public_id.hpp"
#include "idforge/uuid_generator.hpp"
#include "mask_support.hpp"

namespace idforge {
namespace {

using test::counting_line;
using test::descending_line;

const std::string kBase58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const std::string kBase62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

const MaskKeyring& ring() {
  static const MaskKeyring r =
      MaskKeyring::parse(counting_line(2) + "\n" + descending_line(1), "test keys");
  return r;
}

struct Case {
  MaskMode mode;
  MaskValue value;
};

std::vector<Case> sample_cases() {
  std::mt19937_64 rng(5);
  std::vector<Case> out = {
      {MaskMode::u63, {0, 1}},
      {MaskMode::u63, {0, kMaskMaxU63}},
      {MaskMode::u128, {0, 0}},
      {MaskMode::u128, {~0ull, ~0ull}},
      {MaskMode::v7_as_v4, MaskValue::of(Uuid::parse("017f22e2-79b0-7cc3-98c4-dc0c0c07398f"))}};
  UuidV7Generator gen;
  for (int i = 0; i < 300; ++i) {
    out.push_back({MaskMode::u63, {0, (rng() >> 1) | 1}});
    out.push_back({MaskMode::u128, {rng(), rng()}});
    out.push_back({MaskMode::v7_as_v4, MaskValue::of(gen.next())});
  }
  return out;
}

TEST(PublicId, RoundTripsEveryModeInBothAlphabets) {
  for (PublicAlphabet a : {PublicAlphabet::base58, PublicAlphabet::base62}) {
    const std::string& chars = a == PublicAlphabet::base58 ? kBase58 : kBase62;
    for (const Case& c : sample_cases()) {
      const std::string text = to_public_id(ring().primary(), c.mode, c.value, a);
      ASSERT_EQ(text.size(), public_id_size(c.mode));
      ASSERT_EQ(text.find_first_not_of(chars), std::string::npos) << text;
      const PublicIdInfo info = parse_public_id(ring(), text, a);
      EXPECT_EQ(info.mode, c.mode) << text;
      EXPECT_EQ(info.key_id, 2u) << text;
      EXPECT_EQ(info.value, c.value) << text;
      MaskValue masked;
      ASSERT_EQ(ring().primary().mask(c.mode, c.value, masked), MaskFault::ok);
      EXPECT_EQ(info.masked, masked) << text;
    }
  }
}

TEST(PublicId, LengthsAre16For63Bits27For128And26ForV7) {
  EXPECT_EQ(public_id_size(MaskMode::u63), 16u);
  EXPECT_EQ(public_id_size(MaskMode::u128), 27u);
  EXPECT_EQ(public_id_size(MaskMode::v7_as_v4), 26u);
  EXPECT_EQ(kMaxPublicIdSize, 27u);
}

TEST(PublicId, EverySingleWrongCharacterIsCaughtAsMistyped) {
  for (PublicAlphabet a : {PublicAlphabet::base58, PublicAlphabet::base62}) {
    const std::string& chars = a == PublicAlphabet::base58 ? kBase58 : kBase62;
    const auto cases = sample_cases();
    for (std::size_t k = 0; k < 30; ++k) {
      const std::string good = to_public_id(ring().primary(), cases[k].mode, cases[k].value, a);
      for (std::size_t i = 0; i < good.size(); ++i) {
        for (char c : chars) {
          if (c == good[i]) continue;
          std::string bad = good;
          bad[i] = c;
          PublicIdInfo info;
          const PublicIdStatus s = read_public_id(ring(), bad, a, info);
          ASSERT_EQ(s.fault, MaskFault::mistyped) << good << " -> " << bad;
          ASSERT_EQ(s.position, good.size() - 1);
        }
      }
    }
  }
}

TEST(PublicId, EverySwapOfTwoNeighboursIsCaughtAsMistyped) {
  for (PublicAlphabet a : {PublicAlphabet::base58, PublicAlphabet::base62}) {
    for (const Case& c : sample_cases()) {
      const std::string good = to_public_id(ring().primary(), c.mode, c.value, a);
      for (std::size_t i = 0; i + 1 < good.size(); ++i) {
        if (good[i] == good[i + 1]) continue;
        std::string bad = good;
        std::swap(bad[i], bad[i + 1]);
        PublicIdInfo info;
        ASSERT_EQ(read_public_id(ring(), bad, a, info).fault, MaskFault::mistyped)
            << good << " -> " << bad;
      }
    }
  }
}

TEST(PublicId, TheCheckGroupHasVerhoeffsPropertyForBothAlphabets) {
  // a * sigma(b) != b * sigma(a) for all a != b: what makes every neighbour swap visible.
  for (unsigned size : {58u, 62u}) {
    const detail::DihedralCheck g(size);
    for (unsigned a = 0; a < size; ++a) {
      EXPECT_EQ(g.multiply(a, g.inverse(a)), 0u);
      EXPECT_EQ(g.sigma_inverse(g.sigma(a)), a);
      for (unsigned b = 0; b < size; ++b)
        if (a != b)
          ASSERT_NE(g.multiply(a, g.sigma(b)), g.multiply(b, g.sigma(a)))
              << size << ": " << a << "," << b;
    }
    // Associativity on a sample (the table is a group, not just a quasigroup).
    for (unsigned a = 0; a < size; a += 7)
      for (unsigned b = 0; b < size; b += 5)
        for (unsigned c = 0; c < size; c += 3)
          ASSERT_EQ(g.multiply(g.multiply(a, b), c), g.multiply(a, g.multiply(b, c)));
    // sigma powers beyond the table agree with repeated application.
    for (unsigned d = 0; d < size; ++d) {
      unsigned x = d;
      for (std::size_t k = 0; k < 40; ++k, x = g.sigma(x)) ASSERT_EQ(g.sigma_pow(d, k), x);
    }
    // Check digits of texts shorter and longer than the tables make valid texts.
    std::mt19937 rng(size);
    for (std::size_t len : {1u, 15u, 30u, 31u, 32u, 45u}) {
      std::vector<std::uint8_t> d(len + 1);
      for (std::size_t k = 0; k < len; ++k) d[k] = static_cast<std::uint8_t>(rng() % size);
      d[len] = static_cast<std::uint8_t>(g.check_digit(d.data(), len));
      EXPECT_TRUE(g.valid(d.data(), len + 1)) << size << " " << len;
      d[len / 2] = static_cast<std::uint8_t>((d[len / 2] + 1) % size);
      EXPECT_FALSE(g.valid(d.data(), len + 1)) << size << " " << len;
    }
  }
}

TEST(PublicId, OldKeysStillResolveAfterRotation) {
  // Made when key 1 was the primary; read by a ring whose primary is now key 2.
  const MaskKeyring old_ring = MaskKeyring::parse(descending_line(1), "old");
  const std::string old_id = to_public_id(old_ring.primary(), MaskMode::u63, {0, 4001});
  const std::string new_id = to_public_id(ring().primary(), MaskMode::u63, {0, 4001});
  EXPECT_NE(old_id, new_id);
  EXPECT_EQ(parse_public_id(ring(), old_id).value, (MaskValue{0, 4001}));
  EXPECT_EQ(parse_public_id(ring(), old_id).key_id, 1u);
  EXPECT_EQ(parse_public_id(ring(), new_id).key_id, 2u);
}

TEST(PublicId, AKeyIdTheRingLacksIsUnknownKeyNotMistyped) {
  const MaskKeyring other = MaskKeyring::parse(counting_line(9), "other");
  const std::string text = to_public_id(other.primary(), MaskMode::u63, {0, 77});
  PublicIdInfo info;
  const PublicIdStatus s = read_public_id(ring(), text, PublicAlphabet::base58, info);
  EXPECT_EQ(s.fault, MaskFault::unknown_key);
  EXPECT_EQ(s.position, 14u);
  EXPECT_EQ(info.key_id, 9u);
  EXPECT_ERRC(parse_public_id(ring(), text), errc::key_error, text, "mask key 9", "2, 1");
}

TEST(PublicId, AnotherSecretUnderTheSameIdIsNotOurs) {
  // The wrong key: same ID 2, different secret. The check character passes (nothing is
  // mistyped), the keyed tag does not.
  const MaskKeyring wrong = MaskKeyring::parse(descending_line(2), "wrong");
  for (const Case& c : sample_cases()) {
    const std::string text = to_public_id(wrong.primary(), c.mode, c.value);
    PublicIdInfo info;
    const PublicIdStatus s = read_public_id(ring(), text, PublicAlphabet::base58, info);
    ASSERT_EQ(s.fault, MaskFault::not_ours) << text;
  }
  const std::string text = to_public_id(wrong.primary(), MaskMode::u63, {0, 5});
  EXPECT_ERRC(parse_public_id(ring(), text), errc::not_ours, "mask key 2");
}

TEST(PublicId, RandomStringsWithAValidCheckAreAlmostNeverOurs) {
  // Strings of the right length whose check character is right: the keyed tag is all that
  // stands between them and a lookup. Expected pass rate 1/58^3 per string.
  const detail::DihedralCheck g(58);
  std::mt19937_64 rng(9);
  const MaskKeyring all = MaskKeyring::parse(
      [] {
        std::string s;
        for (unsigned id = 0; id <= MaskKey::kMaxId; ++id) s += counting_line(id) + "\n";
        return s;
      }(),
      "all ids");
  int passed = 0, unknown = 0;
  constexpr int kTries = 20'000;
  for (int t = 0; t < kTries; ++t) {
    std::uint8_t d[16];
    for (int i = 0; i < 15; ++i) d[i] = static_cast<std::uint8_t>(rng() % 58);
    d[15] = static_cast<std::uint8_t>(g.check_digit(d, 15));
    std::string text;
    for (auto x : d) text += kBase58[x];
    PublicIdInfo info;
    const PublicIdStatus s = read_public_id(all, text, PublicAlphabet::base58, info);
    ASSERT_NE(s.fault, MaskFault::mistyped) << text;
    passed += s.ok();
    unknown += s.fault == MaskFault::unknown_key;
  }
  EXPECT_EQ(unknown, 0) << "every key ID 0..57 is in the ring";
  EXPECT_LE(passed, 3) << "expected about " << kTries / 195112.0;
}

TEST(PublicId, MalformedTextIsAParseErrorWithThePosition) {
  const std::string good = to_public_id(ring().primary(), MaskMode::u63, {0, 42});
  struct Bad {
    std::string text;
    MaskFault fault;
    std::size_t position;
    std::string says;
  };
  const std::vector<Bad> cases = {
      {"", MaskFault::bad_length, 0, "0 characters"},
      {good.substr(0, 15), MaskFault::bad_length, 15, "15 characters"},
      {good + "1", MaskFault::bad_length, 17, "17 characters"},
      {"0" + good.substr(1), MaskFault::bad_character, 0, "'0' is not a base58 character"},
      {good.substr(0, 5) + "l" + good.substr(6), MaskFault::bad_character, 5, "'l'"},
      {good.substr(0, 9) + "-" + good.substr(10), MaskFault::bad_character, 9, "'-'"},
      // A byte that is not printable ASCII is spelled out: a raw NUL would end the message
      // of every C caller, a lone byte of a UTF-8 sequence would make it invalid UTF-8.
      {good.substr(0, 3) + std::string(1, '\0') + good.substr(4), MaskFault::bad_character, 3,
       "'\\x00' is not a base58 character"},
      {good.substr(0, 14) + "\xc3\xa9", MaskFault::bad_character, 14, "'\\xc3' is not"},
  };
  for (const Bad& b : cases) {
    PublicIdInfo info;
    const PublicIdStatus s = read_public_id(ring(), b.text, PublicAlphabet::base58, info);
    EXPECT_EQ(s.fault, b.fault) << b.text;
    EXPECT_EQ(s.position, b.position) << b.text;
    try {
      parse_public_id(ring(), b.text);
      ADD_FAILURE() << b.text;
    } catch (const ParseError& e) {
      EXPECT_EQ(e.position(), b.position);
      EXPECT_NE(std::string(e.what()).find(b.says), std::string::npos) << e.what();
    }
  }
}

TEST(PublicId, ABase62IdReadAsBase58FailsAndSaysSo) {
  // Find a base62 ID that only uses characters base58 also has, so the check must catch it.
  const std::string only58 = kBase58;
  for (std::uint64_t v = 1;; ++v) {
    const std::string t =
        to_public_id(ring().primary(), MaskMode::u63, {0, v}, PublicAlphabet::base62);
    if (t.find_first_not_of(only58) != std::string::npos) continue;
    PublicIdInfo info;
    const PublicIdStatus s = read_public_id(ring(), t, PublicAlphabet::base58, info);
    EXPECT_NE(s.fault, MaskFault::ok) << t;
    if (s.fault == MaskFault::mistyped)
      EXPECT_NE(public_id_message(s, t, PublicAlphabet::base58, ring(), info)
                    .find("base62 ID read as base58"),
                std::string::npos);
    break;
  }
}

TEST(PublicId, WriteRefusesValuesOutsideTheModeAndLeavesOutAlone) {
  char out[kMaxPublicIdSize];
  std::fill(std::begin(out), std::end(out), '*');
  EXPECT_EQ(write_public_id(ring().primary(), MaskMode::u63, {0, 0}, PublicAlphabet::base58, out),
            MaskFault::out_of_domain);
  EXPECT_EQ(
      write_public_id(ring().primary(), MaskMode::v7_as_v4, {0, 5}, PublicAlphabet::base58, out),
      MaskFault::not_v7);
  EXPECT_EQ(std::string(out, sizeof out), std::string(kMaxPublicIdSize, '*'));
  EXPECT_TRUE(test::throws_errc(
      [&] {
        to_public_id(ring().primary(), MaskMode::u63, {0, 0});
      },
      errc::invalid_argument, {"of 0"}));
}

TEST(PublicId, NoCharacterIsTheSameInEveryId) {
  // The key ID is folded into a tag-dependent character, so IDs under one key share no
  // fixed position (a constant character would be a visible prefix or suffix).
  // The first character carries the top of a 63-bit number in 11 base58 digits, so it has
  // 2^63 / 58^10 = 22.3 values: all 22 show up, the others take nearly all 58.
  for (std::size_t pos = 0; pos < 16; ++pos) {
    std::set<char> seen;
    for (std::uint64_t v = 1; v <= 2000; ++v)
      seen.insert(to_public_id(ring().primary(), MaskMode::u63, {0, v})[pos]);
    EXPECT_GE(seen.size(), pos == 0 ? 22u : 50u) << "position " << pos;
  }
}

TEST(PublicAlphabet, NamesRoundTrip) {
  EXPECT_EQ(parse_public_alphabet("base58"), PublicAlphabet::base58);
  EXPECT_EQ(parse_public_alphabet("base62"), PublicAlphabet::base62);
  EXPECT_STREQ(to_string(PublicAlphabet::base62), "base62");
  EXPECT_THROW(parse_public_alphabet("base64"), ParseError);
}

}  // namespace
}  // namespace idforge
