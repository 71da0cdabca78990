#include "static_files.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace idforge::server::detail {
namespace {

// Files larger than this are not served from the web root (the page's are a few KiB).
constexpr off_t kMaxFileBytes = 64 * 1024 * 1024;

std::string file_of(const std::string& root, const std::string& path) {
  std::string file = root;
  while (!file.empty() && file.back() == '/') file.pop_back();
  file += path;
  if (file.back() == '/') file += "index.html";
  return file;
}

// Opens a regular file for reading; -1 when there is none (or it is a folder, a device...).
int open_regular(const std::string& file, struct stat& st) {
  int fd;
  do fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
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
  const int fd = open_regular(file_of(root, path), st);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

Response serve_static(const std::string& root, std::string_view method, const std::string& path) {
  const std::string file = file_of(root, path);
  struct stat st {};
  const int fd = open_regular(file, st);
  if (fd < 0) return not_found(path);
  if (method != "GET" && method != "HEAD") {
    ::close(fd);
    Response r = problem(405, "method-not-allowed", "Method Not Allowed",
                         fmt::format("{} {} is not served; allowed: GET, HEAD", method, path));
    r.headers.emplace_back("Allow", "GET, HEAD, OPTIONS");
    return r;
  }
  if (st.st_size > kMaxFileBytes) {
    ::close(fd);
    return problem(500, "internal", "Internal Server Error",
                   fmt::format("{} is larger than {} bytes", path, kMaxFileBytes));
  }
  Response r;
  r.content_type = content_type_of(file);
  r.body.resize(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  while (done < r.body.size()) {
    const ssize_t n = ::read(fd, r.body.data() + done, r.body.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  r.body.resize(done);  // a file that shrank while read: what was there
  return r;
}

}  // namespace idforge::server::detail
