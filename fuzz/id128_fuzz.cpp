// TypeID, KSUID and the 128-bit conversions: any text either parses or is refused with an
// idforge::Error (never a crash); what parses, writes back to the same text (TypeID, KSUID)
// and survives a trip through every 128-bit form with the same bits.
#include "fuzz_support.hpp"
#include "idforge/convert.hpp"
#include "idforge/error.hpp"
#include "idforge/ksuid.hpp"
#include "idforge/typeid.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  if (const auto t = idforge::TypeId::try_parse(text)) {
    IDFORGE_FUZZ_CHECK(t->to_string() == text);  // strict alphabet: one text per value
  }
  if (const auto k = idforge::Ksuid::try_parse(text)) {
    IDFORGE_FUZZ_CHECK(k->to_string() == text);
  }
  try {
    const idforge::Id128 id = idforge::read_id128(text);
    for (const char* to : {"uuid", "ulid", "typeid", "typeid:fuzz", "hex", "base62"}) {
      const std::string out = idforge::write_id128(id.bits, idforge::parse_id128_target(to));
      IDFORGE_FUZZ_CHECK(idforge::read_id128(out).bits == id.bits);
    }
  } catch (const idforge::Error&) {
  }
  return 0;
}
