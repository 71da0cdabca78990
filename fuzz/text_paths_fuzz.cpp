// Differential: every vector text path (SSSE3, AVX2, where the CPU has them) against the
// portable one, on the same input. Parsing must give the same value or the same error
// (position and rule); writing must give the same text. The input is parsed as it is and
// also cut or padded to each length a kernel reads (36, 32, 26), so that every input
// reaches the vector code; its bytes are also read as 16-byte values written one at a time
// and as a batch with a separator taken from the input's tail.
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "idforge/detail/text_path.hpp"
#include "idforge/ulid.hpp"
#include "idforge/uuid.hpp"

namespace {

using idforge::detail::TextPath;

// Everything the text code does with one input, as one string to compare.
std::string run_all(const std::string_view input) {
  std::string out;
  const auto parse_both = [&](std::string_view text) {
    idforge::Uuid u = idforge::Uuid::max();
    const idforge::ParseStatus su = idforge::parse_uuid(text, u);
    out += su.ok() ? "U" + u.to_hex() : "u" + std::to_string(su.position) + su.reason;
    idforge::Ulid l = idforge::Ulid::from_u64(1, 2);
    const idforge::ParseStatus sl = idforge::parse_ulid(text, l);
    out += sl.ok() ? "L" + l.to_string() : "l" + std::to_string(sl.position) + sl.reason;
    out += '|';
  };
  parse_both(input);
  for (std::size_t n :
       {idforge::Uuid::kTextSize, idforge::Uuid::kHexSize, idforge::Ulid::kTextSize}) {
    std::string t(input.substr(0, n));
    t.resize(n, '0');
    parse_both(t);
  }
  std::vector<idforge::Uuid> values(input.size() / 16);
  if (!values.empty())
    std::memcpy(static_cast<void*>(values.data()), input.data(), values.size() * 16);
  std::vector<idforge::Ulid> ulids;
  for (const idforge::Uuid& v : values) {
    char text[idforge::Uuid::kTextSize], hex[idforge::Uuid::kHexSize],
        ulid[idforge::Ulid::kTextSize];
    out.append(text, v.to_chars(text));
    out.append(hex, v.to_hex_chars(hex));
    const idforge::Ulid l = idforge::Ulid::from_uuid(v);
    out.append(ulid, l.to_chars(ulid));
    ulids.push_back(l);
  }
  const std::string_view sep = input.substr(values.size() * 16);
  std::string batch(idforge::batch_text_size(values.size(), idforge::Uuid::kTextSize, sep) +
                        idforge::batch_text_size(values.size(), idforge::Uuid::kHexSize, sep) +
                        idforge::batch_text_size(values.size(), idforge::Ulid::kTextSize, sep),
                    '\0');
  char* p = batch.data();
  p = idforge::to_chars(std::span<const idforge::Uuid>(values), p, sep);
  p = idforge::to_hex_chars(std::span<const idforge::Uuid>(values), p, sep);
  p = idforge::to_chars(std::span<const idforge::Ulid>(ulids), p, sep);
  IDFORGE_FUZZ_CHECK(p == batch.data() + batch.size());
  out += batch;
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::string_view input = as_text(data, size);
  IDFORGE_FUZZ_CHECK(idforge::detail::use_text_path(TextPath::scalar));
  const std::string want = run_all(input);
  for (TextPath path : idforge::detail::kTextPaths) {
    if (path == TextPath::scalar || !idforge::detail::use_text_path(path)) continue;
    IDFORGE_FUZZ_CHECK(run_all(input) == want);
  }
  return 0;
}
