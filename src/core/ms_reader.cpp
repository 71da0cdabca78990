#include "idforge/detail/ms_reader.hpp"

#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#if IDFORGE_MS_READER_TSC
#include <cpuid.h>
#include <sys/prctl.h>
#endif

namespace idforge::detail {
namespace {

// How often a reader whose windows are open looks at the kernel's clocksource again.
constexpr std::int64_t kSourceRecheckNs = 1'000'000'000;

std::int64_t raw_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

bool probe_tsc() noexcept {
#if IDFORGE_MS_READER_TSC
  if (const char* env = std::getenv("IDFORGE_TSC_CLOCK");
      env != nullptr && std::strcmp(env, "0") == 0)
    return false;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (static_cast<unsigned>(__get_cpuid_max(0x80000000u, nullptr)) < 0x80000007u) return false;
  __cpuid(0x80000007u, eax, ebx, ecx, edx);
  if ((edx & (1u << 8)) == 0) return false;  // no invariant TSC: its rate may change
  int mode = 0;
  // A process may have made rdtsc fault (PR_TSC_SIGSEGV); then the TSC is not ours to read.
  if (prctl(PR_GET_TSC, &mode, 0, 0, 0) == 0 && mode != PR_TSC_ENABLE) return false;
  return kernel_clocksource_is_tsc();
#else
  return false;
#endif
}

}  // namespace

bool kernel_clocksource_is_tsc() noexcept {
  std::FILE* f =
      std::fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
  if (f == nullptr) return false;
  char name[64];
  const std::size_t n = std::fread(name, 1, sizeof name, f);
  std::fclose(f);
  return n < sizeof name && is_tsc_clocksource(std::string_view(name, n));
}

bool tsc_windows_supported() noexcept {
  static const bool supported = probe_tsc();
  return supported;
}

MsReader::MsReader(Clock& clock) noexcept
    : clock_(clock), tsc_(ClockRef(clock).is_system() && tsc_windows_supported()) {}

std::int64_t MsReader::read_clock(std::uint64_t t) noexcept {
  const std::int64_t ns = realtime_ns();  // tsc_ is set only for the system clock
  if (checked_) [[likely]] {
    // Every second, the clocksource once more: if the kernel gave up the TSC (its watchdog
    // found the counters disagreeing), so does this reader, before opening another window.
    if (ns - source_checked_ns_ >= kSourceRecheckNs || ns < source_checked_ns_) [[unlikely]] {
      if (!kernel_clocksource_is_tsc()) {
        tsc_ = checked_ = false;
        window_ = {};
        return unix_ms_of(ns);
      }
      source_checked_ns_ = ns;
    }
    window_ = MsWindow::open(t, ns);
    return window_.ms;
  }
  // The rate check against CLOCK_MONOTONIC_RAW, which no clock step or NTP slew moves. Its
  // TSC interval lies inside its clock interval (the first TSC read follows the first clock
  // read, the last, t, precedes the last), so the rate it sees is at most the true one.
  const std::int64_t raw = raw_ns();
  if (first_raw_ns_ != 0 && tsc_rate_checked(t - first_tsc_, raw - first_raw_ns_)) {
    checked_ = true;
    source_checked_ns_ = ns;
  } else if (first_raw_ns_ == 0 || raw - first_raw_ns_ >= 10'000'000) {
    first_raw_ns_ = raw;
    first_tsc_ = read_tsc();
  }
  return unix_ms_of(ns);
}

}  // namespace idforge::detail
