// Baseline code in the same program as code built for AVX2 or SSSE3 (text_inline.cpp): built
// without -m flags and without inlining, so it calls the out-of-line Uuid::to_chars,
// parse_uuid and Ulid::to_chars. Those must be its own baseline copies, which go through the
// run-time table: were the symbols shared, the linker could keep the AVX2 copy for both.
#include <string_view>

#include "idforge/ulid.hpp"
#include "idforge/uuid.hpp"

namespace idforge::test {

char* baseline_uuid_to_chars(const Uuid& u, char* out) {
  return u.to_chars(out);
}

ParseStatus baseline_parse_uuid(std::string_view text, Uuid& out) {
  return parse_uuid(text, out);
}

char* baseline_ulid_to_chars(const Ulid& u, char* out) {
  return u.to_chars(out);
}

}  // namespace idforge::test
