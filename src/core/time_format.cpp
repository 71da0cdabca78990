#include "idforge/time_format.hpp"

#include <chrono>
#include <cstdio>

#include "idforge/error.hpp"

namespace idforge {
namespace {

// 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z in Unix ms: the range ISO-8601's
// four-digit years can write.
constexpr std::int64_t kFirstIso8601Ms = -62'167'219'200'000;
constexpr std::int64_t kLastIso8601Ms = 253'402'300'799'999;

std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

struct Cursor {
  std::string_view text;
  std::size_t pos = 0;

  [[noreturn]] void fail(std::string_view reason) const {
    throw ParseError("ISO-8601 time", text, pos, reason);
  }
  int digits(int count, std::string_view what) {
    int v = 0;
    for (int i = 0; i < count; ++i) {
      if (pos >= text.size() || text[pos] < '0' || text[pos] > '9')
        fail(std::string("expected ") + std::to_string(count) + " digits of " + std::string(what));
      v = v * 10 + (text[pos++] - '0');
    }
    return v;
  }
  void expect(char c) {
    if (pos >= text.size() || text[pos] != c) fail(std::string("expected '") + c + "'");
    ++pos;
  }
  bool accept(char c) {
    if (pos < text.size() && text[pos] == c) return ++pos, true;
    return false;
  }
};

}  // namespace

std::string format_iso8601_ms(std::int64_t unix_ms) {
  using namespace std::chrono;
  // Four-digit years only: beyond them std::chrono's year wraps (2^63 - 1 ms read as year
  // -6911), and a five-digit year is no ISO-8601 basic form either. One wording everywhere.
  if (unix_ms > kLastIso8601Ms) return "after 9999-12-31";
  if (unix_ms < kFirstIso8601Ms) return "before 0000-01-01";
  const std::int64_t days = floor_div(unix_ms, 86'400'000);
  const std::int64_t ms_of_day = unix_ms - days * 86'400'000;
  const year_month_day ymd{sys_days{std::chrono::days{days}}};
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ",
                static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()), static_cast<int>(ms_of_day / 3'600'000),
                static_cast<int>(ms_of_day / 60'000 % 60), static_cast<int>(ms_of_day / 1000 % 60),
                static_cast<int>(ms_of_day % 1000));
  return buf;
}

std::int64_t parse_iso8601_ms(std::string_view text) {
  using namespace std::chrono;
  Cursor c{text};
  const int y = c.digits(4, "year");
  c.expect('-');
  const std::size_t month_pos = c.pos;
  const int mo = c.digits(2, "month");
  if (mo < 1 || mo > 12) {
    c.pos = month_pos;
    c.fail("month must be 01..12");
  }
  c.expect('-');
  const std::size_t day_pos = c.pos;
  const int d = c.digits(2, "day");
  const year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)},
                           day{static_cast<unsigned>(d)}};
  if (!ymd.ok()) {
    c.pos = day_pos;
    c.fail("no such calendar date");
  }
  std::int64_t ms =
      static_cast<std::int64_t>(sys_days{ymd}.time_since_epoch().count()) * 86'400'000;
  if (c.pos == text.size()) return ms;
  if (!c.accept('T') && !c.accept(' ')) c.fail("expected 'T' between date and time");
  const int h = c.digits(2, "hour");
  c.expect(':');
  const int mi = c.digits(2, "minute");
  c.expect(':');
  const int s = c.digits(2, "second");
  if (h > 23 || mi > 59 || s > 59) c.fail("hour, minute or second out of range");
  ms += (h * 3600 + mi * 60 + s) * 1000LL;
  if (c.accept('.')) {
    int scale = 100, frac = 0, n = 0;
    while (c.pos < text.size() && text[c.pos] >= '0' && text[c.pos] <= '9') {
      if (n < 3) frac += (text[c.pos] - '0') * scale, scale /= 10;
      ++c.pos, ++n;
    }
    if (n == 0) c.fail("expected digits after '.'");
    ms += frac;
  }
  if (c.accept('Z')) {
  } else if (text.substr(c.pos) == "+00:00") {
    c.pos += 6;
  } else {
    c.fail("expected 'Z' (times are UTC)");
  }
  if (c.pos != text.size()) c.fail("unexpected trailing characters");
  return ms;
}

}  // namespace idforge
