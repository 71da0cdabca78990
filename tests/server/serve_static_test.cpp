// Static files from `idforge serve --web-root`: symlinks cannot lead out of the root, and
// files of any size are streamed, costing a connection one piece of memory, not the file.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "live_server.hpp"
#include "raw_http.hpp"

namespace idforge::test {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<std::string> web_args(const fs::path& root, const std::string& name) {
  return {"--node",       "4",   "--web-root", root.string(),
          "--access-log", "off", "--data",     (fs::path(::testing::TempDir()) / name).string()};
}

int get_status(int port, const std::string& path, const std::string& method = "GET") {
  const RawExchange x =
      exchange(port, {method + " " + path + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"}, 1,
               true, 0, 5000, {method == "HEAD"});
  return x.responses.empty() ? 0 : x.responses[0].status;
}

TEST(ServeBinary, SymlinksInTheWebRootDoNotLeadOutOfIt) {
  const fs::path outside = fresh_dir("idforge_outside");
  std::ofstream(outside / "secret.txt") << "secret";
  const fs::path root = fresh_dir("idforge_symlink_root");
  std::ofstream(root / "index.html") << "<p>page</p>";
  fs::create_symlink(outside / "secret.txt", root / "secret.txt");
  fs::create_directory_symlink(outside, root / "out");
  fs::create_symlink("index.html", root / "alias.html");  // stays inside: served
  ServeProcess s(web_args(root, "idforge_symlink_data"));
  ASSERT_GT(s.port(), 0) << s.first_line();
  EXPECT_EQ(get_status(s.port(), "/secret.txt"), 404);
  EXPECT_EQ(get_status(s.port(), "/out/secret.txt"), 404);
  EXPECT_EQ(get_status(s.port(), "/secret.txt", "OPTIONS"), 404);
  EXPECT_EQ(get_status(s.port(), "/alias.html"), 200);
  EXPECT_EQ(get_status(s.port(), "/"), 200);
}

// Files above 64 MiB used to be answered 500; now every size is streamed.
TEST(ServeBinary, AStaticFileAbove64MiBIsServedWhole) {
  const fs::path root = fresh_dir("idforge_big_root");
  const std::uint64_t size = 65 * 1024 * 1024 + 7;
  {
    std::ofstream out(root / "big.bin", std::ios::binary);
    out.seekp(static_cast<std::streamoff>(size - 1));
    out.put('z');  // sparse: quick to write, reads as zeros and a final 'z'
  }
  ServeProcess s(web_args(root, "idforge_big_data"));
  ASSERT_GT(s.port(), 0) << s.first_line();
  const RawExchange head =
      exchange(s.port(), {"HEAD /big.bin HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"}, 1,
               true, 0, 5000, {true});
  ASSERT_EQ(head.responses.size(), 1u) << head.raw;
  EXPECT_EQ(head.responses[0].status, 200);
  EXPECT_EQ(head.responses[0].header("Content-Length"), std::to_string(size));
  const RawExchange get =
      exchange(s.port(), {"GET /big.bin HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"}, 1, true,
               0, 20000);
  ASSERT_EQ(get.responses.size(), 1u);
  EXPECT_EQ(get.responses[0].status, 200);
  ASSERT_EQ(get.responses[0].body.size(), size);
  EXPECT_EQ(get.responses[0].body.back(), 'z');
}

long rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

// Clients that ask for a large file and never read used to hold a copy of it each.
TEST(ServeBinary, ClientsThatDoNotReadALargeFileDoNotHoldCopiesOfIt) {
  const fs::path root = fresh_dir("idforge_rss_root");
  {
    std::ofstream out(root / "big.bin", std::ios::binary);
    out.seekp(48 * 1024 * 1024 - 1);
    out.put('z');
  }
  ServeProcess s(web_args(root, "idforge_rss_data"));
  ASSERT_GT(s.port(), 0) << s.first_line();
  const long before = rss_kib(s.pid());
  std::vector<int> fds;
  for (int i = 0; i < 4; ++i) {
    const int fd = connect_local(s.port());
    ASSERT_GE(fd, 0);
    const int small = 4096;
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    const std::string get = "GET /big.bin HTTP/1.1\r\nHost: t\r\n\r\n";
    ASSERT_TRUE(send_all(fd, get + get));
    fds.push_back(fd);
  }
  long peak = before;
  for (int i = 0; i < 20; ++i) {  // the server reads within this if it reads whole files
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    peak = std::max(peak, rss_kib(s.pid()));
  }
  for (const int fd : fds) ::close(fd);
  // Four copies would be 192 MiB; pieces of 64 KiB and socket buffers stay far below 32.
  EXPECT_LT(peak - before, 32 * 1024) << "RSS " << before << " KiB -> " << peak << " KiB";
}

}  // namespace
}  // namespace idforge::test
