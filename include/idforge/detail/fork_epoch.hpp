// A process-wide counter that a pthread_atfork child handler bumps, so anything that must
// not be shared between parent and child (a node ID, a random stream) can notice a fork
// with one relaxed load instead of a getpid() system call on every use.
#pragma once

#include <atomic>
#include <cstdint>

namespace idforge::detail {

/// Incremented in every forked child once install_fork_handler() has run.
extern std::atomic<std::uint64_t> g_fork_epoch;

/// Registers the pthread_atfork child handler; idempotent and thread-safe. Every type that
/// reads fork_epoch() calls it in its constructor.
void install_fork_handler() noexcept;

/// The current fork epoch: differs in a child process after fork().
inline std::uint64_t fork_epoch() noexcept { return g_fork_epoch.load(std::memory_order_relaxed); }

}  // namespace idforge::detail
