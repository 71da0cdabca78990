// Points where the interleaving explorer (tests/explore) takes control of a thread: the
// claim and the fence check in the Snowflake generator, the requests of the file lease
// store and the durability steps of its mark file. Clock reads, waits and the Redis and
// etcd requests need no point here: the explorer drives them through its own Clock and its
// store doubles.
//
// The explorer compiles the library's sources a second time with IDFORGE_EXPLORE defined.
// Everywhere else IDFORGE_EXPLORE_POINT is the constant 0 and every point compiles to
// nothing, so the production hot path pays nothing for it.
#pragma once

#include <mutex>

namespace idforge::detail {

/// Where a thread is when it reaches a point.
enum class ExplorePoint {
  claim,          ///< generator: about to claim stamps (compare-and-swap)
  fence_check,    ///< generator: claimed, about to read the fence
  store_request,  ///< file store: a call begins (text: the call)
  store_reply,    ///< file store: a call is about to return
  mark_read,      ///< a mark file is about to be opened (text: path); may inject an errno
  mark_renamed,   ///< a mark file's new content was renamed into place (text: "path\ncontent")
  dir_synced,     ///< the directory of a mark file was fsync()ed (text: the directory)
  lock_wait,      ///< waiting for a mutex another thread holds (ExplorableMutex)
  unlocked,       ///< an ExplorableMutex was released (a note, not a place to park)
};

#ifdef IDFORGE_EXPLORE
/// Implemented by the explorer: parks the calling thread until the explorer lets it go on.
/// Returns an errno to inject at this point, or 0.
int explore_point(ExplorePoint point, const char* text) noexcept;
/// A point (a statement).
#define IDFORGE_EXPLORE_POINT(point, text) ((void)::idforge::detail::explore_point(point, text))
/// A point where the explorer may inject a failure: the errno to fail with, or 0.
#define IDFORGE_EXPLORE_FAULT(point, text) ::idforge::detail::explore_point(point, text)
/// A mutex whose waiters park at a point instead of blocking where the explorer cannot see.
class ExplorableMutex {
 public:
  void lock() {
    while (!m_.try_lock()) explore_point(ExplorePoint::lock_wait, nullptr);
  }
  bool try_lock() { return m_.try_lock(); }
  void unlock() {
    m_.unlock();
    explore_point(ExplorePoint::unlocked, nullptr);
  }

 private:
  std::mutex m_;
};
#else
/// A mutex whose waiters park at a point instead of blocking where the explorer cannot see.
using ExplorableMutex = std::mutex;
#define IDFORGE_EXPLORE_POINT(point, text) ((void)0)
#define IDFORGE_EXPLORE_FAULT(point, text) 0
#endif

}  // namespace idforge::detail
