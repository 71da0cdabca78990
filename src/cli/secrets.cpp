#include "secrets.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "cli_support.hpp"
#include "output.hpp"
#include "printable.hpp"

namespace idforge::cli {
namespace {

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// A secret is 64 hex digits; half of one is already too much to print. An entry "ID:hex"
// (a key ID of one or two digits, a colon, hex) is a keyring line even when cut short.
bool looks_like_key(std::string_view v) {
  std::size_t run = 0, longest = 0;
  for (const char c : v) {
    run = is_hex(c) ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  if (longest >= 32) return true;
  const std::size_t colon = v.find(':');
  if (colon == 0 || colon > 2 || colon == std::string_view::npos) return false;
  const std::string_view id = v.substr(0, colon), hex = v.substr(colon + 1);
  return id.find_first_not_of("0123456789") == std::string_view::npos && hex.size() >= 8 &&
         std::all_of(hex.begin(), hex.end(), is_hex);
}

// A path as a message shows it: escaped, and at most 200 bytes of it.
std::string quoted(const std::string& path) {
  return "'" + detail::shortened(printable(path), 200) + "'";
}

bool others_can_read(const struct stat& st) {
  return S_ISREG(st.st_mode) && (st.st_mode & (S_IRGRP | S_IROTH)) != 0;
}

std::string mode_text(const struct stat& st) {
  return fmt::format("{:04o}", st.st_mode & 07777);
}

}  // namespace

std::string key_file_problem(const std::string& path) {
  if (!looks_like_key(path)) return {};
  // A file of that name is a file, however its name looks (a hash-named file in a store).
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) return {};
  return "the value looks like a key, not a file path (not shown); put keys in a file "
         "(`idforge mask --new-key ID --out FILE` makes one, mode 0600) and give that file's "
         "path";
}

void check_key_file(const std::string& path, const std::string& what) {
  if (const std::string problem = key_file_problem(path); !problem.empty())
    throw CommandFailure{what + ": " + problem};
  warn_if_readable_by_others(path);
}

void warn_if_readable_by_others(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !others_can_read(st)) return;
  note(fmt::format(
      "idforge: warning: mask key file {} can be read by group or others (mode {}): run "
      "`chmod 600 {}`",
      quoted(path), mode_text(st), quoted(path)));
}

void warn_if_stdout_readable_by_others(std::string_view advice) {
  struct stat st {};
  if (::fstat(STDOUT_FILENO, &st) != 0 || !others_can_read(st)) return;
  // Named through /proc where it can be; the file is what the user must chmod.
  std::string name = "standard output";
  char target[4096];
  const ssize_t n = ::readlink("/proc/self/fd/1", target, sizeof target - 1);
  if (n > 0) name += " (" + quoted(std::string(target, static_cast<std::size_t>(n))) + ")";
  note(fmt::format(
      "idforge: warning: {} is a file that group or others can read (mode {}), and the line "
      "written to it is a secret: run `chmod 600` on it, or {}",
      name, mode_text(st), advice));
}

void write_new_private_file(const std::string& path, std::string_view text) {
  // O_EXCL: an existing file is never truncated, and a symlink planted at path is refused
  // rather than followed. The mode is set at creation, so the key is never readable by others
  // for an instant (a chmod afterwards would leave that window).
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0600);
  if (fd < 0) {
    const int err = errno;
    if (err == EEXIST)
      throw CommandFailure{fmt::format(
          "--out {}: the file exists; a keyring is never overwritten (add the new line to it "
          "by hand, or give a new path)",
          quoted(path))};
    throw CommandFailure{
        fmt::format("--out {}: cannot create it: {}", quoted(path), std::strerror(err))};
  }
  int err = 0;
  for (std::size_t off = 0; off < text.size() && err == 0;) {
    const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n > 0)
      off += static_cast<std::size_t>(n);
    else if (n < 0 && errno != EINTR)
      err = errno;
  }
  // A keyring that exists after a crash holds its key: synced before the command says done.
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(path.c_str());  // a half-written keyring would be refused later anyway
    throw CommandFailure{
        fmt::format("--out {}: cannot write it: {}", quoted(path), std::strerror(err))};
  }
}

void warn_secret_on_command_line(std::string_view option, std::string_view instead) {
  note(fmt::format(
      "idforge: warning: {} on the command line can be read by other users of this machine "
      "(ps, /proc/PID/cmdline, shell history); {}",
      option, instead));
}

}  // namespace idforge::cli
