#include "mariadb_instance.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

namespace idforge::test {
namespace {

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

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const char* const kSizes[] = {"--innodb-buffer-pool-size=8M", "--innodb-log-file-size=8M",
                              "--key-buffer-size=1M", "--aria-pagecache-buffer-size=1M",
                              "--performance-schema=OFF"};

}  // namespace

std::optional<std::string> MariaDbInstance::unavailable_reason() {
  if (!std::filesystem::exists("/usr/sbin/mariadbd")) return "no /usr/sbin/mariadbd";
  if (geteuid() != 0) return "a private MariaDB runs as root here (--user=root)";
  return std::nullopt;
}

MariaDbInstance::MariaDbInstance() {
  char tmpl[] = "/tmp/idforge-mariadb-XXXXXX";
  if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  dir_ = tmpl;
  for (int p = 16400 + static_cast<int>(getpid() % 400); p < 17300; ++p)
    if (port_free(p)) {
      port_ = p;
      break;
    }
  if (port_ == 0) throw std::runtime_error("no free port for a private MariaDB");
  std::string cmd = "mariadb-install-db --user=root --datadir=" + dir_ +
                    "/db --auth-root-authentication-method=normal --skip-test-db";
  for (const char* s : kSizes) cmd += std::string(" ") + s;
  cmd += " >" + dir_ + "/install.log 2>&1";
  if (std::system(cmd.c_str()) != 0)
    throw std::runtime_error("mariadb-install-db failed: " + slurp(dir_ + "/install.log"));
  start();
}

MariaDbInstance::~MariaDbInstance() {
  if (frozen_) thaw();
  try {
    stop();
  } catch (...) {
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

void MariaDbInstance::start() {
  std::vector<std::string> args{"/usr/sbin/mariadbd",
                                "--no-defaults",
                                "--user=root",
                                "--datadir=" + dir_ + "/db",
                                "--socket=" + dir_ + "/sock",
                                "--port=" + std::to_string(port_),
                                "--bind-address=127.0.0.1",
                                "--skip-name-resolve",
                                "--innodb-flush-log-at-trx-commit=2",
                                "--log-error=" + dir_ + "/error.log"};
  for (const char* s : kSizes) args.emplace_back(s);
  SpawnOptions quiet;  // it logs to --log-error
  quiet.out = Sink::null;
  quiet.err = Sink::null;
  server_ = std::make_unique<Process>(args, quiet);
  const std::string ping =
      "mariadb-admin --socket=" + dir_ + "/sock -uroot --connect-timeout=2 ping >/dev/null 2>&1";
  for (int i = 0; i < 240; ++i) {
    if (std::system(ping.c_str()) == 0) {
      const std::string grant = "mariadb --socket=" + dir_ +
                                "/sock -uroot -e \"CREATE USER IF NOT EXISTS 'root'@'127.0.0.1';"
                                " GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;\"";
      if (std::system(grant.c_str()) != 0) throw std::runtime_error("grant failed");
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));  // polling a starting server
  }
  throw std::runtime_error("private MariaDB did not answer: " + slurp(dir_ + "/error.log"));
}

void MariaDbInstance::stop() {
  if (!server_) return;
  server_->signal(SIGTERM);
  server_->wait(std::chrono::minutes(10));  // a clean shutdown; the destructor kills past it
  server_.reset();
}

void MariaDbInstance::freeze() {
  if (server_) server_->signal(SIGSTOP);
  frozen_ = true;
}

void MariaDbInstance::thaw() {
  if (server_) server_->signal(SIGCONT);
  frozen_ = false;
}

std::string MariaDbInstance::url(const std::string& db) const {
  return "mariadb://root@127.0.0.1:" + std::to_string(port_) + "/" + db;
}

}  // namespace idforge::test
