#include "idforge/detail/fork_epoch.hpp"

#include <pthread.h>

#include <mutex>

namespace idforge::detail {

std::atomic<std::uint64_t> g_fork_epoch{0};

namespace {
void on_fork_child() noexcept { g_fork_epoch.fetch_add(1, std::memory_order_relaxed); }
}  // namespace

void install_fork_handler() noexcept {
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(nullptr, nullptr, &on_fork_child); });
}

}  // namespace idforge::detail
