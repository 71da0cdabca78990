// The text kernels in use (see text_path.hpp): one atomic function pointer per operation, so
// that Uuid::to_chars, parse_uuid and their ULID twins inline to one load and one indirect
// call into the code path chosen for this CPU. Relaxed loads are plain moves on x86-64.
// Each pointer starts at a first-use resolver that picks the best path on first use.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace idforge::detail {

using Bytes16 = std::array<std::uint8_t, 16>;

/// Writes the text of one 16-byte value at out; returns the end.
using WriteFn = char* (*)(const std::uint8_t* value, char* out) noexcept;
/// Reads one text of the operation's fixed length; true (value written) if well formed,
/// false (value untouched) otherwise.
using ReadFn = bool (*)(const char* text, std::uint8_t* value) noexcept;
/// Writes n values with sep (sep_size bytes) between two; returns the end.
using WriteNFn = char* (*)(const Bytes16* values, std::size_t n, const char* sep,
                           std::size_t sep_size, char* out) noexcept;

struct ActiveTextKernels {
  std::atomic<WriteFn> uuid_to_chars;   // 36: 8-4-4-4-12, lowercase
  std::atomic<WriteFn> uuid_to_hex;     // 32 lowercase hex digits
  std::atomic<ReadFn> uuid_from_chars;  // 36, either case
  std::atomic<ReadFn> uuid_from_hex;    // 32, either case
  std::atomic<WriteFn> ulid_to_chars;   // 26 uppercase Crockford base32
  std::atomic<ReadFn> ulid_from_chars;  // 26
  std::atomic<WriteNFn> uuid_to_chars_n;
  std::atomic<WriteNFn> uuid_to_hex_n;
  std::atomic<WriteNFn> ulid_to_chars_n;
};

extern ActiveTextKernels g_text;

}  // namespace idforge::detail

/// The kernel in use for operation m of ActiveTextKernels.
#define IDFORGE_TEXT_KERNEL(m) (::idforge::detail::g_text.m.load(std::memory_order_relaxed))
