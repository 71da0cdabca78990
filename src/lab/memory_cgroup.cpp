#include "idforge/lab/memory_cgroup.hpp"
#include "idforge/lab/lab_errc.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace idforge::lab {
namespace {

constexpr const char* kV1Root = "/sys/fs/cgroup/memory";

std::string errno_text(int e) {
  return std::strerror(e);
}

// Writes text to file in one write(2), as cgroup files expect; returns 0 or the errno.
int write_file(const std::string& file, const std::string& text) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  const ssize_t n = ::write(fd, text.data(), text.size());
  const int e = n < 0 ? errno : (static_cast<std::size_t>(n) == text.size() ? 0 : EIO);
  ::close(fd);
  return e;
}

bool exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}

std::vector<pid_t> read_pids(const std::string& procs_file) {
  std::ifstream in(procs_file);
  std::vector<pid_t> pids;
  for (long p; in >> p;) pids.push_back(static_cast<pid_t>(p));
  return pids;
}

std::string pid_list(const std::vector<pid_t>& pids) {
  std::string s;
  for (pid_t p : pids) s += (s.empty() ? "" : ",") + std::to_string(p);
  return s;
}

// The cgroup2 mount points, from /proc/self/mounts.
std::vector<std::string> cgroup2_mounts() {
  std::ifstream in("/proc/self/mounts");
  std::vector<std::string> out;
  std::string dev, dir, type, rest;
  while (in >> dev >> dir >> type && std::getline(in, rest))
    if (type == "cgroup2") out.push_back(dir);
  return out;
}

bool has_word(const std::string& text, const std::string& word) {
  std::istringstream in(text);
  for (std::string w; in >> w;)
    if (w == word) return true;
  return false;
}

// Makes dir; a stale group (no processes) of that name is removed first. Returns 0 or errno.
int make_group_dir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0755) == 0) return 0;
  if (errno != EEXIST) return errno;
  const auto pids = read_pids(dir + "/cgroup.procs");
  if (!pids.empty())
    throw Error(lab_errc::already_exists, "memory cgroup " + dir + " is in use by process(es) " +
                                              pid_list(pids) +
                                              " (another lab run on the same port?)");
  if (::rmdir(dir.c_str()) != 0) return errno;
  return ::mkdir(dir.c_str(), 0755) == 0 ? 0 : errno;
}

}  // namespace

MemoryCgroup::MemoryCgroup(int version, std::string path)
    : version_(version), path_(std::move(path)), procs_file_(path_ + "/cgroup.procs") {}

MemoryCgroup::MemoryCgroup(MemoryCgroup&& other) noexcept
    : version_(other.version_),
      path_(std::move(other.path_)),
      procs_file_(std::move(other.procs_file_)) {
  other.path_.clear();
}

MemoryCgroup::~MemoryCgroup() {
  if (path_.empty()) return;
  try {
    remove();
  } catch (const Error&) {
    // A destructor cannot report it; the next create() of the same name removes a stale group.
  }
}

MemoryCgroup MemoryCgroup::create(const std::string& name, std::uint64_t limit_bytes) {
  if (name.empty() ||
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") !=
          std::string::npos ||
      name[0] == '.')
    throw Error(errc::invalid_argument,
                "cgroup name '" + name + "': use letters, digits, '-', '_' and '.'");
  if (limit_bytes < (1u << 20))
    throw Error(errc::invalid_argument,
                "memory limit " + std::to_string(limit_bytes) + " bytes: must be at least 1 MiB");
  const std::string limit = std::to_string(limit_bytes);
  std::string why_v1, why_v2;

  // cgroup v1: the memory controller's own hierarchy.
  if (!exists(std::string(kV1Root) + "/memory.limit_in_bytes")) {
    why_v1 = std::string(kV1Root) + " is not a mounted v1 memory hierarchy";
  } else {
    const std::string dir = std::string(kV1Root) + "/" + name;
    if (const int e = make_group_dir(dir); e != 0) {
      why_v1 = "mkdir " + dir + ": " + errno_text(e);
    } else if (const int w = write_file(dir + "/memory.limit_in_bytes", limit); w != 0) {
      ::rmdir(dir.c_str());
      why_v1 = "writing " + limit + " to " + dir + "/memory.limit_in_bytes: " + errno_text(w);
    } else {
      return MemoryCgroup(1, dir);
    }
  }

  // cgroup v2: a mount whose root hands the memory controller to its children.
  const auto mounts = cgroup2_mounts();
  if (mounts.empty()) why_v2 = "no cgroup2 mount";
  for (const std::string& m : mounts) {
    std::ifstream sc(m + "/cgroup.subtree_control");
    const std::string controls((std::istreambuf_iterator<char>(sc)),
                               std::istreambuf_iterator<char>());
    if (!has_word(controls, "memory")) {
      why_v2 += (why_v2.empty() ? "" : "; ") + m +
                " does not enable the memory controller for its children";
      continue;
    }
    const std::string dir = m + "/" + name;
    if (const int e = make_group_dir(dir); e != 0) {
      why_v2 += (why_v2.empty() ? "" : "; ") + ("mkdir " + dir + ": " + errno_text(e));
      continue;
    }
    if (const int w = write_file(dir + "/memory.max", limit); w != 0) {
      ::rmdir(dir.c_str());
      why_v2 += (why_v2.empty() ? "" : "; ") + ("writing " + dir + "/memory.max: " + errno_text(w));
      continue;
    }
    write_file(dir + "/memory.swap.max", "0");  // no swap: the limit is memory, not memory + swap
    return MemoryCgroup(2, dir);
  }
  throw CgroupUnavailable(
      "no memory cgroup can be made (the lab needs root and a writable memory controller): v1: " +
      why_v1 + "; v2: " + why_v2);
}

void MemoryCgroup::add_process(pid_t pid) const {
  if (const int e = write_file(procs_file_, std::to_string(pid)); e != 0)
    throw Error(lab_errc::store_unreachable,
                "moving process " + std::to_string(pid) + " into " + path_ + ": " + errno_text(e));
}

bool MemoryCgroup::move_self_into(const char* procs_file) noexcept {
  const int fd = ::open(procs_file, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, "0", 1) == 1;
  ::close(fd);
  return ok;
}

std::vector<pid_t> MemoryCgroup::processes() const {
  return read_pids(procs_file_);
}

std::string MemoryCgroup::read(const char* file) const {
  std::ifstream in(path_ + "/" + file);
  if (!in) return {};
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::uint64_t MemoryCgroup::stat_value(const std::string& key) const {
  std::istringstream in(read("memory.stat"));
  std::string k;
  std::uint64_t v = 0;
  while (in >> k >> v)
    if (k == key) return v;
  return 0;
}

std::uint64_t MemoryCgroup::limit() const {
  const std::string s = read(version_ == 1 ? "memory.limit_in_bytes" : "memory.max");
  if (s.rfind("max", 0) == 0) return UINT64_MAX;
  return s.empty() ? 0 : std::stoull(s);
}

void MemoryCgroup::set_limit(std::uint64_t bytes) const {
  const std::string file = path_ + (version_ == 1 ? "/memory.limit_in_bytes" : "/memory.max");
  if (const int e = write_file(file, std::to_string(bytes)); e != 0)
    throw Error(lab_errc::store_unreachable,
                "writing " + std::to_string(bytes) + " to " + file + ": " + errno_text(e));
}

std::uint64_t MemoryCgroup::usage() const {
  const std::string s = read(version_ == 1 ? "memory.usage_in_bytes" : "memory.current");
  return s.empty() ? 0 : std::stoull(s);
}

std::uint64_t MemoryCgroup::peak() const {
  const std::string s = read(version_ == 1 ? "memory.max_usage_in_bytes" : "memory.peak");
  return s.empty() ? 0 : std::stoull(s);
}

bool MemoryCgroup::reset_peak() const noexcept {
  return write_file(path_ + (version_ == 1 ? "/memory.max_usage_in_bytes" : "/memory.peak"),
                    version_ == 1 ? "0" : "reset") == 0;
}

std::uint64_t MemoryCgroup::anon_bytes() const {
  return stat_value(version_ == 1 ? "rss" : "anon");
}

std::uint64_t MemoryCgroup::page_cache() const {
  const std::uint64_t cache = stat_value(version_ == 1 ? "cache" : "file"),
                      shmem = stat_value("shmem");
  return cache > shmem ? cache - shmem : 0;
}

std::uint64_t MemoryCgroup::oom_kills() const {
  std::istringstream in(read(version_ == 1 ? "memory.oom_control" : "memory.events"));
  std::string k;
  std::uint64_t v = 0;
  while (in >> k >> v)
    if (k == "oom_kill") return v;
  return 0;
}

bool MemoryCgroup::drop_page_cache() const noexcept {
  if (version_ == 1) return write_file(path_ + "/memory.force_empty", "0") == 0;
  return write_file(path_ + "/memory.reclaim", std::to_string(std::uint64_t{1} << 40)) == 0;
}

void MemoryCgroup::remove() {
  if (path_.empty()) return;
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::seconds(5);
  int e = 0;
  while (true) {
    if (::rmdir(path_.c_str()) == 0 || errno == ENOENT) {
      path_.clear();
      return;
    }
    e = errno;
    if (clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const auto left = processes();
  throw Error(lab_errc::store_unreachable,
              "cannot remove memory cgroup " + path_ + ": " + errno_text(e) +
                  (left.empty() ? "" : " (process(es) " + pid_list(left) + " still in it)"));
}

std::uint64_t storage_read_bytes(const std::vector<pid_t>& pids) {
  std::uint64_t total = 0;
  for (pid_t p : pids) {
    std::ifstream in("/proc/" + std::to_string(p) + "/io");
    std::string k;
    std::uint64_t v = 0;
    while (in >> k >> v)
      if (k == "read_bytes:") {
        total += v;
        break;
      }
  }
  return total;
}

}  // namespace idforge::lab
