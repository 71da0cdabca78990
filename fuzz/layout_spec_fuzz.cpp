// Layout specs: a spec that parses gives a layout whose to_spec() parses back to it.
#include "fuzz_support.hpp"
#include "idforge/error.hpp"
#include "idforge/snowflake_layout.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  constexpr std::int64_t kNow = 1'800'000'000'000;
  try {
    const idforge::Layout l = idforge::parse_layout(as_text(data, size), kNow);
    IDFORGE_FUZZ_CHECK(l.time_bits() + l.node_bits() + l.sequence_bits() == l.total_bits());
    IDFORGE_FUZZ_CHECK(idforge::parse_layout(l.to_spec(), kNow) == l);
    (void)idforge::describe(l);
  } catch (const idforge::Error&) {
  }
  return 0;
}
