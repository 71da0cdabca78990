// Every text family parses the same three ways (parse_status.hpp): parse_<id>(text, out)
// returns a ParseStatus, T::parse throws ParseError carrying that same position and rule, and
// T::try_parse returns nullopt; on a valid text all three give the same value.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "idforge/error.hpp"
#include "idforge/ksuid.hpp"
#include "idforge/parse_status.hpp"
#include "idforge/typeid.hpp"
#include "idforge/ulid.hpp"
#include "idforge/uuid.hpp"

namespace idforge {
namespace {

// One status type, returned by every family's non-throwing parser and TypeID's helpers.
static_assert(
    std::is_same_v<decltype(parse_uuid(std::string_view{}, std::declval<Uuid&>())), ParseStatus>);
static_assert(
    std::is_same_v<decltype(parse_ulid(std::string_view{}, std::declval<Ulid&>())), ParseStatus>);
static_assert(
    std::is_same_v<decltype(parse_ksuid(std::string_view{}, std::declval<Ksuid&>())), ParseStatus>);
static_assert(std::is_same_v<decltype(parse_typeid(std::string_view{}, std::declval<TypeId&>())),
                             ParseStatus>);
static_assert(std::is_same_v<decltype(check_typeid_prefix(std::string_view{})), ParseStatus>);
static_assert(std::is_same_v<decltype(Ksuid::try_parse(std::string_view{})), std::optional<Ksuid>>);

struct UuidFamily {
  using Id = Uuid;
  static constexpr std::string_view good = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
  static constexpr std::string_view bad = "017f22e2-79b0-7cc3-98c4-dc0c0c07398g";
  static ParseStatus parse_into(std::string_view t, Id& out) noexcept { return parse_uuid(t, out); }
};
struct UlidFamily {
  using Id = Ulid;
  static constexpr std::string_view good = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
  static constexpr std::string_view bad = "01ARZ3NDEKTSV4RRFFQ69G5FAU";  // U is not in the alphabet
  static ParseStatus parse_into(std::string_view t, Id& out) noexcept { return parse_ulid(t, out); }
};
struct KsuidFamily {
  using Id = Ksuid;
  static constexpr std::string_view good = "0ujtsYcgvSTl8PAuAdqWYSMnLOv";
  static constexpr std::string_view bad = "0ujtsYcgvSTl8PAuAdqWYSMnLO!";
  static ParseStatus parse_into(std::string_view t, Id& out) noexcept {
    return parse_ksuid(t, out);
  }
};
struct TypeIdFamily {
  using Id = TypeId;
  static constexpr std::string_view good = "user_01h455vb4pex5vsknk084sn02q";
  static constexpr std::string_view bad = "user_01h455vb4pex5vsknk084sn02u";  // u: not in base32
  static ParseStatus parse_into(std::string_view t, Id& out) noexcept {
    return parse_typeid(t, out);
  }
};

template <class F>
class ParseFamilies : public ::testing::Test {};
using Families = ::testing::Types<UuidFamily, UlidFamily, KsuidFamily, TypeIdFamily>;
TYPED_TEST_SUITE(ParseFamilies, Families);

TYPED_TEST(ParseFamilies, TheThreeWaysAgreeOnAValidText) {
  using F = TypeParam;
  typename F::Id out{};
  const ParseStatus st = F::parse_into(F::good, out);
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(st.reason, nullptr);
  EXPECT_EQ(F::Id::parse(F::good), out);
  const std::optional<typename F::Id> t = F::Id::try_parse(F::good);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(*t, out);
  EXPECT_EQ(out.to_string(), std::string(F::good));
}

TYPED_TEST(ParseFamilies, TheThreeWaysAgreeOnTheErrorAndItsPosition) {
  using F = TypeParam;
  typename F::Id out{};
  const typename F::Id before = out;
  const ParseStatus st = F::parse_into(F::bad, out);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.position, F::bad.size() - 1);
  EXPECT_EQ(out, before);  // unchanged on failure
  EXPECT_FALSE(F::Id::try_parse(F::bad).has_value());
  try {
    (void)F::Id::parse(F::bad);
    FAIL() << "parsed " << F::bad;
  } catch (const ParseError& e) {
    EXPECT_EQ(e.code(), errc::parse_error);
    EXPECT_EQ(e.position(), st.position);
    EXPECT_EQ(e.reason(), std::string(st.reason));
    EXPECT_EQ(e.input(), std::string(F::bad));
  }
}

}  // namespace
}  // namespace idforge
