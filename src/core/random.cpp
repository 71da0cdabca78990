#include "idforge/random.hpp"

#include <fcntl.h>
#include <sodium.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace idforge {
namespace detail {

__thread RandomStream t_random_stream;

namespace {

// The only failure left after getrandom() and /dev/urandom both refuse is to stop: a
// generator that went on with a guessable key would hand out colliding or predictable IDs.
[[noreturn]] void die(const char* what) noexcept {
  std::fprintf(stderr, "idforge: cannot seed the CSPRNG: %s\n", what);
  std::abort();
}

void os_random(unsigned char* out, std::size_t n) noexcept {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = getrandom(out + got, n - got, 0);
    if (r > 0) {
      got += static_cast<std::size_t>(r);
    } else if (r < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // ENOSYS on a pre-3.17 kernel or a seccomp filter: try the device below
    }
  }
  if (got == n) return;
  const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) die("getrandom() failed and /dev/urandom cannot be opened");
  while (got < n) {
    const ssize_t r = ::read(fd, out + got, n - got);
    if (r > 0)
      got += static_cast<std::size_t>(r);
    else if (!(r < 0 && errno == EINTR))
      die("reading /dev/urandom failed");
  }
  ::close(fd);
}

void init_once() noexcept {
  static std::once_flag once;
  std::call_once(once, [] {
    // sodium_init() picks the fastest ChaCha20 code for this CPU (SSSE3/AVX2).
    if (sodium_init() < 0) die("sodium_init() failed");
    install_fork_handler();
  });
}

void seed(RandomStream& s) noexcept {
  init_once();
  sodium_memzero(s.block, sizeof s.block);
  os_random(s.key, sizeof s.key);
  s.avail = 0;
  s.since_seed = 0;
  s.epoch = fork_epoch();
  s.seeded = true;
  ++s.seeds;
}

void refill(RandomStream& s) noexcept {
  if (!s.seeded || s.epoch != fork_epoch() || s.since_seed >= kRandomReseedBytes) seed(s);
  // The key changes on every call (fast key erasure), so a zero nonce never repeats a
  // (key, nonce) pair.
  static constexpr unsigned char kNonce[crypto_stream_chacha20_NONCEBYTES] = {};
  crypto_stream_chacha20(s.block, sizeof s.block, kNonce, s.key);
  std::memcpy(s.key, s.block, RandomStream::kKeyBytes);
  sodium_memzero(s.block, RandomStream::kKeyBytes);
  s.avail = static_cast<std::uint32_t>(kRandomBufferBytes);
  s.since_seed += sizeof s.block;
}

}  // namespace

void random_fill_slow(void* out, std::size_t n) noexcept {
  RandomStream& s = t_random_stream;
  auto* dst = static_cast<unsigned char*>(out);
  if (!s.seeded || s.epoch != fork_epoch()) {
    seed(s);  // a forked child must not serve one byte of the parent's buffer
  }
  while (n > 0) {
    if (s.avail == 0) refill(s);
    const std::size_t take = n < s.avail ? n : s.avail;
    unsigned char* p = s.block + sizeof s.block - s.avail;
    std::memcpy(dst, p, take);
    sodium_memzero(p, take);
    s.avail -= static_cast<std::uint32_t>(take);
    dst += take;
    n -= take;
  }
}

}  // namespace detail

void random_reseed() noexcept {
  detail::seed(detail::t_random_stream);
}

std::uint64_t random_seed_count() noexcept {
  return detail::t_random_stream.seeds;
}

}  // namespace idforge
