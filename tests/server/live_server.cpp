#include "live_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "idforge/server/snowflake_kind.hpp"
#include "idforge/server/text_kinds.hpp"

namespace idforge::test {

LiveServer::LiveServer(server::ServerConfig config, std::function<void(server::Server&)> customize,
                       bool ready, bool fixed) {
  config.port = 0;
  if (config.access_log == "-") config.access_log = "off";
  server_ = std::make_unique<server::Server>(config);
  if (fixed) {
    gen_ = std::make_unique<SharedSnowflakeGenerator>(parse_layout(config.layout),
                                                      config.node.value_or(1));
    server::add_snowflake_kind(*server_, *gen_);
  }
  server::add_text_kinds(*server_);
  if (customize) customize(*server_);
  server_->bind();
  if (ready) server_->readiness()->set_ready();
  thread_ = std::thread([this] { server_->run(); });
}

LiveServer::~LiveServer() {
  server_->stop();
  thread_.join();
}

HttpClient LiveServer::client() const {
  return HttpClient("127.0.0.1", port());
}

int connect_local(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool send_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::string read_until_close(int fd, int timeout_ms) {
  std::string out;
  char buf[4096];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) break;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

int status_of(const std::string& raw) {
  if (raw.rfind("HTTP/1.", 0) != 0 || raw.size() < 12) return 0;
  return std::stoi(raw.substr(9, 3));
}

}  // namespace idforge::test
