// Runs a codec test once per text code path (scalar, SSSE3, AVX2), forcing each in turn;
// a path this build or CPU lacks is skipped with a message naming it.
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "idforge/detail/text_path.hpp"

namespace idforge {
namespace detail {
/// Test names and failure messages print the path by name.
inline void PrintTo(TextPath path, std::ostream* os) {
  *os << to_string(path);
}
}  // namespace detail

class OnEachTextPath : public ::testing::TestWithParam<detail::TextPath> {
 protected:
  void SetUp() override {
    if (!detail::use_text_path(GetParam()))
      GTEST_SKIP() << "text path " << detail::to_string(GetParam())
                   << " is not compiled in or not supported by this CPU";
  }
  void TearDown() override { detail::use_best_text_path(); }
};

inline std::string text_path_name(const ::testing::TestParamInfo<detail::TextPath>& info) {
  return detail::to_string(info.param);
}

}  // namespace idforge

/// Declares Suite as a test fixture that runs on every text path.
#define IDFORGE_TEXT_PATH_SUITE(Suite)                                                       \
  class Suite : public ::idforge::OnEachTextPath {};                                         \
  INSTANTIATE_TEST_SUITE_P(Paths, Suite, ::testing::ValuesIn(::idforge::detail::kTextPaths), \
                           ::idforge::text_path_name)
