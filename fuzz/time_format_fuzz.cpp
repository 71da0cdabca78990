// ISO-8601: what parses formats to text that parses to the same millisecond.
#include "fuzz_support.hpp"
#include "idforge/error.hpp"
#include "idforge/time_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  try {
    const std::int64_t ms = idforge::parse_iso8601_ms(as_text(data, size));
    IDFORGE_FUZZ_CHECK(idforge::parse_iso8601_ms(idforge::format_iso8601_ms(ms)) == ms);
  } catch (const idforge::ParseError& e) {
    IDFORGE_FUZZ_CHECK(e.position() <= size);
  }
  return 0;
}
