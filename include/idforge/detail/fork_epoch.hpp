// A process-wide fork epoch, so anything that must not be shared between parent and child
// (a node ID, a random stream, a lease) can notice a fork with two relaxed loads instead of
// a getpid() system call on every use.
//
// Two detectors, because either alone misses a case: a pthread_atfork child handler runs for
// fork() and os.fork(), and a page marked MADV_WIPEONFORK (Linux 4.14+) is zeroed by the
// kernel in every child, also one made by syscall(SYS_fork) or clone() without CLONE_VM,
// which skip the atfork handlers. A child of the second kind notices at its first read.
#pragma once

#include <atomic>
#include <cstdint>

namespace idforge::detail {

/// Incremented in every forked child once install_fork_handler() has run.
extern std::atomic<std::uint64_t> g_fork_epoch;

/// A word on a wipe-on-fork page: 1 in the process that set it, 0 in a child that has not
/// noticed its fork yet; null where the kernel lacks MADV_WIPEONFORK (atfork alone then).
extern std::atomic<std::atomic<std::uint64_t>*> g_fork_page;

/// Registers the pthread_atfork child handler and maps the wipe-on-fork page; idempotent and
/// thread-safe. Every type that reads fork_epoch() calls it in its constructor.
void install_fork_handler() noexcept;

/// A child whose page was wiped (a fork the atfork handler did not see): bumps the epoch
/// once, whichever thread of the child gets here first.
void notice_wiped_fork() noexcept;

/// The current fork epoch: differs in a child process after fork().
inline std::uint64_t fork_epoch() noexcept {
  const auto* page = g_fork_page.load(std::memory_order_acquire);
  if (page != nullptr && page->load(std::memory_order_acquire) != 1) [[unlikely]]
    notice_wiped_fork();
  return g_fork_epoch.load(std::memory_order_acquire);
}

}  // namespace idforge::detail
