#include "store_generation.hpp"

#include "idforge/coord/lease.hpp"
#include "store_support.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <charconv>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>

namespace idforge::coord::detail {

std::string new_generation_id() {
  std::random_device rd;
  char buf[33];
  std::snprintf(buf, sizeof buf, "%08x%08x%08x%08x", rd(), rd(), rd(), rd());
  return buf;
}

std::string new_generation_record(std::int64_t reset_ms) {
  return new_generation_id() + " " +
         (reset_ms == kNoMark ? std::string("none") : std::to_string(reset_ms));
}

std::int64_t generation_reset(std::string_view record, const std::string& where,
                              const std::string& store) {
  const auto space = record.find(' ');
  const std::string_view reset =
      space == std::string_view::npos ? std::string_view() : record.substr(space + 1);
  if (space != 0 && reset == "none") return kNoMark;
  std::int64_t ms = 0;
  const auto [end, ec] = std::from_chars(reset.data(), reset.data() + reset.size(), ms);
  if (space == 0 || reset.empty() || ec != std::errc{} || end != reset.data() + reset.size())
    throw LeaseError(LeaseFailure::rejected, store,
                     where + " holds '" + shown_bytes(record) +
                         "', not 'ID RESET-MS|none'; delete it (the next start then waits as "
                         "after a lost state)");
  return ms;
}

std::string presence_tag(std::string_view key) {
  // FNV-1a by hand: a stable 64-bit hash that every build and face computes alike
  // (std::hash is not promised to be stable), and no secrecy is needed.
  std::uint64_t h = 14695981039346656037ull;
  for (const unsigned char c : key) h = (h ^ c) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return std::string("idforge-presence-") + buf;
}

PresenceBeacon::PresenceBeacon(std::string_view key) {
  std::random_device rd;
  char tail[64];
  std::snprintf(tail, sizeof tail, "/%d/%08x", static_cast<int>(getpid()), rd());
  name_ = presence_tag(key) + tail;
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path + 1, name_.data(), name_.size());  // sun_path[0] = 0: abstract
  const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name_.size());
  if (bind(fd, reinterpret_cast<const sockaddr*>(&addr), len) != 0) {
    close(fd);
    return;
  }
  fd_ = fd;
}

PresenceBeacon::~PresenceBeacon() {
  if (fd_ >= 0) close(fd_);
}

bool beacon_seen(std::string_view key, const PresenceBeacon* own) {
  std::ifstream in("/proc/net/unix");
  if (!in) return true;
  const std::string wanted = "@" + presence_tag(key) + "/";
  const std::string mine = own && own->ok() ? "@" + own->name() : std::string();
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (header) {  // "Num RefCount Protocol Flags Type St Inode Path"
      header = false;
      continue;
    }
    const auto at = line.find(wanted);
    if (at == std::string::npos) continue;
    if (!mine.empty() && line.compare(at, std::string::npos, mine) == 0) continue;
    return true;
  }
  return false;
}

}  // namespace idforge::coord::detail
