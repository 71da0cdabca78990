// How the shims hand a message to the C glue: into a caller's buffer of IDF_ERR_SIZE bytes.
// A message longer than that keeps its head (what failed, which store) and its tail (the
// cause, which comes last: "...: Connection refused"), joined by "...", and never cuts a
// UTF-8 sequence: a lone lead byte would make PostgreSQL refuse the whole ERROR for a
// client in another encoding.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string_view>

#include "idforge/detail/printable.hpp"
#include "idforge_pg_shim.h"

namespace idforge_pg {

/// Writes message (shortened as above when it does not fit) and a terminator into err.
inline void put_error(char* err, std::string_view message) noexcept {
  if (err == nullptr) return;
  constexpr std::size_t kRoom = IDF_ERR_SIZE - 1;
  std::size_t n = 0;
  try {
    const std::string text = idforge::detail::shortened(message, kRoom);
    n = text.size();
    std::memcpy(err, text.data(), n);
  } catch (...) {  // out of memory: the head alone, on a character boundary
    n = std::min(message.size(), kRoom);
    while (n > 0 && n < message.size() && (static_cast<unsigned char>(message[n]) & 0xC0) == 0x80)
      --n;
    std::memcpy(err, message.data(), n);
  }
  err[n] = '\0';
}

}  // namespace idforge_pg
