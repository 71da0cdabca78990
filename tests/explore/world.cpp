#include "world.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>

namespace idforge::explore {
namespace {

World* g_world = nullptr;

}  // namespace

World& world() noexcept {
  return *g_world;
}

void reset_world() noexcept {
  if (!g_world) {
    void* p =
        mmap(nullptr, sizeof(World), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) std::abort();
    g_world = static_cast<World*>(p);
  }
  // Plain data and lock-free atomics: all zero is their empty state.
  std::memset(static_cast<void*>(g_world), 0, sizeof(World));
}

const char* to_string(Point p) noexcept {
  switch (p) {
    case Point::claim:
      return "claim";
    case Point::fence_check:
      return "fence check";
    case Point::store_request:
      return "store request";
    case Point::store_reply:
      return "store reply";
    case Point::mark_read:
      return "mark read";
    case Point::mark_renamed:
      return "mark renamed";
    case Point::dir_synced:
      return "directory synced";
    case Point::lock_wait:
      return "lock wait";
    case Point::unlocked:
      return "unlocked";
    case Point::clock_read:
      return "clock read";
    case Point::clock_wait:
      return "clock wait";
    case Point::op_begin:
      return "begin";
    case Point::after_fork:
      return "after fork";
    case Point::child_started:
      return "child started";
    case Point::finished:
      return "finished";
  }
  return "?";
}

}  // namespace idforge::explore
