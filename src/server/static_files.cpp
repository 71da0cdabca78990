#include "static_files.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <memory>

namespace idforge::server::detail {
namespace {

std::string file_of(const std::string& root, const std::string& path) {
  std::string file = root;
  while (!file.empty() && file.back() == '/') file.pop_back();
  file += path;
  if (file.back() == '/') file += "index.html";
  return file;
}

// The canonical path of path (symlinks resolved); empty when it does not exist.
std::string canonical(const std::string& path) {
  char* resolved = ::realpath(path.c_str(), nullptr);
  if (!resolved) return {};
  std::string out(resolved);
  std::free(resolved);
  return out;
}

// Opens a regular file for reading; -1 when there is none (or it is a folder, a device...)
// or when its canonical path lies outside the canonical root: the checked request path
// cannot climb out, but a symlink in the web root could point anywhere (/etc/...). The
// file is opened by its resolved name, so what was checked is what is read.
int open_regular(const std::string& root, const std::string& file, struct stat& st) {
  const std::string real_root = canonical(root);
  const std::string real = canonical(file);
  if (real_root.empty() || real.empty()) return -1;
  if (real != real_root &&
      real.compare(0, real_root.size() + 1, real_root == "/" ? real_root : real_root + "/") != 0)
    return -1;
  int fd;
  do fd = ::open(real.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) return -1;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return -1;
  }
  return fd;
}

Response not_found(const std::string& path) {
  return problem(404, "not-found", "Not Found", fmt::format("no resource at {}", path));
}

}  // namespace

std::string_view content_type_of(std::string_view name) noexcept {
  const std::size_t dot = name.rfind('.');
  const std::string_view ext =
      dot == std::string_view::npos ? std::string_view{} : name.substr(dot + 1);
  if (ext == "html" || ext == "htm") return "text/html; charset=utf-8";
  if (ext == "js" || ext == "mjs") return "text/javascript; charset=utf-8";
  if (ext == "css") return "text/css; charset=utf-8";
  if (ext == "json" || ext == "map") return "application/json";
  if (ext == "svg") return "image/svg+xml";
  if (ext == "png") return "image/png";
  if (ext == "jpg" || ext == "jpeg") return "image/jpeg";
  if (ext == "gif") return "image/gif";
  if (ext == "webp") return "image/webp";
  if (ext == "ico") return "image/x-icon";
  if (ext == "woff2") return "font/woff2";
  if (ext == "woff") return "font/woff";
  if (ext == "txt") return "text/plain; charset=utf-8";
  if (ext == "wasm") return "application/wasm";
  return "application/octet-stream";
}

bool static_exists(const std::string& root, const std::string& path) {
  struct stat st {};
  const int fd = open_regular(root, file_of(root, path), st);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

Response serve_static(const std::string& root, std::string_view method, const std::string& path) {
  const std::string file = file_of(root, path);
  struct stat st {};
  const int fd = open_regular(root, file, st);
  if (fd < 0) return not_found(path);
  if (method != "GET" && method != "HEAD") {
    ::close(fd);
    Response r =
        problem(405, "method-not-allowed", "Method Not Allowed",
                fmt::format("{} {} is not served; allowed: GET, HEAD, OPTIONS", method, path));
    r.headers.emplace_back("Allow", "GET, HEAD, OPTIONS");
    return r;
  }
  // Streamed from the open file in pieces (HttpSession), so a large file costs each
  // connection one piece of memory, not its size.
  Response r;
  r.content_type = content_type_of(file);
  r.file = std::make_shared<const FileBody>(fd, static_cast<std::uint64_t>(st.st_size));
  return r;
}

}  // namespace idforge::server::detail
