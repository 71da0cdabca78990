// Picks the text kernels once: every entry of g_text starts as a first-use resolver that asks the
// CPU what it has, installs the best path's table and calls on. A forced path (tests, fuzzers,
// benchmarks) replaces the whole table.
#include <atomic>

#include "idforge/detail/text_path.hpp"
#include "text_kernels.hpp"

namespace idforge::detail {
namespace {

std::atomic<TextPath> g_path{TextPath::scalar};

const TextKernels* kernels_of(TextPath path) noexcept {
  switch (path) {
    case TextPath::scalar:
      return &kScalarTextKernels;
#if IDFORGE_TEXT_X86
    case TextPath::ssse3:
      return &kSsse3TextKernels;
    case TextPath::avx2:
      return &kAvx2TextKernels;
#else
    case TextPath::ssse3:
    case TextPath::avx2:
      return nullptr;
#endif
  }
  return nullptr;
}

void install(TextPath path) noexcept {
  const TextKernels& k = *kernels_of(path);
  constexpr auto r = std::memory_order_relaxed;
  g_text.uuid_to_chars.store(k.uuid_to_chars, r);
  g_text.uuid_to_hex.store(k.uuid_to_hex, r);
  g_text.uuid_from_chars.store(k.uuid_from_chars, r);
  g_text.uuid_from_hex.store(k.uuid_from_hex, r);
  g_text.ulid_to_chars.store(k.ulid_to_chars, r);
  g_text.ulid_from_chars.store(k.ulid_from_chars, r);
  g_text.uuid_to_chars_n.store(k.uuid_to_chars_n, r);
  g_text.uuid_to_hex_n.store(k.uuid_to_hex_n, r);
  g_text.ulid_to_chars_n.store(k.ulid_to_chars_n, r);
  g_path.store(path, r);
}

TextPath best_path() noexcept {
  TextPath best = TextPath::scalar;
  for (TextPath p : kTextPaths)
    if (text_path_available(p)) best = p;
  return best;
}

// The first-use resolvers: the first call through any entry installs the best table (threads that
// race here install the same one) and then does its own work through it.
char* resolve_first_uuid_to_chars(const std::uint8_t* v, char* out) noexcept {
  use_best_text_path();
  return IDFORGE_TEXT_KERNEL(uuid_to_chars)(v, out);
}
char* resolve_first_uuid_to_hex(const std::uint8_t* v, char* out) noexcept {
  use_best_text_path();
  return IDFORGE_TEXT_KERNEL(uuid_to_hex)(v, out);
}
bool resolve_first_uuid_from_chars(const char* p, std::uint8_t* v) noexcept {
  use_best_text_path();
  return IDFORGE_TEXT_KERNEL(uuid_from_chars)(p, v);
}
bool resolve_first_uuid_from_hex(const char* p, std::uint8_t* v) noexcept {
  use_best_text_path();
  return IDFORGE_TEXT_KERNEL(uuid_from_hex)(p, v);
}
char* resolve_first_ulid_to_chars(const std::uint8_t* v, char* out) noexcept {
  use_best_text_path();
  return IDFORGE_TEXT_KERNEL(ulid_to_chars)(v, out);
}
bool resolve_first_ulid_from_chars(const char* p, std::uint8_t* v) noexcept {
  use_best_text_path();
  return IDFORGE_TEXT_KERNEL(ulid_from_chars)(p, v);
}
char* resolve_first_uuid_to_chars_n(const Bytes16* v, std::size_t n, const char* sep,
                                    std::size_t sep_size, char* out) noexcept {
  use_best_text_path();
  return IDFORGE_TEXT_KERNEL(uuid_to_chars_n)(v, n, sep, sep_size, out);
}
char* resolve_first_uuid_to_hex_n(const Bytes16* v, std::size_t n, const char* sep,
                                  std::size_t sep_size, char* out) noexcept {
  use_best_text_path();
  return IDFORGE_TEXT_KERNEL(uuid_to_hex_n)(v, n, sep, sep_size, out);
}
char* resolve_first_ulid_to_chars_n(const Bytes16* v, std::size_t n, const char* sep,
                                    std::size_t sep_size, char* out) noexcept {
  use_best_text_path();
  return IDFORGE_TEXT_KERNEL(ulid_to_chars_n)(v, n, sep, sep_size, out);
}

}  // namespace

constinit ActiveTextKernels g_text = {
    {resolve_first_uuid_to_chars},   {resolve_first_uuid_to_hex},   {resolve_first_uuid_from_chars},
    {resolve_first_uuid_from_hex},   {resolve_first_ulid_to_chars}, {resolve_first_ulid_from_chars},
    {resolve_first_uuid_to_chars_n}, {resolve_first_uuid_to_hex_n}, {resolve_first_ulid_to_chars_n},
};

const char* to_string(TextPath path) noexcept {
  switch (path) {
    case TextPath::scalar:
      return "scalar";
    case TextPath::ssse3:
      return "ssse3";
    case TextPath::avx2:
      return "avx2";
  }
  return "unknown";
}

bool text_path_available(TextPath path) noexcept {
  if (kernels_of(path) == nullptr) return false;
#if IDFORGE_TEXT_X86
  // __builtin_cpu_supports reads CPUID (and, for AVX2, whether the OS saves the YMM
  // registers) once per process; __builtin_cpu_init makes it safe before constructors run.
  __builtin_cpu_init();
  switch (path) {
    case TextPath::scalar:
      return true;
    case TextPath::ssse3:
      return __builtin_cpu_supports("ssse3");
    case TextPath::avx2:
      return __builtin_cpu_supports("avx2");
  }
  return false;
#else
  return path == TextPath::scalar;
#endif
}

TextPath text_path() noexcept {
  // Before the first call through g_text the first-use resolvers are in place: report what they
  // will pick.
  if (g_text.uuid_to_chars.load(std::memory_order_relaxed) == &resolve_first_uuid_to_chars)
    use_best_text_path();
  return g_path.load(std::memory_order_relaxed);
}

bool use_text_path(TextPath path) noexcept {
  if (!text_path_available(path)) return false;
  install(path);
  return true;
}

void use_best_text_path() noexcept {
  install(best_path());
}

}  // namespace idforge::detail
