// The SVG writer: well-formed output, escaping, ticks, refusal of bad data.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "idforge/error.hpp"
#include "idforge/lab/svg_chart.hpp"

namespace idforge::lab {
namespace {

// Every element opened is closed, in order (a small XML well-formedness check).
void expect_balanced(const std::string& svg) {
  std::vector<std::string> stack;
  const std::regex tag(R"(<(/?)([a-zA-Z]+)[^>]*?(/?)>)");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tag); it != std::sregex_iterator();
       ++it) {
    const auto& m = *it;
    if (m[3] == "/") continue;
    if (m[1] == "/") {
      ASSERT_FALSE(stack.empty()) << "stray </" << m[2] << ">";
      EXPECT_EQ(stack.back(), m[2]);
      stack.pop_back();
    } else {
      stack.push_back(m[2]);
    }
  }
  EXPECT_TRUE(stack.empty());
}

TEST(SvgChart, RendersBalancedDocumentWithSeriesAndBars) {
  SvgChart c("Insert rate & size <test>");
  c.add(LinePanel{"rate",
                  "rows",
                  "inserts/s",
                  {{"uuid7", {1, 2, 3}, {100, 90, 95}}, {"uuid4", {1, 2, 3}, {80, 40, 20}}}});
  c.add(BarPanel{"size", "bytes", {"uuid7", "uuid4"}, {1e6, 1.4e6}, {}});
  const std::string svg = c.render();
  expect_balanced(svg);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("Insert rate &amp; size &lt;test&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("<test>"), std::string::npos);
  EXPECT_NE(svg.find(">uuid4</text>"), std::string::npos);
  EXPECT_NE(svg.find("<polyline"), std::string::npos);
  EXPECT_NE(svg.find(">1.4M</text>"), std::string::npos);
}

TEST(SvgChart, RefusesMismatchedOrNonFiniteData) {
  SvgChart c("x");
  EXPECT_THROW(c.add(LinePanel{"t", "x", "y", {{"a", {1, 2}, {1}}}}), Error);
  EXPECT_THROW(c.add(LinePanel{"t", "x", "y", {{"a", {1}, {std::nan("")}}}}), Error);
  EXPECT_THROW(c.add(BarPanel{"t", "y", {"a", "b"}, {1}, {}}), Error);
}

TEST(SvgChart, EscapesEveryXmlSpecialCharacter) {
  EXPECT_EQ(svg_escape(R"(a&b<c>d"e'f)"), "a&amp;b&lt;c&gt;d&quot;e&apos;f");
}

TEST(SvgChart, NiceTicksCoverTheRangeInRoundSteps) {
  const auto unit = nice_ticks(0, 1, 5);
  ASSERT_EQ(unit.size(), 6u);
  EXPECT_NEAR(unit[1], 0.2, 1e-12);
  const auto t = nice_ticks(0, 937, 5);
  EXPECT_EQ(t.front(), 0);
  EXPECT_GE(t.back(), 937);
  EXPECT_DOUBLE_EQ(t[1] - t[0], 200);
  const auto flat = nice_ticks(5, 5, 4);
  EXPECT_LT(flat.front(), 5);
  EXPECT_GT(flat.back(), 5);
}

TEST(SvgChart, ShortNumbers) {
  EXPECT_EQ(short_number(1'500'000), "1.5M");
  EXPECT_EQ(short_number(250'000), "250k");
  EXPECT_EQ(short_number(12), "12");
  EXPECT_EQ(short_number(0.69), "0.69");
  EXPECT_EQ(short_number(3e9), "3G");
}

TEST(SvgChart, LogAxesAndMarkers) {
  LinePanel p{
      "latency",
      "rows",
      "ms",
      {{"uuid4", {1e4, 1e5, 1e6}, {0.2, 2, 20}}, {"uuid7", {1e4, 1e5, 1e6}, {0.2, 0.2, 0.3}}}};
  p.log_y = true;
  p.markers.push_back({2e5, "uuid4 leaves memory", 0});
  p.markers.push_back({5e7, "off the chart", 1});
  const std::string svg = SvgChart("log").add(p).render();
  expect_balanced(svg);
  EXPECT_NE(svg.find("uuid4 leaves memory"), std::string::npos);
  EXPECT_EQ(svg.find("off the chart"), std::string::npos);
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);
  // Ticks at powers of ten from 0.1 to 100 on the log axis.
  for (const char* t : {">0.1</text>", ">1</text>", ">10</text>", ">100</text>"})
    EXPECT_NE(svg.find(t), std::string::npos) << t;
  LinePanel w{"writers", "writers", "inserts/s", {{"a", {1, 2, 4, 8, 16, 32}, {1, 2, 3, 4, 5, 6}}}};
  w.log_x = true;
  expect_balanced(SvgChart("w").add(w).render());
}

TEST(SvgChart, LogTicksCoverTheRangeAndThinOut) {
  EXPECT_EQ(log_ticks(1, 100), (std::vector<double>{1, 2, 5, 10, 20, 50, 100}));
  const auto many = log_ticks(1e-3, 1e6);
  EXPECT_EQ(many.front(), 1e-3);
  EXPECT_EQ(many.back(), 1e6);
  EXPECT_EQ(many.size(), 10u);
  EXPECT_THROW(log_ticks(0, 10), Error);
}

}  // namespace
}  // namespace idforge::lab
