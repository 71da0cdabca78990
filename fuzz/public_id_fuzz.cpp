// Public IDs, masking keyrings and mask inputs: whatever reads, reads back the same; whatever
// fails, fails with its fault or a typed Error (never a crash or another exception).
//   - read_public_id: a text that reads is the public ID of its value under its key, and
//     reading it again gives the same; parse_public_id agrees with read_public_id.
//   - MaskKeyring::parse: an accepted keyring masks and unmasks with every key it holds.
//   - parse_mask_input: an accepted value masks and unmasks to itself.
#include <string>

#include "fuzz_support.hpp"
#include "idforge/error.hpp"
#include "idforge/mask_keyring.hpp"
#include "idforge/public_id.hpp"

namespace {

const idforge::MaskKeyring& ring() {
  static const idforge::MaskKeyring r = idforge::MaskKeyring::parse(
      "1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n"
      "2:fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0efeeedecebeae9e8e7e6e5e4e3e2e1e0\n",
      "fuzz");
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace idforge;
  const std::string_view text = as_text(data, size);
  for (auto alphabet : {PublicAlphabet::base58, PublicAlphabet::base62}) {
    PublicIdInfo info;
    const PublicIdStatus s = read_public_id(ring(), text, alphabet, info);
    IDFORGE_FUZZ_CHECK(s.position <= text.size());
    if (s.ok()) {
      const MaskKey* key = ring().find(info.key_id);
      IDFORGE_FUZZ_CHECK(key != nullptr);
      IDFORGE_FUZZ_CHECK(to_public_id(*key, info.mode, info.value, alphabet) == text);
    }
    try {
      const PublicIdInfo again = parse_public_id(ring(), text, alphabet);
      IDFORGE_FUZZ_CHECK(s.ok() && again.value == info.value && again.key_id == info.key_id);
    } catch (const Error& e) {
      IDFORGE_FUZZ_CHECK(!s.ok() && e.code() == to_errc(s.fault));
      IDFORGE_FUZZ_CHECK(!public_id_message(s, text, alphabet, ring(), info).empty());
    }
  }
  try {
    const MaskKeyring keys = MaskKeyring::parse(text, "fuzz input");
    for (unsigned id : keys.ids()) {
      const MaskKey& k = keys.at(id);
      IDFORGE_FUZZ_CHECK(k.unmask_u63(k.mask_u63(12345)) == 12345);
    }
  } catch (const Error& e) {
    IDFORGE_FUZZ_CHECK(e.code() == errc::key_error);
  }
  for (bool masked : {false, true}) {
    try {
      const MaskInput in = masked ? parse_masked_input(text) : parse_mask_input(text);
      MaskValue out, back;
      const MaskKey& k = ring().primary();
      if (masked) {
        IDFORGE_FUZZ_CHECK(k.unmask(in.mode, in.value, out) == MaskFault::ok);
        IDFORGE_FUZZ_CHECK(k.mask(in.mode, out, back) == MaskFault::ok && back == in.value);
      } else {
        IDFORGE_FUZZ_CHECK(k.mask(in.mode, in.value, out) == MaskFault::ok);
        IDFORGE_FUZZ_CHECK(k.unmask(in.mode, out, back) == MaskFault::ok && back == in.value);
      }
    } catch (const ParseError& e) {
      IDFORGE_FUZZ_CHECK(e.position() <= text.size());
    }
  }
  return 0;
}
