// random: the CSPRNG behind UUIDv4, UUIDv7 and ULID.
//
// Design (see docs/UUID.md): each thread owns a ChaCha20 keystream (libsodium's
// crypto_stream_chacha20, not a hand-written cipher) and serves random bytes from a 4 KiB
// buffer, so the hot path is a bounds check and a memcpy; the cipher runs once per 4 KiB.
//  - Seeding: the 256-bit key comes from getrandom() on first use in each thread.
//  - Fast key erasure: every refill makes 32 + 4096 bytes of keystream; the first 32 become
//    the next key, so a later memory dump cannot recover bytes already handed out. Bytes are
//    also wiped from the buffer as they are read.
//  - Reseeding: after kRandomReseedBytes of output the key is replaced from getrandom().
//  - Fork: a forked child discards its inherited buffer and key and reseeds from getrandom()
//    before its first byte (detail::fork_epoch() changes in the child), so a child never
//    repeats its parent's bytes.
// Never rand(), never an unseeded Mersenne twister.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "idforge/detail/fork_epoch.hpp"

namespace idforge {

/// Bytes one keystream refill serves before the cipher runs again.
inline constexpr std::size_t kRandomBufferBytes = 4096;
/// Output after which a thread's stream takes a fresh key from getrandom().
inline constexpr std::uint64_t kRandomReseedBytes = std::uint64_t{1} << 20;

namespace detail {

/// One thread's keystream. Plain data (zero-initialised TLS, no constructor) so that
/// reaching it costs a TLS offset, not a call to a lazy-initialisation wrapper.
struct RandomStream {
  static constexpr std::size_t kKeyBytes = 32;
  alignas(64) unsigned char block[kKeyBytes + kRandomBufferBytes];  // [key for next | output]
  unsigned char key[kKeyBytes];
  std::uint32_t avail;       // unread output bytes, at the end of block
  std::uint64_t epoch;       // fork_epoch() when this stream was seeded
  std::uint64_t since_seed;  // keystream bytes made since the last seeding
  std::uint64_t seeds;       // times this thread's stream was seeded
  bool seeded;
};

extern __thread RandomStream t_random_stream;

/// Refills (and seeds or reseeds when due) and then serves n bytes. Out of line: runs once
/// per 4 KiB, after a fork, or for requests larger than the buffer.
void random_fill_slow(void* out, std::size_t n) noexcept;

}  // namespace detail

/// Fills [out, out + n) with bytes from the calling thread's CSPRNG stream. Never fails:
/// if the OS cannot provide a seed at all, the process aborts rather than issue guessable IDs.
inline void random_fill(void* out, std::size_t n) noexcept {
  // The stream is named directly rather than bound to a reference: GCC 12 at -O1 with
  // -fsanitize=undefined spills such a reference and then reports it as null.
  using detail::t_random_stream;
  // The first test folds away for constant n and keeps the compiler from seeing an
  // out-of-bounds copy on a path that large requests never take.
  if (n <= kRandomBufferBytes && n <= t_random_stream.avail &&
      t_random_stream.epoch == detail::fork_epoch()) [[likely]] {
    unsigned char* p =
        t_random_stream.block + sizeof(t_random_stream.block) - t_random_stream.avail;
    std::memcpy(out, p, n);
    std::memset(p, 0, n);  // wipe what was handed out (forward secrecy)
    t_random_stream.avail -= static_cast<std::uint32_t>(n);
    return;
  }
  detail::random_fill_slow(out, n);
}

/// 64 uniformly random bits from the calling thread's stream.
inline std::uint64_t random_u64() noexcept {
  std::uint64_t v;
  random_fill(&v, sizeof v);
  return v;
}

/// Discards the calling thread's buffer and key and reseeds from getrandom() now.
void random_reseed() noexcept;

/// How many times the calling thread's stream has been seeded (0 before its first use).
std::uint64_t random_seed_count() noexcept;

}  // namespace idforge
