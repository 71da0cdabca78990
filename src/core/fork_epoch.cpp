#include "idforge/detail/fork_epoch.hpp"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mutex>
#include <new>
#include <thread>

namespace idforge::detail {

std::atomic<std::uint64_t> g_fork_epoch{0};
std::atomic<std::atomic<std::uint64_t>*> g_fork_page{nullptr};

namespace {

// Page word states: 0 = wiped by a fork and not yet noticed, 1 = armed, 2 = a thread of the
// child is bumping the epoch (the others wait the few instructions that takes).
constexpr std::uint64_t kWiped = 0, kArmed = 1, kNoticing = 2;

void on_fork_child() noexcept {
  // The kernel wiped the page too; re-arm it so this fork is counted once, not twice.
  if (auto* page = g_fork_page.load(std::memory_order_acquire))
    page->store(kArmed, std::memory_order_release);
  g_fork_epoch.fetch_add(1, std::memory_order_acq_rel);
}

std::atomic<std::uint64_t>* map_wipe_on_fork_page() noexcept {
  const long size = sysconf(_SC_PAGESIZE);
  void* p = mmap(nullptr, static_cast<std::size_t>(size > 0 ? size : 4096), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
#ifdef MADV_WIPEONFORK
  if (madvise(p, static_cast<std::size_t>(size > 0 ? size : 4096), MADV_WIPEONFORK) == 0) {
    auto* word = new (p) std::atomic<std::uint64_t>(kArmed);
    return word;
  }
#endif
  munmap(p, static_cast<std::size_t>(size > 0 ? size : 4096));
  return nullptr;
}

}  // namespace

void notice_wiped_fork() noexcept {
  std::atomic<std::uint64_t>& page = *g_fork_page.load(std::memory_order_acquire);
  for (;;) {
    std::uint64_t seen = kWiped;
    if (page.compare_exchange_strong(seen, kNoticing, std::memory_order_acq_rel)) {
      g_fork_epoch.fetch_add(1, std::memory_order_acq_rel);
      page.store(kArmed, std::memory_order_release);
      return;
    }
    if (seen == kArmed) return;
    std::this_thread::yield();  // another thread of this child is bumping the epoch
  }
}

void install_fork_handler() noexcept {
  static std::once_flag once;
  std::call_once(once, [] {
    g_fork_page.store(map_wipe_on_fork_page(), std::memory_order_release);
    pthread_atfork(nullptr, nullptr, &on_fork_child);
  });
}

}  // namespace idforge::detail
