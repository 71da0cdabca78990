// The shape every failed idforge command must have: one line on stderr, "idforge: ...",
// naming what was wrong, and the given exit code.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "run_command.hpp"

namespace idforge::test {

inline void expect_one_line_error(const CommandResult& r, int exit_code, const std::string& says) {
  EXPECT_EQ(r.exit_code, exit_code) << r.err;
  EXPECT_TRUE(r.err.starts_with("idforge: ")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << "expected '" << says << "' in: " << r.err;
  EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << r.err;
}

}  // namespace idforge::test
