// UUID text: the throwing and non-throwing parsers agree; what parses formats to the
// canonical form, which parses back to the same value; 16 raw bytes round-trip.
#include <cstring>

#include "fuzz_support.hpp"
#include "idforge/error.hpp"
#include "idforge/uuid.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  const std::optional<idforge::Uuid> quiet = idforge::Uuid::try_parse(text);
  try {
    const idforge::Uuid u = idforge::Uuid::parse(text);
    IDFORGE_FUZZ_CHECK(quiet && *quiet == u);
    IDFORGE_FUZZ_CHECK(idforge::Uuid::parse(u.to_string()) == u);
  } catch (const idforge::ParseError& e) {
    IDFORGE_FUZZ_CHECK(!quiet);
    IDFORGE_FUZZ_CHECK(e.position() <= size);
  }
  if (size >= 16) {
    idforge::Uuid raw;
    static_assert(sizeof raw == 16);
    std::memcpy(&raw, data, 16);
    char buf[36];
    raw.to_chars(buf);
    IDFORGE_FUZZ_CHECK(idforge::Uuid::parse(std::string_view(buf, 36)) == raw);
  }
  return 0;
}
