// inspect's detector: any text either decodes or is refused with an idforge::Error; what
// decodes, decodes again from its canonical form to the same kind and canonical form.
#include "fuzz_support.hpp"
#include "idforge/error.hpp"
#include "idforge/inspect.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  try {
    const idforge::Inspection a = idforge::inspect(as_text(data, size));
    const idforge::Inspection b = idforge::inspect(a.canonical);
    IDFORGE_FUZZ_CHECK(a.kind == b.kind);
    IDFORGE_FUZZ_CHECK(a.canonical == b.canonical);
  } catch (const idforge::Error&) {
  }
  return 0;
}
