#include "test_support.hpp"

#include <curl/curl.h>

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <hiredis/hiredis.h>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace idforge::test {

namespace {
size_t append_body(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}
}  // namespace

std::pair<long, std::string> http_get(int port, const std::string& path) {
  CURL* curl = curl_easy_init();
  std::string body;
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + path;
  curl_slist* headers = curl_slist_append(nullptr, "Accept: text/plain");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 10'000L);
  long status = 0;
  if (curl_easy_perform(curl) == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return {status, body};
}

ScratchDir::ScratchDir() {
  char tmpl[] = "/tmp/idforge-lease-test-XXXXXX";
  if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string unique_name() {
  static std::atomic<int> counter{0};
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "test";
  return name + "." + std::to_string(getpid()) + "." + std::to_string(counter++);
}

std::string with_params(const std::string& url, const std::string& params) {
  return url + (url.find('?') == std::string::npos ? "?" : "&") + params;
}

std::vector<std::uint64_t> read_ids(const std::string& path) {
  std::vector<std::uint64_t> ids;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) ids.push_back(std::stoull(line));
  return ids;
}

int free_port() {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  close(s);
  return ntohs(a.sin_port);
}

int listen_on_loopback(int& port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  listen(fd, 8);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  port = ntohs(a.sin_port);
  return fd;
}

PrivateRedis::PrivateRedis() : port_(free_port()) {
  url_ = "redis://127.0.0.1:" + std::to_string(port_);
}

PrivateRedis::~PrivateRedis() {
  if (child_) {
    child_->signal(SIGCONT);
    child_->signal(SIGKILL);
  }
}

bool PrivateRedis::start() {
  const std::string server = find_program("redis-server");
  if (server.empty()) return false;
  child_ = std::make_unique<Child>(std::vector<std::string>{
      server, "--port", std::to_string(port_), "--bind", "127.0.0.1", "--save", "", "--appendonly",
      "no", "--dir", dir_.path(), "--logfile", dir_.path() + "/redis.log"});
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < end) {
    timeval tv{0, 200'000};
    redisContext* c = redisConnectWithTimeout("127.0.0.1", port_, tv);
    bool ok = false;
    if (c && !c->err) {
      auto* r = static_cast<redisReply*>(redisCommand(c, "PING"));
      ok = r && r->type == REDIS_REPLY_STATUS;
      if (r) freeReplyObject(r);
    }
    if (c) redisFree(c);
    if (ok) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

pid_t PrivateRedis::pid() const noexcept {
  return child_ ? child_->pid() : -1;
}

void PrivateRedis::signal(int sig) {
  if (child_) child_->signal(sig);
}

}  // namespace idforge::test
