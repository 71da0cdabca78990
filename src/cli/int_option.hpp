// Integer options read exactly. CLI11 2.1 clamps a number beyond the type's range (so
// "--step 99999999999999999999" became 2^63-1 without a word); these options refuse it
// instead, as a usage error that names the value and the accepted range.
#pragma once

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
#include <string>

namespace idforge::cli {

/// Adds option flags to cmd that stores into target a whole number in [lo, hi]; anything
/// else (not a number, out of range) is a CLI::ValidationError (exit 2).
inline CLI::Option* add_int_option(CLI::App* cmd, const std::string& flags, std::int64_t& target,
                                   const std::string& help, std::int64_t lo, std::int64_t hi) {
  return cmd
      ->add_option_function<std::string>(
          flags,
          [&target, flags, lo, hi](const std::string& text) {
            std::int64_t v = 0;
            const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
            if (ec == std::errc::result_out_of_range || (ec == std::errc() && (v < lo || v > hi)))
              throw CLI::ValidationError(flags, "value " + text + " is out of range " + range);
            if (ec != std::errc() || p != text.data() + text.size())
              throw CLI::ValidationError(
                  flags, "value '" + text + "' is not a whole number (" + range + ")");
            target = v;
          },
          help + " (" + std::to_string(lo) + ".." + std::to_string(hi) + ", default " +
              std::to_string(target) + ")")
      ->type_name("INT");
}

}  // namespace idforge::cli
