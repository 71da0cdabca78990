#include "raw_http.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <thread>

namespace idforge::test {
namespace {

using Clock = std::chrono::steady_clock;

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

int connect_to(int port) {
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

// Parses complete responses from raw[pos...]; returns false when the rest is incomplete.
bool parse_one(const std::string& raw, std::size_t& pos, bool head_only, RawResponse& out,
               bool& garbage) {
  const std::size_t end = raw.find("\r\n\r\n", pos);
  if (end == std::string::npos) return false;
  const std::string head = raw.substr(pos, end - pos);
  std::smatch m;
  if (!std::regex_search(head, m, std::regex(R"(^HTTP/1\.[01] (\d{3}) )"))) {
    garbage = true;
    return false;
  }
  out = RawResponse{};
  out.status = std::stoi(m[1]);
  std::size_t line = head.find("\r\n");
  while (line != std::string::npos) {
    const std::size_t next = head.find("\r\n", line + 2);
    const std::string field =
        head.substr(line + 2, (next == std::string::npos ? head.size() : next) - line - 2);
    const std::size_t colon = field.find(':');
    if (colon != std::string::npos) {
      std::string value = field.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.erase(0, 1);
      out.headers.emplace_back(field.substr(0, colon), value);
    }
    line = next;
  }
  std::size_t body = 0;
  if (!head_only && out.status >= 200 && out.status != 204 && out.status != 304)
    body = static_cast<std::size_t>(
        std::stoull(out.header("Content-Length").empty() ? "0" : out.header("Content-Length")));
  if (raw.size() < end + 4 + body) return false;
  out.body = raw.substr(end + 4, body);
  pos = end + 4 + body;
  return true;
}

}  // namespace

std::string RawResponse::header(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (iequals(k, name)) return v;
  return {};
}

bool RawResponse::has(std::string_view name) const {
  for (const auto& h : headers)
    if (iequals(h.first, name)) return true;
  return false;
}

std::string serve_binary() {
  const char* other = std::getenv("IDFORGE_SERVE_BINARY");
  return other && *other ? other : IDFORGE_BINARY;
}

ServeProcess::ServeProcess(const std::vector<std::string>& args) {
  // A data folder of its own unless one is given: a fixed --node locks its node ID under
  // the data folder, and ctest -j runs test processes side by side, so two servers that
  // share the default .data and --node 1 would refuse each other.
  std::vector<std::string> given = args;
  if (std::find(args.begin(), args.end(), "--data") == args.end()) {
    static int count = 0;
    data_ = (std::filesystem::temp_directory_path() /
             ("idforge_serve_" + std::to_string(::getpid()) + "_" + std::to_string(count++)))
                .string();
    given.push_back("--data");
    given.push_back(data_);
  }
  std::vector<std::string> argv = {serve_binary(), "serve", "--port", "0"};
  argv.insert(argv.end(), given.begin(), given.end());
  try {
    process_ = std::make_unique<Process>(argv);
  } catch (const std::exception&) {
    return;  // port() stays 0: the test says it did not start
  }
  if (auto line = process_->read_line(std::chrono::seconds(60))) line_ = *line;
  std::smatch m;
  if (std::regex_match(line_, m,
                       std::regex(R"(idforge serve: listening on http://127\.0\.0\.1:(\d+)/)")))
    port_ = std::stoi(m[1]);
}

ServeProcess::~ServeProcess() {
  if (exit_ == -2 && process_) stop(SIGTERM);
  std::error_code ec;
  if (!data_.empty()) std::filesystem::remove_all(data_, ec);
}

bool ServeProcess::alive() {
  if (exit_ != -2 || !process_) return false;
  if (process_->running()) return true;
  exit_ = *process_->wait(std::chrono::milliseconds(0));
  return false;
}

int ServeProcess::stop(int signal, int timeout_s) {
  if (exit_ != -2 || !process_) return exit_;
  process_->signal(signal);
  if (auto code = process_->wait(std::chrono::seconds(timeout_s))) {
    exit_ = *code;
  } else {
    process_->stop(SIGKILL, std::chrono::seconds(10));
    exit_ = -1;
  }
  return exit_;
}

std::pair<int, std::string> run_binary(const std::vector<std::string>& args, int timeout_s) {
  std::vector<std::string> argv = {serve_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  SpawnOptions o;
  o.out = Sink::null;
  o.err = Sink::pipe;
  const RunResult r = run(argv, o, std::chrono::seconds(timeout_s));
  return {r.exit_code, r.err};
}

RawExchange exchange(int port, const std::vector<std::string>& parts, std::size_t expect,
                     bool wait_close, int pause_ms, int timeout_ms,
                     const std::vector<bool>& head_only) {
  RawExchange x;
  const int fd = connect_to(port);
  if (fd < 0) return x;
  const auto end = Clock::now() + std::chrono::milliseconds(timeout_ms);
  std::size_t pos = 0;
  char buf[65536];
  // Reads what is there (waiting up to wait_ms); false once the server closed.
  const auto pump = [&](int wait_ms) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, wait_ms) <= 0) return true;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) {
      x.closed = true;
      return false;
    }
    x.raw.append(buf, static_cast<std::size_t>(n));
    RawResponse r;
    while (parse_one(x.raw, pos,
                     x.responses.size() < head_only.size() && head_only[x.responses.size()], r,
                     x.garbage))
      x.responses.push_back(std::move(r));
    return true;
  };
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0 && pause_ms > 0) {
      const auto until = Clock::now() + std::chrono::milliseconds(pause_ms);
      while (Clock::now() < until && pump(static_cast<int>(pause_ms))) {
      }
      if (x.closed) break;
    }
    std::size_t done = 0;
    while (done < parts[i].size()) {
      const ssize_t n = ::send(fd, parts[i].data() + done, parts[i].size() - done, MSG_NOSIGNAL);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
  }
  while (Clock::now() < end && !x.closed && (x.responses.size() < expect || wait_close)) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()).count();
    if (!pump(static_cast<int>(std::min<long>(left, 100)))) break;
  }
  if (pos < x.raw.size() && !x.garbage && x.closed) x.garbage = true;  // a truncated response
  ::close(fd);
  return x;
}

int health_status(int port) {
  const RawExchange x =
      exchange(port, {"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"}, 1, false);
  return x.responses.empty() ? 0 : x.responses[0].status;
}

}  // namespace idforge::test
