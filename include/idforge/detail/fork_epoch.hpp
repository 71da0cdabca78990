// A process-wide fork epoch, so anything that must not be shared between parent and child
// (a node ID, a random stream, a lease) can notice a fork with two relaxed loads instead of
// a getpid() system call on every use.
//
// Two detectors, because either alone misses a case: a pthread_atfork child handler runs for
// fork() and os.fork(), and a page marked MADV_WIPEONFORK (Linux 4.14+) is zeroed by the
// kernel in every child, also one made by syscall(SYS_fork) or clone() without CLONE_VM,
// which skip the atfork handlers. A child of the second kind notices at its first read.
// Where madvise refuses MADV_WIPEONFORK (a kernel before 4.14, gVisor, a seccomp policy),
// the process ID stands in for the page: every read compares a cached pid with getpid(), a
// system call per read that only such processes pay.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace idforge::detail {

/// Incremented in every forked child once install_fork_handler() has run.
extern std::atomic<std::uint64_t> g_fork_epoch;

/// A word on a wipe-on-fork page: 1 in the process that set it, 0 in a child that has not
/// noticed its fork yet; null where the kernel lacks MADV_WIPEONFORK (atfork alone then).
extern std::atomic<std::atomic<std::uint64_t>*> g_fork_page;

/// Where no wipe-on-fork page could be had: the pid the epoch was last counted in (-1 while a
/// thread of a child is counting its fork); 0 where the page serves or nothing is installed.
extern std::atomic<pid_t> g_fork_pid;

/// Registers the pthread_atfork child handler and maps the wipe-on-fork page; idempotent and
/// thread-safe. Every type that reads fork_epoch() calls it in its constructor.
void install_fork_handler() noexcept;

/// A child whose page was wiped (a fork the atfork handler did not see): bumps the epoch
/// once, whichever thread of the child gets here first.
void notice_wiped_fork() noexcept;

/// A child whose pid differs from g_fork_pid (a fork without atfork handlers, where there
/// is no wipe-on-fork page): bumps the epoch once, whichever thread of the child gets here
/// first.
void notice_pid_fork() noexcept;

/// Drops the wipe-on-fork page and checks the pid instead, as where the kernel refuses
/// MADV_WIPEONFORK. For tests of that fallback; idempotent.
void use_pid_fork_check() noexcept;

/// The current fork epoch: differs in a child process after fork().
inline std::uint64_t fork_epoch() noexcept {
  const auto* page = g_fork_page.load(std::memory_order_acquire);
  if (page != nullptr) [[likely]] {
    if (page->load(std::memory_order_acquire) != 1) [[unlikely]]
      notice_wiped_fork();
  } else if (const pid_t pid = g_fork_pid.load(std::memory_order_acquire); pid != 0) {
    if (pid != ::getpid()) [[unlikely]]
      notice_pid_fork();
  }
  return g_fork_epoch.load(std::memory_order_acquire);
}

}  // namespace idforge::detail
