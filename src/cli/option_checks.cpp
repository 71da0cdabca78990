#include "option_checks.hpp"

#include <fmt/core.h>

#include <charconv>
#include <cmath>

#include "printable.hpp"

namespace idforge::cli {
namespace {

// At most 200 bytes of the value: a value of 100,000 digits is named, not repeated.
std::string in_quotes(const std::string& s) {
  return "'" + detail::shortened(printable(s), 200) + "'";
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

CLI::Validator whole_number(std::uint64_t lo, std::uint64_t hi) {
  return whole_number(lo, hi, fmt::format("{} to {}", lo, hi));
}

CLI::Validator whole_number(std::uint64_t lo, std::uint64_t hi, std::string expected) {
  const std::string range = std::move(expected);
  return CLI::Validator(
      [lo, hi, range](std::string& v) -> std::string {
        if (!all_digits(v)) return in_quotes(v) + " is not a whole number (expected " + range + ")";
        std::uint64_t n = 0;
        const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
        if (ec != std::errc{} || end != v.data() + v.size() || n < lo || n > hi)
          return in_quotes(v) + " is out of range (expected " + range + ")";
        v = std::to_string(n);  // "010" is ten here; CLI11 would read it as octal
        return {};
      },
      "INT in [" + range + "]", "whole_number");
}

CLI::Validator signed_number(std::int64_t lo, std::int64_t hi) {
  const std::string range = fmt::format("{} to {}", lo, hi);
  return CLI::Validator(
      [lo, hi, range](std::string& v) -> std::string {
        const std::string_view digits =
            v.starts_with('-') ? std::string_view(v).substr(1) : std::string_view(v);
        if (!all_digits(digits))
          return in_quotes(v) + " is not a whole number (expected " + range + ")";
        std::int64_t n = 0;
        const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
        if (ec != std::errc{} || end != v.data() + v.size() || n < lo || n > hi)
          return in_quotes(v) + " is out of range (expected " + range + ")";
        v = std::to_string(n);
        return {};
      },
      "INT in [" + range + "]", "signed_number");
}

CLI::Validator real_number(double lo, double hi) {
  const std::string range = fmt::format("{} to {}", lo, hi);
  return CLI::Validator(
      [lo, hi, range](std::string& v) -> std::string {
        double x = 0;
        const bool plain =
            !v.empty() && v.find_first_not_of("0123456789.eE+-") == std::string::npos;
        const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
        if (!plain || ec == std::errc::invalid_argument || end != v.data() + v.size())
          return in_quotes(v) + " is not a number (expected " + range + ")";
        if (ec != std::errc{} || !std::isfinite(x) || x < lo || x > hi)
          return in_quotes(v) + " is out of range (expected " + range + ")";
        return {};
      },
      "NUMBER in [" + range + "]", "real_number");
}

}  // namespace idforge::cli
