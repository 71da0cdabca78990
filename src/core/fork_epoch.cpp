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
std::atomic<pid_t> g_fork_pid{0};

namespace {

// Page word states: 0 = wiped by a fork and not yet noticed, 1 = armed, 2 = a thread of the
// child is bumping the epoch (the others wait the few instructions that takes).
constexpr std::uint64_t kWiped = 0, kArmed = 1, kNoticing = 2;

void on_fork_child() noexcept {
  // The kernel wiped the page too; re-arm it so this fork is counted once, not twice.
  if (auto* page = g_fork_page.load(std::memory_order_acquire))
    page->store(kArmed, std::memory_order_release);
  // Counted here: the pid check must not count the same fork again.
  g_fork_epoch.fetch_add(1, std::memory_order_acq_rel);
  if (g_fork_pid.load(std::memory_order_acquire) != 0)
    g_fork_pid.store(getpid(), std::memory_order_release);
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

void notice_pid_fork() noexcept {
  // -1 while one thread counts: the others wait for its epoch rather than read the old one.
  const pid_t self = getpid();
  for (;;) {
    pid_t seen = g_fork_pid.load(std::memory_order_acquire);
    if (seen == self || seen == 0) return;
    if (seen != -1 && g_fork_pid.compare_exchange_strong(seen, -1, std::memory_order_acq_rel)) {
      g_fork_epoch.fetch_add(1, std::memory_order_acq_rel);
      g_fork_pid.store(self, std::memory_order_release);
      return;
    }
    std::this_thread::yield();
  }
}

void install_fork_handler() noexcept {
  static std::once_flag once;
  std::call_once(once, [] {
    // The pid first: a reader that finds no page must find the pid check armed.
    g_fork_pid.store(getpid(), std::memory_order_release);
    auto* page = map_wipe_on_fork_page();
    g_fork_page.store(page, std::memory_order_release);
    if (page != nullptr) g_fork_pid.store(0, std::memory_order_release);
    pthread_atfork(nullptr, nullptr, &on_fork_child);
  });
}

void use_pid_fork_check() noexcept {
  install_fork_handler();
  if (g_fork_pid.load(std::memory_order_acquire) != 0) return;
  // The page stays mapped (a reader may hold its address); it is no longer consulted.
  g_fork_pid.store(getpid(), std::memory_order_release);
  g_fork_page.store(nullptr, std::memory_order_release);
}

}  // namespace idforge::detail
