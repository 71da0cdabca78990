#include "pg_instance.hpp"

#include <signal.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace idforge::test {
namespace {

std::string bin_dir() {
  const char* b = std::getenv("IDFORGE_PG_BIN");
  return b && *b ? b : "/usr/lib/postgresql/15/bin";
}

bool port_free(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

void run(const std::string& cmd, const std::string& log) {
  if (std::system(cmd.c_str()) != 0) {
    std::ifstream in(log);
    std::stringstream s;
    s << in.rdbuf();
    throw std::runtime_error("'" + cmd + "' failed: " + s.str());
  }
}

}  // namespace

void signal_tree(pid_t pid, int sig) {
  // The process first (a stopped postmaster forks no new backend), then its children.
  ::kill(pid, sig);
  std::ifstream children("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) +
                         "/children");
  for (pid_t c; children >> c;) signal_tree(c, sig);
}

std::optional<std::string> PgInstance::unavailable_reason() {
  if (!std::filesystem::exists(bin_dir() + "/initdb"))
    return "no PostgreSQL binaries in " + bin_dir();
  if (geteuid() != 0) return "a private PostgreSQL needs root (to run initdb as the postgres user)";
  return std::nullopt;
}

PgInstance::PgInstance() {
  char tmpl[] = "/tmp/idforge-pg-XXXXXX";
  if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  dir_ = tmpl;
  for (int p = 15440 + static_cast<int>(getpid() % 400); p < 16400; ++p)
    if (port_free(p)) {
      port_ = p;
      break;
    }
  if (port_ == 0) throw std::runtime_error("no free port for a private PostgreSQL");
  run("chown postgres:postgres " + dir_ + " && chmod 700 " + dir_ + " && runuser -u postgres -- " +
          bin_dir() + "/initdb -D " + dir_ + "/data -A trust -U postgres --no-sync >" + dir_ +
          ".initdb.log 2>&1",
      dir_ + ".initdb.log");
  start();
}

PgInstance::~PgInstance() {
  if (frozen_) thaw();
  try {
    stop();
  } catch (...) {
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
  std::filesystem::remove(dir_ + ".initdb.log", ec);
}

void PgInstance::start() {
  run("runuser -u postgres -- " + bin_dir() + "/pg_ctl -D " + dir_ + "/data -l " + dir_ +
          "/server.log -w -t 30 -o '-p " + std::to_string(port_) + " -k " + dir_ +
          " -c listen_addresses=127.0.0.1 -c fsync=off -c shared_buffers=16MB' start >/dev/null",
      dir_ + "/server.log");
}

void PgInstance::stop() {
  if (!std::filesystem::exists(dir_ + "/data/postmaster.pid")) return;
  run("runuser -u postgres -- " + bin_dir() + "/pg_ctl -D " + dir_ +
          "/data -m fast -w -t 30 stop >/dev/null",
      dir_ + "/server.log");
}

void PgInstance::freeze() {
  std::ifstream pidfile(dir_ + "/data/postmaster.pid");
  pid_t pid = 0;
  pidfile >> pid;
  if (pid <= 0) throw std::runtime_error("no postmaster.pid in " + dir_);
  signal_tree(pid, SIGSTOP);
  frozen_ = true;
}

void PgInstance::thaw() {
  std::ifstream pidfile(dir_ + "/data/postmaster.pid");
  pid_t pid = 0;
  pidfile >> pid;
  if (pid > 0) signal_tree(pid, SIGCONT);
  frozen_ = false;
}

std::string PgInstance::url() const {
  return "postgres://postgres@127.0.0.1:" + std::to_string(port_) + "/postgres";
}

}  // namespace idforge::test
