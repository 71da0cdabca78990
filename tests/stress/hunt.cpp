#include "hunt.hpp"

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace idforge::stress {

void FaultClock::wait_until_ns(std::int64_t t) noexcept {
  // Bounded by the caller's policy (the generator waits at most a few ms); a step that
  // lands meanwhile is seen on the next read.
  while (now_ns() < t) SystemClock::instance().wait_until_ns(realtime_ns() + (t - now_ns()));
}

std::string HuntReport::to_line() const {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%-28s attempted %12llu  acknowledged %12llu  refused %8llu  duplicated %llu  "
                "order violations %llu",
                generator.c_str(), static_cast<unsigned long long>(attempted),
                static_cast<unsigned long long>(acknowledged),
                static_cast<unsigned long long>(refused),
                static_cast<unsigned long long>(duplicated),
                static_cast<unsigned long long>(order_violations));
  return buf;
}

HuntReport& HuntReport::operator+=(const HuntReport& o) {
  attempted += o.attempted, acknowledged += o.acknowledged, refused += o.refused;
  duplicated += o.duplicated, order_violations += o.order_violations;
  return *this;
}

Profile profile_from_env() {
  const char* p = std::getenv("IDFORGE_STRESS_PROFILE");
  if (p != nullptr && std::string_view(p) == "long")
    // 4 processes x 2 threads x 2 rounds x 128M = 1.07e9 Snowflake IDs, each process at its
    // node's ceiling (4,096,000/s): about 65 s a round.
    return {true, 268'435'456, 4, 2, 25'000'000, 2};
  return {false, 2'000'000, 2, 2, 200'000, 2};
}

void publish(const HuntReport& r) {
  const std::string line = r.to_line();
  std::printf("hunt: %s\n", line.c_str());
  if (const char* path = std::getenv("IDFORGE_HUNT_REPORT")) {
    if (FILE* f = std::fopen(path, "a")) {
      std::fprintf(f, "%s\n", line.c_str());
      std::fclose(f);
    }
  }
}

}  // namespace idforge::stress
