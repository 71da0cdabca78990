// file:DIR — the embedded default. Node ID N is held by an exclusive flock() on
// DIR/node-N.lock; the kernel drops the lock when the holding process dies in any way
// (kill -9 included), so a crashed holder never blocks its node ID. flock() locks belong
// to an open file description, so two acquires in one process also get distinct IDs.
// The lock file's content says who holds it; the mark lives beside it in DIR/node-N.mark.
// Caveat: a child forked after acquire shares the description and therefore the lock.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "store_support.hpp"

namespace idforge::coord::detail {
namespace {

class FileStore final : public LeaseStore {
 public:
  FileStore(const LeaseUrl& url, Clock& clock) : url_(url.text), clock_(&clock) {
    url.allow_only({"ttl", "dc", "nodes"});
    settings_ = common_settings(url, 3000);
    dir_ = url.body.starts_with("//") ? url.body.substr(2) : url.body;  // file:///abs -> /abs
  }
  ~FileStore() override {
    for (const auto& [node, held] : held_) close(held.fd);
  }

  const std::string& url() const noexcept override { return url_; }
  std::int64_t ttl_ms() const noexcept override { return settings_.ttl_ms; }

  Lease acquire(const Layout& layout) override {
    make_dirs(dir_, url_);
    const NodeRange range = node_range(settings_, layout, url_);
    for (std::uint64_t i = 0; i < range.count; ++i) {
      const std::uint64_t node = range.first + i;
      const std::string path = lock_path(node);
      const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
      if (fd < 0)
        throw LeaseError(LeaseFailure::rejected, url_, "cannot open " + path + ": " + std::strerror(errno));
      if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int err = errno;
        close(fd);
        if (err == EWOULDBLOCK) continue;
        throw LeaseError(LeaseFailure::rejected, url_, "flock " + path + ": " + std::strerror(err));
      }
      Lease lease;
      set_node(lease, layout, node);
      lease.since_unix_ms = now_ms(*clock_);
      lease.holder = new_holder_id();
      lease.token = std::to_string(fd);
      try {
        lease.high_water_unix_ms = read_mark_file(mark_path(node), url_);
      } catch (...) {
        close(fd);
        throw;
      }
      const std::string info = holder_json(lease) + "\n";
      if (ftruncate(fd, 0) != 0 || pwrite(fd, info.data(), info.size(), 0) != static_cast<ssize_t>(info.size())) {
        close(fd);
        throw LeaseError(LeaseFailure::rejected, url_, "cannot write " + path + ": " + std::strerror(errno));
      }
      std::lock_guard lock(mu_);
      held_[node] = {fd, lease.high_water_unix_ms};
      return lease;
    }
    throw LeaseError(LeaseFailure::space_full, url_,
                     "all " + std::to_string(range.count) + " node IDs " + std::to_string(range.first) +
                         ".." + std::to_string(range.first + range.count - 1) + " under " + dir_ +
                         " are locked by live processes");
  }

  void renew(Lease& lease, std::int64_t mark) override {
    std::lock_guard lock(mu_);
    Held& held = find(lease);
    if (mark != kNoMark && mark > held.stored) {
      write_mark_file(mark_path(lease.node), mark, url_);
      held.stored = mark;
    }
  }

  void release(Lease& lease, std::int64_t mark) override {
    std::lock_guard lock(mu_);
    const auto it = held_.find(lease.node);
    if (it == held_.end() || std::to_string(it->second.fd) != lease.token) return;
    // The mark must be on disk before the lock goes, or the next holder could read the old one.
    if (mark != kNoMark) write_mark_file(mark_path(lease.node), mark, url_);
    if (ftruncate(it->second.fd, 0) != 0) { /* stale holder text is harmless: list checks the lock */ }
    close(it->second.fd);
    held_.erase(it);
  }

  std::vector<HolderInfo> list(const Layout& layout) override {
    std::vector<HolderInfo> rows;
    const NodeRange range = node_range(settings_, layout, url_);
    for (std::uint64_t i = 0; i < range.count; ++i) {
      const std::uint64_t node = range.first + i;
      const std::string path = lock_path(node);
      const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      // A shared lock we can take means nobody holds the exclusive one.
      const bool free = flock(fd, LOCK_SH | LOCK_NB) == 0;
      std::string text;
      if (!free) {
        char buf[1024];
        const ssize_t n = pread(fd, buf, sizeof buf, 0);
        if (n > 0) text.assign(buf, static_cast<std::size_t>(n));
      }
      close(fd);
      if (free) continue;
      HolderInfo row;
      set_node(row, layout, node);
      read_holder_json(text, row);
      row.high_water_unix_ms = read_mark_file(mark_path(node), url_);
      rows.push_back(std::move(row));
    }
    return rows;
  }

 private:
  struct Held {
    int fd = -1;
    std::int64_t stored = kNoMark;
  };
  Held& find(const Lease& lease) {
    const auto it = held_.find(lease.node);
    if (it == held_.end() || std::to_string(it->second.fd) != lease.token)
      throw LeaseError(LeaseFailure::lost, url_,
                       "node " + std::to_string(lease.node) + " is not held by this store (released?)");
    return it->second;
  }
  std::string lock_path(std::uint64_t node) const { return dir_ + "/node-" + std::to_string(node) + ".lock"; }
  std::string mark_path(std::uint64_t node) const { return dir_ + "/node-" + std::to_string(node) + ".mark"; }

  std::string url_;
  Clock* clock_;
  CommonSettings settings_;
  std::string dir_;
  std::mutex mu_;
  std::map<std::uint64_t, Held> held_;
};

}  // namespace

std::unique_ptr<LeaseStore> make_file_store(const LeaseUrl& url, Clock& clock) {
  return std::make_unique<FileStore>(url, clock);
}

}  // namespace idforge::coord::detail
