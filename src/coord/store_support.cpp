#include "store_support.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
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

std::int64_t read_mark_file(const std::string& path, const std::string& store) {
  const auto fail = [&](const char* step, int err) {
    throw LeaseError(
        LeaseFailure::rejected, store,
        "cannot " + std::string(step) + " high-water mark file " + path + ": " +
            std::strerror(err) +
            "; refusing to start the node from scratch, which could reissue its last holder's IDs "
            "(fix the file's permissions, or remove it only if that node ID never issued)");
  };
  int fd = -1;
  if (const int injected = IDFORGE_EXPLORE_FAULT(ExplorePoint::mark_read, path.c_str())) {
    errno = injected;
  } else {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  }
  if (fd < 0) {
    if (errno == ENOENT) return kNoMark;  // never written: no earlier holder left a mark
    fail("open", errno);
  }
  std::string text;
  char buf[64];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      fail("read", err);
    }
    if (n == 0 || text.size() > 64) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  close(fd);
  if (const auto nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
  std::int64_t mark = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), mark);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
    throw LeaseError(
        LeaseFailure::rejected, store,
        "high-water mark file " + path + " holds '" + text.substr(0, 40) +
            "', not a Unix time in ms; fix or remove it (removing it forgets the mark)");
  return mark;
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

void write_mark_file(const std::string& path, std::int64_t mark, const std::string& store) {
  const auto fail = [&](const std::string& step, int err) {
    throw LeaseError(
        LeaseFailure::rejected, store,
        "cannot write high-water mark file " + path + " (" + step + "): " + std::strerror(err));
  };
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  const std::string text = std::to_string(mark) + "\n";
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
  IDFORGE_EXPLORE_POINT(ExplorePoint::mark_renamed, (path + "\n" + text).c_str());
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

ForkGuard::ForkGuard() noexcept {
  idforge::detail::install_fork_handler();
  epoch_ = idforge::detail::fork_epoch();
}

bool ForkGuard::in_child() const noexcept {
  return idforge::detail::fork_epoch() != epoch_;
}

void ForkGuard::check(const std::string& store) const {
  if (in_child())
    throw LeaseError(LeaseFailure::rejected, store,
                     "this store was opened before fork(): its connection and lease belong to the "
                     "parent process; "
                     "open a store of its own in the child");
}

}  // namespace idforge::coord::detail
