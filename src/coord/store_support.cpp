#include "store_support.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>

#include "idforge/detail/explore.hpp"
#include "idforge/detail/fork_epoch.hpp"

namespace idforge::coord::detail {

using idforge::detail::ExplorePoint;

CommonSettings common_settings(const LeaseUrl& url, std::int64_t default_ttl_ms) {
  CommonSettings s;
  // etcd grants whole seconds and Redis PX counts ms; 100 ms .. 1 day covers any real use.
  s.ttl_ms = url.int_param("ttl", default_ttl_ms, 100, 86'400'000);
  s.timeout_ms = url.int_param("timeout", 2000, 10, 600'000);
  s.dc = url.int_param("dc", -1, 0, (std::int64_t{1} << 31) - 1);
  s.node_cap = url.int_param("nodes", kDefaultNodeCap, 1, std::int64_t{1} << 31);
  return s;
}

CommonSettings network_settings(const LeaseUrl& url, std::int64_t default_ttl_ms) {
  CommonSettings s = common_settings(url, default_ttl_ms);
  if (!url.param("timeout")) {
    // An eighth of the TTL, at most 1 s: a holder renews every fifth of the TTL and, after a
    // failure, every twelfth; a request sent into a partition waits its whole timeout even
    // when the partition heals meanwhile, so several attempts (each member once) must fit in
    // what is left of a lease. Measured on a namespace cluster (tests/cluster): at ttl=3000
    // the earlier ttl / 4 lost the lease to a 2.2 s partition, its last attempt still
    // waiting when the lease ran out.
    s.timeout_ms = std::max<std::int64_t>(10, std::min<std::int64_t>(1000, s.ttl_ms / 8));
  } else if (s.timeout_ms * 3 > s.ttl_ms) {
    throw LeaseError(LeaseFailure::rejected, url.text,
                     "timeout=" + std::to_string(s.timeout_ms) +
                         " ms is more than a third of ttl=" + std::to_string(s.ttl_ms) +
                         " ms: a renewal that waits this long for one member leaves no time to "
                         "try another before the lease runs out; give timeout at most " +
                         std::to_string(s.ttl_ms / 3) + " ms, or a longer ttl");
  }
  return s;
}

std::int64_t connect_timeout_ms(std::int64_t timeout_ms) {
  return std::min<std::int64_t>(timeout_ms, 250);
}

NodeRange node_range(const CommonSettings& s, const Layout& layout, const std::string& store) {
  NodeRange r;
  std::uint64_t span = layout.node_count();
  if (s.dc >= 0) {
    if (layout.datacenter_bits() == 0)
      throw LeaseError(LeaseFailure::rejected, store,
                       "dc=" + std::to_string(s.dc) + " but layout '" + layout.name() +
                           "' has no datacenter bits");
    const auto dcs = std::uint64_t{1} << layout.datacenter_bits();
    if (static_cast<std::uint64_t>(s.dc) >= dcs)
      throw LeaseError(LeaseFailure::rejected, store,
                       "dc=" + std::to_string(s.dc) + " does not fit layout '" + layout.name() +
                           "' (0.." + std::to_string(dcs - 1) + ")");
    r.first = static_cast<std::uint64_t>(s.dc) << layout.worker_bits();
    span = std::uint64_t{1} << layout.worker_bits();
  }
  r.count = std::min<std::uint64_t>(span, static_cast<std::uint64_t>(s.node_cap));
  return r;
}

void check_fixed_node(const Layout& layout, std::uint64_t node, const CommonSettings& s,
                      const std::string& store) {
  try {
    layout.check_node(node);
  } catch (const Error& e) {
    throw LeaseError(LeaseFailure::rejected, store, e.what());
  }
  if (s.dc >= 0 && (layout.datacenter_bits() == 0 ||
                    node >> layout.worker_bits() != static_cast<std::uint64_t>(s.dc)))
    throw LeaseError(LeaseFailure::rejected, store,
                     "node " + std::to_string(node) + " is not in datacenter " +
                         std::to_string(s.dc) +
                         ", the only one this store hands out (dc=" + std::to_string(s.dc) + ")");
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown-host";
  return buf;
}

std::string new_holder_id() {
  std::random_device rd;
  char nonce[9];
  std::snprintf(nonce, sizeof nonce, "%08x", rd());
  return host_name() + ":" + std::to_string(getpid()) + ":" + nonce;
}

std::string holder_json(const Lease& lease) {
  nlohmann::json j;
  j["holder"] = lease.holder;
  j["pid"] = getpid();
  j["host"] = host_name();
  j["since_ms"] = lease.since_unix_ms;
  return j.dump();
}

void read_holder_json(std::string_view json, HolderInfo& row) {
  const auto j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    row.holder = std::string(json);
    return;
  }
  row.holder = j.value("holder", row.holder);
  row.pid = j.value("pid", row.pid);
  row.host = j.value("host", row.host);
  row.since_unix_ms = j.value("since_ms", row.since_unix_ms);
}

std::string shown_bytes(std::string_view text, std::size_t max_bytes) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < max_bytes; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  if (text.size() > max_bytes) out += "...";
  return out;
}

std::int64_t parse_mark_text(std::string_view text, const std::string& where,
                             const std::string& store) {
  std::int64_t mark = 0;
  const char* const end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, mark);
  const std::string rule = "a mark is a Unix time in ms from 0 to " +
                           std::to_string(kLastMarkUnixMs) + " (9999-12-31T23:59:59.999Z)";
  if (text.empty() || ec != std::errc{} || p != end || text.size() > 20)
    throw LeaseError(LeaseFailure::rejected, store,
                     where + " holds '" + shown_bytes(text) + "', not a Unix time in ms (" + rule +
                         "); fix or remove it (removing it forgets the mark)");
  if (mark < 0 || mark > kLastMarkUnixMs)
    throw LeaseError(LeaseFailure::rejected, store,
                     where + " holds " + std::to_string(mark) + ", out of range: " + rule +
                         "; fix or remove it (removing it forgets the mark)");
  return mark;
}

std::string file_kind_words(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG:
      return "";
    case S_IFDIR:
      return "a directory";
    case S_IFIFO:
      return "a FIFO (named pipe)";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFSOCK:
      return "a socket";
    case S_IFLNK:
      return "a symbolic link";
    default:
      return "not a regular file";
  }
}

std::string mark_layout_spec(const Layout& layout) {
  std::string spec = layout.to_spec();  // "name=NAME,time=..."; the name changes no ID
  if (const auto at = spec.find(",time="); at != std::string::npos) spec.erase(0, at + 1);
  return spec;
}

namespace {

// The largest ID layout can have issued at or below mark (any node, any sequence); nullopt
// if the mark is before its epoch (it issued nothing).
std::optional<std::uint64_t> largest_id_up_to(const Layout& l, std::int64_t mark) {
  if (mark < l.epoch_ms()) return std::nullopt;
  const std::uint64_t tick = std::min<std::uint64_t>(
      static_cast<std::uint64_t>((mark - l.epoch_ms()) / l.tick_ms()), l.max_tick());
  const std::uint64_t below = (std::uint64_t{1} << l.time_shift()) - 1;
  return (tick << l.time_shift()) | below;
}

// The smallest ID layout can issue after mark (its first tick after the mark, node 0,
// sequence 0).
std::uint64_t smallest_id_after(const Layout& l, std::int64_t mark) {
  const std::int64_t from = mark + 1;
  if (from <= l.epoch_ms()) return 0;
  const std::uint64_t tick = static_cast<std::uint64_t>((from - l.epoch_ms()) / l.tick_ms());
  // Past its time field it issues nothing at all.
  if (tick > l.max_tick()) return std::numeric_limits<std::uint64_t>::max();
  return tick << l.time_shift();
}

}  // namespace

void check_mark_layout(const MarkRecord& record, const Layout& layout, const std::string& where,
                       const std::string& store) {
  const std::string spec = mark_layout_spec(layout);
  if (record.mark == kNoMark || record.layout.empty() || record.layout == spec) return;
  std::optional<Layout> old;
  try {
    old = parse_layout(record.layout, std::numeric_limits<std::int64_t>::max());
  } catch (const std::exception&) {
    throw LeaseError(LeaseFailure::rejected, store,
                     where + " records layout '" + shown_bytes(record.layout, 200) +
                         "', which is not a layout; fix or remove that line");
  }
  if (*old == layout) return;
  const auto old_max = largest_id_up_to(*old, record.mark);
  const std::uint64_t new_min = smallest_id_after(layout, record.mark);
  if (!old_max || new_min > *old_max) return;  // every new ID lies above every old one
  throw LeaseError(
      LeaseFailure::rejected, store,
      where + " was written by layout '" + record.layout + "' (up to " +
          std::to_string(record.mark) + " ms), and this start uses layout '" + spec +
          "': IDs of the two layouts can coincide (the old one may have issued up to " +
          std::to_string(*old_max) + ", the new one would start at " + std::to_string(new_min) +
          "); keep the old layout on this node, or take node IDs from a store that never "
          "issued under it");
}

MarkRecord read_mark_record(const std::string& path, const std::string& store) {
  const std::string keep =
      "; refusing to start the node from scratch, which could reissue its last holder's IDs";
  const auto fail = [&](const char* step, int err) {
    throw LeaseError(LeaseFailure::rejected, store,
                     "cannot " + std::string(step) + " high-water mark file " + path + ": " +
                         std::strerror(err) + keep +
                         " (fix the file's permissions, or remove it only if that node ID never "
                         "issued)");
  };
  int fd = -1;
  if (const int injected = IDFORGE_EXPLORE_FAULT(ExplorePoint::mark_read, path.c_str())) {
    errno = injected;
  } else {
    // O_NONBLOCK: a FIFO or a device put there must not hang start-up in open() or read();
    // O_NOFOLLOW: marks are only ever renamed into place, so a symbolic link is not one.
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
  }
  if (fd < 0) {
    if (errno == ENOENT) return {};  // never written: no earlier holder left a mark
    if (errno == ELOOP)
      throw LeaseError(LeaseFailure::rejected, store,
                       "high-water mark file " + path + " is a symbolic link, not a regular file" +
                           keep + " (put the mark itself there)");
    fail("open", errno);
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    fail("fstat", err);
  }
  if (const std::string kind = file_kind_words(st.st_mode); !kind.empty()) {
    close(fd);
    throw LeaseError(LeaseFailure::rejected, store,
                     "high-water mark file " + path + " is " + kind + ", not a regular file" +
                         keep + " (put the mark itself there)");
  }
  if (st.st_size > kMaxMarkFileBytes) {
    close(fd);
    throw LeaseError(LeaseFailure::rejected, store,
                     "high-water mark file " + path + " is " + std::to_string(st.st_size) +
                         " bytes, longer than any mark (at most " +
                         std::to_string(kMaxMarkFileBytes) +
                         "); fix or remove it (removing it "
                         "forgets the mark)");
  }
  char buf[kMaxMarkFileBytes + 1];
  std::size_t size = 0;
  while (size < sizeof buf) {
    const ssize_t n = read(fd, buf + size, sizeof buf - size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      fail("read", err);
    }
    if (n == 0) break;
    size += static_cast<std::size_t>(n);
  }
  close(fd);
  if (size > kMaxMarkFileBytes)  // grew after fstat()
    throw LeaseError(LeaseFailure::rejected, store,
                     "high-water mark file " + path + " is longer than any mark (at most " +
                         std::to_string(kMaxMarkFileBytes) +
                         " bytes); fix or remove it (removing it forgets the mark)");
  std::string_view text(buf, size);
  MarkRecord record;
  const auto nl = text.find('\n');
  record.mark = parse_mark_text(text.substr(0, nl), "high-water mark file " + path, store);
  if (nl != std::string_view::npos) {
    std::string_view rest = text.substr(nl + 1);
    rest = rest.substr(0, rest.find('\n'));
    if (rest.starts_with("layout ")) record.layout = std::string(rest.substr(7));
  }
  return record;
}

std::int64_t read_mark_file(const std::string& path, const std::string& store) {
  return read_mark_record(path, store).mark;
}

namespace {

std::string parent_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// fsync() of a directory: makes the entries created or renamed in it durable.
int sync_dir(const std::string& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  const int rc = fsync(fd) == 0 ? 0 : errno;
  close(fd);
  return rc;
}

}  // namespace

void write_mark_file(const std::string& path, std::int64_t mark, const std::string& store,
                     const std::string& layout_spec) {
  const auto fail = [&](const std::string& step, int err) {
    throw LeaseError(
        LeaseFailure::rejected, store,
        "cannot write high-water mark file " + path + " (" + step + "): " + std::strerror(err));
  };
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  // Readers before the layout line read only the first line, so they still read the time.
  std::string text = std::to_string(mark) + "\n";
  if (!layout_spec.empty()) text += "layout " + layout_spec + "\n";
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("create " + tmp, errno);
  int err = 0;
  if (write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    err = errno ? errno : EIO;
  if (err == 0 && fdatasync(fd) != 0) err = errno;
  if (close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    unlink(tmp.c_str());
    fail("write, fdatasync and rename of " + tmp, err);
  }
  // The explorer keeps the time alone (a mark without its layout line reads as the current
  // layout's).
  IDFORGE_EXPLORE_POINT(ExplorePoint::mark_renamed,
                        (path + "\n" + std::to_string(mark) + "\n").c_str());
  // Without this a power loss can undo the rename: the mark would be lost after the
  // caller was told it is stored (and may have issued up to it).
  const std::string dir = parent_of(path);
  if (const int dir_err = sync_dir(dir)) fail("fsync of directory " + dir, dir_err);
  IDFORGE_EXPLORE_POINT(ExplorePoint::dir_synced, dir.c_str());
}

void make_dirs(const std::string& dir, const std::string& store) {
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec)) return;
  // Each directory made is synced into its parent, so the marks inside survive a power loss.
  const std::string parent = parent_of(dir);
  if (parent != dir && parent != "/" && parent != ".") make_dirs(parent, store);
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    throw LeaseError(LeaseFailure::rejected, store,
                     "cannot create directory " + dir + ": " + std::strerror(errno));
  if (!std::filesystem::is_directory(dir, ec))
    throw LeaseError(LeaseFailure::rejected, store,
                     "cannot use " + dir + " as the lease directory: not a directory");
  if (const int err = sync_dir(parent))
    throw LeaseError(LeaseFailure::rejected, store,
                     "cannot fsync directory " + parent + ": " + std::strerror(err));
}

void ForkGuard::check(const std::string& store) const {
  if (in_child())
    throw LeaseError(LeaseFailure::rejected, store,
                     "this store was opened before fork(): its connection and lease belong to the "
                     "parent process; "
                     "open a store of its own in the child");
}

}  // namespace idforge::coord::detail
