// How the shims hand a message to the C glue: into a caller's buffer of IDF_ERR_SIZE bytes.
// A message longer than that keeps its head (what failed, which store) and its tail (the
// cause, which comes last: "...: Connection refused"), joined by "...", and never cuts a
// UTF-8 sequence: a lone lead byte would make PostgreSQL refuse the whole ERROR for a
// client in another encoding.
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

#include "idforge_pg_shim.h"

namespace idforge_pg {

inline bool utf8_continuation(char c) noexcept {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

/// Writes message (shortened as above when it does not fit) and a terminator into err.
inline void put_error(char* err, std::string_view message) noexcept {
  if (err == nullptr) return;
  constexpr std::size_t kRoom = IDF_ERR_SIZE - 1;
  if (message.size() <= kRoom) {
    std::memcpy(err, message.data(), message.size());
    err[message.size()] = '\0';
    return;
  }
  constexpr std::string_view kJoin = "...";
  constexpr std::size_t kHead = kRoom * 2 / 5;
  std::size_t head = kHead;
  while (head > 0 && utf8_continuation(message[head])) --head;
  std::size_t tail_from = message.size() - (kRoom - kHead - kJoin.size());
  while (tail_from < message.size() && utf8_continuation(message[tail_from])) ++tail_from;
  char* out = err;
  std::memcpy(out, message.data(), head);
  out += head;
  std::memcpy(out, kJoin.data(), kJoin.size());
  out += kJoin.size();
  std::memcpy(out, message.data() + tail_from, message.size() - tail_from);
  out += message.size() - tail_from;
  *out = '\0';
}

}  // namespace idforge_pg
