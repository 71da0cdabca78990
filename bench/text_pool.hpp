// The inputs of the text benchmarks (uuid_bench.cpp, peers/boost_cmp.cpp): values and texts
// cycle through a pool so that parse and format see varied input, as in use, rather than one
// string the branch predictor learns by heart.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "idforge/uuid_generator.hpp"

namespace idforge::bench {

/// How many values a pool holds.
inline constexpr std::size_t kPool = 1024;

/// kPool UUIDs, half v4 and half v7.
inline std::vector<Uuid> uuid_pool() {
  std::vector<Uuid> v(kPool);
  UuidV7Generator gen;
  for (std::size_t i = 0; i < kPool; ++i) v[i] = (i % 2) ? gen.next() : new_uuid_v4();
  return v;
}

/// The pool's UUIDs as text, each written by to_string.
template <typename ToString>
std::vector<std::string> text_pool(ToString to_string) {
  std::vector<std::string> v;
  for (const Uuid& u : uuid_pool()) v.push_back(to_string(u));
  return v;
}

}  // namespace idforge::bench
