// file:DIR — the embedded default. Node ID N is held by an exclusive flock() on
// DIR/node-N.lock; the kernel drops the lock when the holding process dies in any way
// (kill -9 included), so a crashed holder never blocks its node ID. flock() locks belong
// to an open file description, so two acquires in one process also get distinct IDs.
// The lock file's content says who holds it; the mark lives beside it in DIR/node-N.mark.
//
// A lock file deleted or replaced by hand no longer names the file its holder has locked,
// and a newcomer would lock a fresh file under the same name. Two defences:
//  - the holder gives its locked file a second name, DIR/node-N.lock.<nonce> (a hard link);
//    a newcomer that finds such a name locked by someone else leaves the node alone, so a
//    node whose holder is alive cannot be taken while either name remains;
//  - at every renewal the holder compares fstat() of its descriptor with stat() of the path,
//    after storing the mark; when they differ it reports the lease lost, and the keeper
//    fences the generator for good. (A newcomer reads the mark after locking, so it reads
//    at least every mark the holder stored before it noticed.)
// Both names deleted at once: undetectable by a newcomer until the holder's next renewal.
// A child forked after acquire would share the lock (the description): fork() points the
// child's copies of the lock descriptors at /dev/null (track_lock), and the store refuses
// every call in the child (ForkGuard), so the child neither keeps the parent's node locked
// nor touches its files. (A child of syscall(SYS_fork) skips the atfork handler and keeps
// its share of the lock until it exits; the store still refuses it.)
// The whole folder deleted (`rm -rf`) under a running holder: its generation record
// (DIR/generation, store_generation.hpp) goes with it. The holder's next renewal fails
// (lost); a newcomer that finds no record creates one, and if a beacon of an earlier holder
// of this path is still bound it records the time, so every holder that starts on the new
// folder waits until the old holder's reservation has run out.
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <random>

#include "idforge/detail/explore.hpp"
#include "store_generation.hpp"
#include "store_support.hpp"

namespace idforge::coord::detail {
namespace {

using idforge::detail::ExplorePoint;

bool same_file(const struct stat& a, const struct stat& b) noexcept {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// Whether path still names the file open as fd.
bool names(const std::string& path, int fd) noexcept {
  struct stat held, named;
  return fstat(fd, &held) == 0 && stat(path.c_str(), &named) == 0 && same_file(held, named);
}

std::string read_text(int fd) {
  char buf[1024];
  const ssize_t n = pread(fd, buf, sizeof buf, 0);
  std::string text = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  return text;
}

// Lock descriptors this process holds. A child forked without exec() (O_CLOEXEC covers
// exec) inherits them and with them a share in each flock(): a child that outlives the
// parent's release would keep the node locked for everyone. The atfork child handler points
// each at /dev/null, so the numbers stay valid for the store's own close() but the child no
// longer shares the lock. Slots hold fd + 1 (0 = free); a full table only loses this defence.
constexpr std::size_t kHeldLockSlots = 1024;
std::atomic<int> g_held_locks[kHeldLockSlots];
int g_dev_null = -1;

void on_fork_child_drop_locks() noexcept {
  for (auto& slot : g_held_locks) {
    const int v = slot.load(std::memory_order_relaxed);
    if (v == 0) continue;
    if (g_dev_null >= 0) dup2(g_dev_null, v - 1);  // async-signal-safe, atomic per number
    slot.store(0, std::memory_order_relaxed);      // the child's numbers may be reused later
  }
}

void track_lock(int fd) noexcept {
  static std::once_flag once;
  std::call_once(once, [] {
    g_dev_null = open("/dev/null", O_RDWR | O_CLOEXEC);
    pthread_atfork(nullptr, nullptr, &on_fork_child_drop_locks);
  });
  for (auto& slot : g_held_locks) {
    int free_slot = 0;
    if (slot.compare_exchange_strong(free_slot, fd + 1, std::memory_order_acq_rel)) return;
  }
}

// Closes a lock descriptor that track_lock() may have recorded.
void close_lock(int fd) noexcept {
  for (auto& slot : g_held_locks) {
    int mine = fd + 1;
    if (slot.compare_exchange_strong(mine, 0, std::memory_order_acq_rel)) break;
  }
  close(fd);
}

std::string nonce() {
  std::random_device rd;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%08x%08x", rd(), rd());
  return buf;
}

class FileStore final : public StoreBase {
 public:
  FileStore(const LeaseUrl& url, Clock& clock)
      : StoreBase(url.text, clock, read_settings(url)),
        dir_(url.body.starts_with("//") ? url.body.substr(2) : url.body) {}  // file:///abs
  ~FileStore() override {
    // In a forked child these are the child's copies: closing them leaves the parent's locks.
    for (const auto& [node, held] : held_) close_lock(held.fd);
  }

  Lease acquire(const Layout& layout) override {
    const NodeRange range = acquire_range(layout);
    make_dirs(dir_, url_);
    std::lock_guard lock(mu_);
    IDFORGE_EXPLORE_POINT(ExplorePoint::store_request, "acquire");
    read_or_create_generation();
    for (std::uint64_t i = 0; i < range.count; ++i) {
      std::string held_by;
      if (auto lease = try_take(layout, range.first + i, held_by)) {
        IDFORGE_EXPLORE_POINT(ExplorePoint::store_reply, "acquire");
        return *lease;
      }
    }
    throw LeaseError(LeaseFailure::space_full, url_,
                     "all " + std::to_string(range.count) + " node IDs " +
                         std::to_string(range.first) + ".." +
                         std::to_string(range.first + range.count - 1) + " under " + dir_ +
                         " are locked by live processes");
  }

  Lease acquire_node(const Layout& layout, std::uint64_t node) override {
    guard_.check(url_);
    check_fixed_node(layout, node, settings_, url_);
    make_dirs(dir_, url_);
    std::lock_guard lock(mu_);
    IDFORGE_EXPLORE_POINT(ExplorePoint::store_request, "acquire_node");
    read_or_create_generation();
    std::string held_by;
    if (auto lease = try_take(layout, node, held_by)) {
      IDFORGE_EXPLORE_POINT(ExplorePoint::store_reply, "acquire_node");
      return *lease;
    }
    throw LeaseError(LeaseFailure::held, url_,
                     "node " + std::to_string(node) + " is locked under " + dir_ +
                         " by a live process (" +
                         (held_by.empty() ? std::string("holder unknown") : held_by) +
                         "); a node ID configured twice would issue the same IDs twice");
  }

  void renew(Lease& lease, std::int64_t mark) override {
    guard_.check(url_);
    std::lock_guard lock(mu_);
    IDFORGE_EXPLORE_POINT(ExplorePoint::store_request, "renew");
    Held& held = find(lease);
    if (mark != kNoMark && mark > held.stored) {
      write_mark_file(mark_path(lease.node), mark, url_, held.layout);
      held.stored = mark;
    }
    // After the mark is stored: a newcomer locks first and reads the mark after, so if the
    // path still names our file now, no newcomer can have missed this mark.
    const std::string path = lock_path(lease.node);
    if (!names(path, held.fd))
      throw LeaseError(
          LeaseFailure::lost, url_,
          path + " no longer names the file this process holds locked for node " +
              std::to_string(lease.node) +
              " (deleted or replaced by hand), so another process could take the node; this "
              "holder stops issuing");
    struct stat gen;
    if (held.generation.st_ino != 0 &&
        (stat(generation_path().c_str(), &gen) != 0 || !same_file(gen, held.generation)))
      throw LeaseError(LeaseFailure::lost, url_,
                       "store state lost: " + generation_path() +
                           " is gone or was replaced (the folder was deleted or replaced), so "
                           "another process could take node " +
                           std::to_string(lease.node) + "; this holder stops issuing");
    if (!held.alias.empty() && !names(held.alias, held.fd))
      held.alias = make_alias(lease.node, held.fd);
    IDFORGE_EXPLORE_POINT(ExplorePoint::store_reply, "renew");
  }

  void release(Lease& lease, std::int64_t mark) override {
    guard_.check(url_);
    std::lock_guard lock(mu_);
    const auto it = held_.find(lease.node);
    if (it == held_.end() || std::to_string(it->second.fd) != lease.token) return;
    IDFORGE_EXPLORE_POINT(ExplorePoint::store_request, "release");
    Held& held = it->second;
    // The mark must be on disk before the lock goes, or the next holder could read the old
    // one; and it is written only while our file is the node's, never over a newcomer's.
    const bool ours = names(lock_path(lease.node), held.fd);
    if (ours && mark != kNoMark) write_mark_file(mark_path(lease.node), mark, url_, held.layout);
    if (!held.alias.empty()) unlink(held.alias.c_str());
    if (ours &&
        ftruncate(held.fd, 0) != 0) { /* stale holder text is harmless: list checks the lock */
    }
    close_lock(held.fd);
    held_.erase(it);
    IDFORGE_EXPLORE_POINT(ExplorePoint::store_reply, "release");
  }

  bool initialize() override {
    guard_.check(url_);
    make_dirs(dir_, url_);
    std::lock_guard lock(mu_);
    const std::string key = folder_key();
    // A live holder of this path (its folder deleted under it, say) is what the record
    // would be taken on trust against: refuse.
    if (beacon_seen(key, beacon_.get()))
      throw LeaseError(LeaseFailure::rejected, url_,
                       "a live process holds a lease of " + key +
                           " (its presence socket is bound): `lease init` is for a folder no "
                           "holder uses; let the next holder wait out the window instead");
    return create_generation(kNoMark);
  }

  std::vector<HolderInfo> list(const Layout& layout) override {
    guard_.check(url_);
    struct stat st;
    if (stat(dir_.c_str(), &st) != 0)
      throw LeaseError(LeaseFailure::rejected, url_,
                       "cannot read lease directory " + dir_ + ": " + std::strerror(errno));
    if (!S_ISDIR(st.st_mode))
      throw LeaseError(LeaseFailure::rejected, url_,
                       "lease directory " + dir_ + " is not a directory");
    std::vector<HolderInfo> rows;
    const NodeRange range = node_range(settings_, layout, url_);
    const auto aliases = alias_names();
    for (std::uint64_t i = 0; i < range.count; ++i) {
      const std::uint64_t node = range.first + i;
      std::optional<std::string> text = holder_text(lock_path(node));
      if (!text) {
        // A live holder whose lock file was deleted or replaced still answers to its alias.
        const auto a = aliases.find(node);
        for (std::size_t k = 0; !text && a != aliases.end() && k < a->second.size(); ++k)
          text = holder_text(a->second[k]);
      }
      if (!text) continue;
      HolderInfo row;
      set_node(row, layout, node);
      read_holder_json(*text, row);
      row.high_water_unix_ms = read_mark_file(mark_path(node), url_);
      rows.push_back(std::move(row));
    }
    return rows;
  }

 private:
  struct Held {
    int fd = -1;
    std::int64_t stored = kNoMark;
    std::string alias;   // the second name of the locked file; "" where links are not possible
    std::string layout;  // mark_layout_spec() of the layout it was taken for, kept in its mark
    struct stat generation {};  // the generation record found at acquire (st_ino 0: none)
  };

  std::string generation_path() const { return dir_ + "/generation"; }

  // Reads DIR/generation, or creates it (see the top of the file): into generation_,
  // generation_stat_ and reset_ms_. mu_ held.
  void read_or_create_generation() {
    const std::string path = generation_path();
    if (!beacon_) beacon_key_ = folder_key();
    for (int attempt = 0; attempt < 3; ++attempt) {
      const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
      if (fd >= 0) {
        struct stat st;
        const bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
        const std::string text = regular ? read_text(fd) : std::string();
        close(fd);
        if (!regular)
          throw LeaseError(LeaseFailure::rejected, url_,
                           "generation record " + path + " is not a regular file; remove it");
        parse_generation(text, path);
        generation_stat_ = st;
        break;
      }
      if (errno != ENOENT)
        throw LeaseError(LeaseFailure::rejected, url_,
                         "cannot open " + path + ": " + std::strerror(errno));
      // No record: a fresh folder, or one deleted under live holders. A beacon of an earlier
      // holder of this path tells the two apart.
      const bool earlier = beacon_seen(beacon_key_, beacon_.get());
      (void)create_generation(earlier ? now_ms(*clock_) : kNoMark);  // or another's: reread
    }
    if (!beacon_) beacon_ = std::make_unique<PresenceBeacon>(beacon_key_);
  }

  // The folder's absolute path, which names its beacon: a folder re-created under the same
  // path is the same store to every holder.
  std::string folder_key() const {
    char* real = realpath(dir_.c_str(), nullptr);
    std::string key = real ? std::string(real) : dir_;
    std::free(real);
    return key;
  }

  // Creates DIR/generation with a fresh ID and reset (kNoMark: "none"); false if one exists.
  // Written in full under a temporary name, then linked: link() creates the record only if
  // none exists, so two newcomers agree on one, and no reader sees half of it. mu_ held.
  bool create_generation(std::int64_t reset) {
    const std::string path = generation_path();
    const std::string tmp = path + ".tmp." + nonce();
    write_whole_file(tmp, "generation " + new_generation_id() + "\nreset " +
                              (reset == kNoMark ? std::string("none") : std::to_string(reset)) +
                              "\n");
    const int linked = link(tmp.c_str(), path.c_str());
    const int err = errno;
    unlink(tmp.c_str());
    if (linked != 0 && err == EEXIST) return false;
    if (linked != 0)
      throw LeaseError(LeaseFailure::rejected, url_,
                       "cannot create " + path + ": " + std::strerror(err));
    sync_folder();
    return true;
  }

  void parse_generation(const std::string& text, const std::string& path) {
    // "generation HEX\nreset MS|none"
    const auto nl = text.find('\n');
    const std::string first = text.substr(0, nl);
    const std::string second = nl == std::string::npos ? std::string() : text.substr(nl + 1);
    std::int64_t reset = kNoMark;
    bool ok = first.starts_with("generation ") && first.size() > 11 && second.starts_with("reset ");
    if (ok && second != "reset none") {
      const std::string_view digits = std::string_view(second).substr(6);
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), reset);
      ok = ec == std::errc{} && end == digits.data() + digits.size() && reset > 0;
    }
    if (!ok)
      throw LeaseError(LeaseFailure::rejected, url_,
                       "generation record " + path + " holds '" + shown_bytes(text) +
                           "', not 'generation HEX' and 'reset MS|none' lines; remove it (the "
                           "next start then waits as after a lost folder)");
    generation_ = first.substr(11);
    reset_ms_ = reset;
  }

  void write_whole_file(const std::string& path, const std::string& text) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
      throw LeaseError(LeaseFailure::rejected, url_,
                       "cannot create " + path + ": " + std::strerror(errno));
    const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                    fdatasync(fd) == 0;
    const int err = errno;
    close(fd);
    if (!ok) {
      unlink(path.c_str());
      throw LeaseError(LeaseFailure::rejected, url_,
                       "cannot write " + path + ": " + std::strerror(err));
    }
  }

  void sync_folder() {
    const int fd = open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    (void)fsync(fd);  // the record only shortens a later wait; a lost one is made again
    close(fd);
  }

  // Locks node's file and takes the node, or returns nullopt with who holds it. mu_ held.
  std::optional<Lease> try_take(const Layout& layout, std::uint64_t node, std::string& held_by) {
    const std::string path = lock_path(node);
    for (int attempt = 0; attempt < 4; ++attempt) {
      // O_NONBLOCK and O_NOFOLLOW: a FIFO, device or link put there must not hang or
      // redirect start-up; the lock is only ever a regular file this store created.
      const int fd =
          open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW, 0644);
      if (fd < 0 && errno == ELOOP)
        throw LeaseError(
            LeaseFailure::rejected, url_,
            "lock file " + path + " is a symbolic link, not a regular file; remove it");
      if (fd < 0)
        throw LeaseError(LeaseFailure::rejected, url_,
                         "cannot open " + path + ": " + std::strerror(errno));
      struct stat st;
      if (fstat(fd, &st) == 0 && !file_kind_words(st.st_mode).empty()) {
        close(fd);
        throw LeaseError(LeaseFailure::rejected, url_,
                         "lock file " + path + " is " + file_kind_words(st.st_mode) +
                             ", not a regular file; remove it");
      }
      if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int err = errno;
        held_by = err == EWOULDBLOCK ? read_text(fd) : std::string();
        close(fd);
        if (err == EWOULDBLOCK) return std::nullopt;
        throw LeaseError(LeaseFailure::rejected, url_, "flock " + path + ": " + std::strerror(err));
      }
      if (!names(path, fd)) {  // replaced between open and flock: lock what the name names now
        close(fd);
        continue;
      }
      if (auto live = live_holder_of_another_file(node, fd)) {
        held_by = *live;
        close(fd);
        return std::nullopt;
      }
      try {
        Lease lease;
        set_node(lease, layout, node);
        lease.since_unix_ms = now_ms(*clock_);
        lease.holder = new_holder_id();
        lease.token = std::to_string(fd);
        const MarkRecord record = read_mark_record(mark_path(node), url_);
        check_mark_layout(record, layout, "high-water mark file " + mark_path(node), url_);
        lease.high_water_unix_ms = record.mark;
        lease.generation = generation_;
        lease.store_reset_unix_ms = reset_ms_;
        const std::string info = holder_json(lease) + "\n";
        if (ftruncate(fd, 0) != 0 ||
            pwrite(fd, info.data(), info.size(), 0) != static_cast<ssize_t>(info.size()))
          throw LeaseError(LeaseFailure::rejected, url_,
                           "cannot write " + path + ": " + std::strerror(errno));
        held_[node] = {fd, lease.high_water_unix_ms, make_alias(node, fd), mark_layout_spec(layout),
                       generation_stat_};
        track_lock(fd);
        return lease;
      } catch (...) {
        close(fd);
        throw;
      }
    }
    throw LeaseError(LeaseFailure::rejected, url_,
                     path + " was replaced again and again while taking it");
  }

  // A live process holding node through an earlier file under this name, which someone
  // deleted or replaced: its alias is locked. Stale aliases (holder dead) are removed.
  std::optional<std::string> live_holder_of_another_file(std::uint64_t node, int ours) {
    struct stat mine;
    if (fstat(ours, &mine) != 0) return std::nullopt;
    const auto aliases = alias_names();
    const auto it = aliases.find(node);
    if (it == aliases.end()) return std::nullopt;
    for (const std::string& alias : it->second) {
      struct stat st;
      if (stat(alias.c_str(), &st) != 0) continue;
      if (same_file(st, mine)) {  // another name of the file we hold: its holder is gone
        unlink(alias.c_str());
        continue;
      }
      if (auto text = holder_text(alias)) return *text;
      unlink(alias.c_str());  // nobody holds it: its holder died
    }
    return std::nullopt;
  }

  // The holder's text if someone holds path's file exclusively, else nullopt.
  static std::optional<std::string> holder_text(const std::string& path) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
    if (fd < 0) return std::nullopt;
    std::optional<std::string> text;
    // A shared lock we can take means nobody holds the exclusive one.
    if (flock(fd, LOCK_SH | LOCK_NB) != 0) text = read_text(fd);
    close(fd);
    return text;
  }

  // Gives the file open as fd its second name; "" where the file system has no hard links.
  std::string make_alias(std::uint64_t node, int fd) {
    const std::string alias = lock_path(node) + "." + nonce();
    if (link(lock_path(node).c_str(), alias.c_str()) != 0) return "";
    if (!names(alias, fd)) {  // the name changed between our check and the link
      unlink(alias.c_str());
      return "";
    }
    return alias;
  }

  // Alias paths by node, read from the directory once.
  std::map<std::uint64_t, std::vector<std::string>> alias_names() const {
    std::map<std::uint64_t, std::vector<std::string>> out;
    DIR* d = opendir(dir_.c_str());
    if (!d) return out;
    while (const dirent* e = readdir(d)) {
      const std::string_view name = e->d_name;
      if (!name.starts_with("node-")) continue;
      const auto dot = name.find(".lock.");
      if (dot == std::string_view::npos || dot <= 5 || name.size() == dot + 6) continue;
      std::uint64_t node = 0;
      const auto digits = name.substr(5, dot - 5);
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), node);
      if (ec != std::errc{} || end != digits.data() + digits.size()) continue;
      out[node].push_back(dir_ + "/" + std::string(name));
    }
    closedir(d);
    return out;
  }

  Held& find(const Lease& lease) {
    const auto it = held_.find(lease.node);
    if (it == held_.end() || std::to_string(it->second.fd) != lease.token)
      throw LeaseError(
          LeaseFailure::lost, url_,
          "node " + std::to_string(lease.node) + " is not held by this store (released?)");
    return it->second;
  }
  std::string lock_path(std::uint64_t node) const {
    return dir_ + "/node-" + std::to_string(node) + ".lock";
  }
  std::string mark_path(std::uint64_t node) const {
    return dir_ + "/node-" + std::to_string(node) + ".mark";
  }

  static CommonSettings read_settings(const LeaseUrl& url) {
    url.allow_only({"ttl", "dc", "nodes"});
    return common_settings(url, 3000);
  }

  std::string dir_;
  std::map<std::uint64_t, Held> held_;
  std::string generation_;                  // the record's ID as last read
  struct stat generation_stat_ {};          // its file as last read
  std::int64_t reset_ms_ = kNoMark;         // the record's reset time
  std::string beacon_key_;                  // the folder's absolute path
  std::unique_ptr<PresenceBeacon> beacon_;  // bound from the first acquire on
};

}  // namespace

std::unique_ptr<LeaseStore> make_file_store(const LeaseUrl& url, Clock& clock) {
  return std::make_unique<FileStore>(url, clock);
}

}  // namespace idforge::coord::detail
