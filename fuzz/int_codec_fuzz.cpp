// Each 64-bit encoding: whatever parses re-encodes to a form that parses to the same value;
// whatever fails, fails with a ParseError (never a crash or another exception).
#include "fuzz_support.hpp"
#include "idforge/error.hpp"
#include "idforge/int_codec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  for (auto e : {idforge::IntEncoding::decimal, idforge::IntEncoding::hex,
                 idforge::IntEncoding::base32, idforge::IntEncoding::base62}) {
    try {
      const std::uint64_t v = idforge::decode_u64(text, e);
      IDFORGE_FUZZ_CHECK(idforge::decode_u64(idforge::encode_u64(v, e), e) == v);
    } catch (const idforge::ParseError& err) {
      IDFORGE_FUZZ_CHECK(err.position() <= text.size());
    }
  }
  if (size >= 8) {  // and every value round-trips through every encoding
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = v << 8 | data[i];
    for (auto e : {idforge::IntEncoding::decimal, idforge::IntEncoding::hex,
                   idforge::IntEncoding::base32, idforge::IntEncoding::base62})
      IDFORGE_FUZZ_CHECK(idforge::decode_u64(idforge::encode_u64(v, e), e) == v);
  }
  return 0;
}
