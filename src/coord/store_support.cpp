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

namespace idforge::coord::detail {

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
  std::ifstream in(path);
  if (!in) return kNoMark;
  std::string text;
  std::getline(in, text);
  std::int64_t mark = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), mark);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
    throw LeaseError(LeaseFailure::rejected, store,
                     "high-water mark file " + path + " holds '" + text +
                         "', not a Unix time in ms; fix or remove it (removing it forgets the mark)");
  return mark;
}

void write_mark_file(const std::string& path, std::int64_t mark, const std::string& store) {
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  const std::string text = std::to_string(mark) + "\n";
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool ok = fd >= 0;
  ok = ok && write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = ok && fdatasync(fd) == 0;
  const int err = errno;
  if (fd >= 0) close(fd);
  ok = ok && rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) {
    unlink(tmp.c_str());
    throw LeaseError(LeaseFailure::rejected, store,
                     "cannot write high-water mark file " + path + ": " + std::strerror(err ? err : errno));
  }
}

void make_dirs(const std::string& dir, const std::string& store) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw LeaseError(LeaseFailure::rejected, store, "cannot create directory " + dir + ": " + ec.message());
}

}  // namespace idforge::coord::detail
