// The inline text paths (detail/text_inline.hpp): this file is compiled twice, with -mavx2 and
// with -mssse3, as a user's code built for those CPUs would be, so Uuid::to_chars, parse_uuid
// and their ULID twins call the AVX2 or SSSE3 kernels inline instead of through the run-time
// choice. Each result is checked against the portable (scalar) kernels, forced through the
// run-time table, on random values and on every single-character corruption of valid texts.
// Each build is a program of its own, run by CTest only where the CPU has the instructions
// (everything in it may use them). IDFORGE_EXPECT_INLINE names the kernels' namespace.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "idforge/detail/text_inline.hpp"
#include "idforge/detail/text_path.hpp"
#include "idforge/ulid.hpp"
#include "idforge/uuid.hpp"

#ifndef IDFORGE_EXPECT_INLINE
#error \
    "compile this file with -mavx2 -DIDFORGE_EXPECT_INLINE=avx2 or -mssse3 -DIDFORGE_EXPECT_INLINE=ssse3"
#endif

namespace idforge {

// text_inline_baseline.cpp, built without -m flags.
namespace test {
char* baseline_uuid_to_chars(const Uuid& u, char* out);
ParseStatus baseline_parse_uuid(std::string_view text, Uuid& out);
char* baseline_ulid_to_chars(const Ulid& u, char* out);
}  // namespace test

namespace {

#define IDFORGE_STR(x) #x
#define IDFORGE_XSTR(x) IDFORGE_STR(x)
static_assert(std::string_view(IDFORGE_XSTR(IDFORGE_TEXT_INLINE(uuid_to_chars)))
                      .find(IDFORGE_XSTR(IDFORGE_EXPECT_INLINE) "::") != std::string_view::npos,
              "code compiled for the CPU level must call its kernels inline");

using Bytes = std::array<std::uint8_t, 16>;

std::vector<Bytes> random_values(std::size_t n) {
  std::mt19937_64 rng(20261201);
  std::vector<Bytes> v(n);
  for (auto& b : v)
    for (auto& x : b) x = static_cast<std::uint8_t>(rng());
  // Edge values: all zero, all ones, alternating nibbles.
  v[0].fill(0x00);
  v[1].fill(0xFF);
  v[2].fill(0xA5);
  return v;
}

// Forces the portable path for the run-time table, so IDFORGE_TEXT_KERNEL is the reference.
class TextInline : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(detail::use_text_path(detail::TextPath::scalar)); }
  void TearDown() override { detail::use_best_text_path(); }
};

TEST_F(TextInline, WritesWhatThePortableKernelsWrite) {
  for (const Bytes& b : random_values(20000)) {
    const Uuid u(b);
    char got[36], want[36];
    u.to_chars(got);
    IDFORGE_TEXT_KERNEL(uuid_to_chars)(b.data(), want);
    ASSERT_EQ(std::string_view(got, 36), std::string_view(want, 36));
    u.to_hex_chars(got);
    IDFORGE_TEXT_KERNEL(uuid_to_hex)(b.data(), want);
    ASSERT_EQ(std::string_view(got, 32), std::string_view(want, 32));
    Ulid::from_uuid(u).to_chars(got);
    IDFORGE_TEXT_KERNEL(ulid_to_chars)(b.data(), want);
    ASSERT_EQ(std::string_view(got, 26), std::string_view(want, 26));
  }
}

// Every character of a valid text replaced in turn by bytes that test each rule: other hex
// cases, hyphens out of place, Crockford's excluded and aliased letters, bytes with the high
// bit set, NUL.
constexpr std::string_view kSubstitutes{"0 9afAFgG-_UuIiLlOoZz\x7f\x80\xff\x00", 26};

template <typename Parse, typename Reference>
void same_verdicts(std::string text, Parse parse, Reference reference) {
  const auto check = [&](const std::string& t) {
    Bytes got{}, want{};
    const bool ok = parse(t, got);
    const bool ref = reference(t.data(), want.data());
    ASSERT_EQ(ok, ref) << "text " << ::testing::PrintToString(t);
    if (ok) ASSERT_EQ(got, want) << "text " << ::testing::PrintToString(t);
  };
  check(text);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char keep = text[i];
    for (char c : kSubstitutes) {
      text[i] = c;
      check(text);
    }
    text[i] = keep;
  }
}

TEST_F(TextInline, ReadsWhatThePortableKernelsRead) {
  for (const Bytes& b : random_values(200)) {
    const Uuid u(b);
    same_verdicts(
        u.to_string(),
        [](const std::string& t, Bytes& out) {
          Uuid parsed;
          const bool ok = parse_uuid(t, parsed).ok();
          out = parsed.bytes();
          return ok;
        },
        [](const char* p, std::uint8_t* v) { return IDFORGE_TEXT_KERNEL(uuid_from_chars)(p, v); });
    same_verdicts(
        Ulid::from_uuid(u).to_string(),
        [](const std::string& t, Bytes& out) {
          Ulid parsed;
          const bool ok = parse_ulid(t, parsed).ok();
          out = parsed.bytes();
          return ok;
        },
        [](const char* p, std::uint8_t* v) { return IDFORGE_TEXT_KERNEL(ulid_from_chars)(p, v); });
  }
}

// A text the inline kernel refuses goes on to the out-of-line parser, which names the same
// position and rule as on every other path.
TEST_F(TextInline, RefusalsCarryThePortableError) {
  for (std::string_view text : {"017f22e2-79b0-7cc3-98c4-dc0c0c07398g",
                                "017f22e2-79b0-7cc3-98c4_dc0c0c07398f", "017f22e2"}) {
    Uuid u, v;
    const ParseStatus got = parse_uuid(text, u);
    const ParseStatus want = detail::parse_uuid_any(text, v);
    ASSERT_FALSE(got.ok()) << text;
    EXPECT_EQ(got.position, want.position) << text;
    EXPECT_STREQ(got.reason, want.reason) << text;
  }
  for (std::string_view text : {"81ARZ3NDEKTSV4RRFFQ69G5FAV", "01ARZ3NDEKTSV4RRFFQ69G5FAU"}) {
    Ulid u;
    const ParseStatus got = parse_ulid(text, u);
    const ParseStatus want = detail::ulid_parse_error(text);
    ASSERT_FALSE(got.ok()) << text;
    EXPECT_EQ(got.position, want.position) << text;
    EXPECT_STREQ(got.reason, want.reason) << text;
  }
  Uuid u;
  ASSERT_TRUE(parse_uuid("017F22E2-79B0-7CC3-98C4-DC0C0C07398F", u).ok());
  EXPECT_EQ(u.to_string(), "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
}

// A program that links code built for the CPU level (this file) with baseline code
// (text_inline_baseline.cpp, no inlining): the baseline calls keep the run-time path, so a
// forced or spied-on table entry is what they reach.
std::atomic<int> g_spied{0};

TEST(TextInlineLink, BaselineCodeInTheSameProgramKeepsTheRunTimePath) {
  // This file's own out-of-line copies, which a linker could otherwise keep for both.
  volatile auto own_to_chars = &Uuid::to_chars;
  volatile auto own_parse = &parse_uuid;
  volatile auto own_ulid = &Ulid::to_chars;
  (void)own_to_chars;
  (void)own_parse;
  (void)own_ulid;
  ASSERT_TRUE(detail::use_text_path(detail::TextPath::scalar));
  const detail::WriteFn write_spy = [](const std::uint8_t*, char* out) noexcept {
    ++g_spied;
    return out;
  };
  const detail::ReadFn read_spy = [](const char*, std::uint8_t*) noexcept {
    ++g_spied;
    return true;
  };
  detail::g_text.uuid_to_chars.store(write_spy);
  detail::g_text.uuid_from_chars.store(read_spy);
  detail::g_text.ulid_to_chars.store(write_spy);
  char out[36];
  Uuid u;
  test::baseline_uuid_to_chars(Uuid(), out);
  (void)test::baseline_parse_uuid("017f22e2-79b0-7cc3-98c4-dc0c0c07398f", u);
  test::baseline_ulid_to_chars(Ulid(), out);
  detail::use_best_text_path();
  EXPECT_EQ(g_spied.load(), 3);
}

}  // namespace
}  // namespace idforge
