#include "idforge/detail/ms_reader.hpp"

#if IDFORGE_MS_READER_TSC
#include <cpuid.h>
#include <sys/prctl.h>
#endif

namespace idforge::detail {
namespace {

// The rate check: over at least this much clock time, the TSC must have run at 0.5 GHz or
// faster (twice the rate the windows assume) before any window opens.
constexpr std::int64_t kCheckSpanNs = 10'000'000;
constexpr std::uint64_t kMinCheckedTicksPerNsDivisor = 2;

bool probe_tsc() noexcept {
#if IDFORGE_MS_READER_TSC
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_max(0x80000000u, nullptr) < 0x80000007u) return false;
  __cpuid(0x80000007u, eax, ebx, ecx, edx);
  if ((edx & (1u << 8)) == 0) return false;  // no invariant TSC: its rate may change
  int mode = 0;
  // A process may have made rdtsc fault (PR_TSC_SIGSEGV); then the TSC is not ours to read.
  if (prctl(PR_GET_TSC, &mode, 0, 0, 0) == 0 && mode != PR_TSC_ENABLE) return false;
  return true;
#else
  return false;
#endif
}

}  // namespace

bool tsc_windows_supported() noexcept {
  static const bool supported = probe_tsc();
  return supported;
}

MsReader::MsReader(Clock& clock) noexcept
    : clock_(clock), tsc_(ClockRef(clock).is_system() && tsc_windows_supported()) {}

std::int64_t MsReader::read_clock(std::uint64_t t) noexcept {
  const std::int64_t ns = realtime_ns();  // tsc_ is set only for the system clock
  if (checked_) [[likely]] {
    window_ = MsWindow::open(t, ns);
    return window_.ms;
  }
  // The check's TSC interval lies inside its clock interval (the first TSC read follows the
  // first clock read, the last precedes the last), so the rate it sees is at most the true
  // one. A preemption between the reads, or a clock stepped forward, makes the TSC look
  // slower: then the check starts over, and windows stay shut meanwhile.
  if (first_ns_ != 0 && ns - first_ns_ >= kCheckSpanNs &&
      (t - first_tsc_) * kMinCheckedTicksPerNsDivisor >=
          static_cast<std::uint64_t>(ns - first_ns_)) {
    checked_ = true;
  } else if (first_ns_ == 0 || ns - first_ns_ >= kCheckSpanNs || ns < first_ns_) {
    first_ns_ = ns;
    first_tsc_ = read_tsc();
  }
  return unix_ms_of(ns);
}

}  // namespace idforge::detail
