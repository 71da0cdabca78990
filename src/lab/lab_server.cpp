#include "idforge/lab/lab_server.hpp"
#include "idforge/detail/printable.hpp"
#include "idforge/lab/lab_errc.hpp"

#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <mysql.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

namespace idforge::lab {
namespace {

namespace fs = std::filesystem;
using clock = std::chrono::steady_clock;

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

std::string tail_of(const std::string& path, std::size_t bytes = 1200) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "(no log at " + path + ")";
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (s.size() > bytes) s = "..." + s.substr(s.size() - bytes);
  for (char& c : s)
    if (c == '\n') c = ' ';
  return s;
}

// Finds an executable by name in PATH and the sbin folders (mariadbd lives in /usr/sbin).
std::string find_program(const std::string& name) {
  std::string path = env_or("PATH", "/usr/bin:/bin") + ":/usr/sbin:/sbin:/usr/local/sbin";
  for (std::size_t b = 0; b <= path.size();) {
    const std::size_t e = std::min(path.find(':', b), path.size());
    const std::string candidate = path.substr(b, e - b) + "/" + name;
    if (e > b && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    b = e + 1;
  }
  throw Error(lab_errc::store_unreachable,
              "'" + name + "' not found in PATH or /usr/sbin (install Debian's mariadb-server)");
}

struct Identity {
  bool drop = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

// Starts argv as a child: its own session (a Ctrl-C at the terminal reaches idforge, which
// stops the server in order), output to log, optionally moved into a cgroup and switched to
// another user before exec, and sent SIGTERM if idforge dies without stopping it.
pid_t spawn(const std::vector<std::string>& argv, const std::string& log,
            const std::string& procs_file, const Identity& who) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(lab_errc::store_unreachable, "fork for '" + argv[0] + "' failed");
  if (pid > 0) return pid;
  // Child: only async-signal-safe calls from here to exec.
  ::setsid();
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ::dup2(fd, 1);
    ::dup2(fd, 2);
  }
  const int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull >= 0) ::dup2(devnull, 0);
  auto die = [](const char* msg) {
    (void)!::write(2, msg, std::char_traits<char>::length(msg));
    ::_exit(126);
  };
  if (!procs_file.empty() && !MemoryCgroup::move_self_into(procs_file.c_str()))
    die("idforge: cannot join the memory cgroup\n");
  if (who.drop &&
      (::setgroups(0, nullptr) != 0 || ::setgid(who.gid) != 0 || ::setuid(who.uid) != 0))
    die("idforge: cannot switch to the server's user\n");
  // After the user switch: a credential change clears the parent-death signal.
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent) ::_exit(125);
  ::execv(args[0], args.data());
  die("idforge: exec failed\n");
  return -1;
}

// Waits for pid to exit (up to timeout); returns its wait status, or -1 if it still runs.
int wait_for(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = clock::now() + timeout;
  while (true) {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0) return 0;  // not our child any more
    if (clock::now() >= deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string describe_exit(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "stopped";
}

std::string mib(std::uint64_t b) {
  return std::to_string(b >> 20) + " MiB";
}

}  // namespace

int default_lab_port(DbEngine engine) {
  // The whole value or nothing: "0x10000" or "700x" read up to the first odd character would
  // land on another port than the one meant, and maybe on a running server's.
  // Set but empty is refused too: whoever set it meant an offset, and 0 is where the other
  // runs on this machine are.
  const char* set = std::getenv("IDFORGE_PORT_OFFSET");
  const std::string text = set ? set : "0";
  int off = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), off);
  if (ec != std::errc() || end != text.data() + text.size() || off < 0 || off > 50000)
    throw Error(errc::invalid_argument, "IDFORGE_PORT_OFFSET '" +
                                            detail::shortened(detail::printable(text), 200) +
                                            "': must be a whole number 0..50000");
  return (engine == DbEngine::mariadb ? 14447 : 14441) + off;
}

LabServer::LabServer(LabServerOptions options, MemoryCgroup cgroup, std::string dir)
    : options_(std::move(options)), cgroup_(std::move(cgroup)), dir_(std::move(dir)) {}

std::unique_ptr<LabServer> LabServer::start(const LabServerOptions& in) {
  LabServerOptions o = in;
  if (o.engine == DbEngine::sqlite)
    throw Error(errc::invalid_argument,
                "SQLite runs inside the lab's own process; a lab server is postgres or mariadb");
  if (o.memory_bytes < (16u << 20))
    throw Error(errc::invalid_argument,
                "memory " + mib(o.memory_bytes) + ": a lab server needs at least 16 MiB");
  if (o.cache_bytes == 0) o.cache_bytes = o.memory_bytes / 4;
  if (o.cache_bytes >= o.memory_bytes)
    throw Error(
        errc::invalid_argument,
        "cache " + mib(o.cache_bytes) + ": must be below the memory limit " + mib(o.memory_bytes));
  if (o.port == 0) o.port = default_lab_port(o.engine);
  if (o.port <= 0 || o.port > 65535)
    throw Error(errc::invalid_argument, "port " + std::to_string(o.port) + ": must be 1..65535");
  if (o.parent_dir.empty()) o.parent_dir = env_or("IDFORGE_DATA", ".data");
  // The cgroup first: without it nothing else is started.
  const std::string name = std::string("idforge-lab-") + std::string(engine_name(o.engine)) + "-" +
                           std::to_string(o.port);
  MemoryCgroup group = MemoryCgroup::create(name, o.memory_bytes);
  const std::string dir = fs::absolute(fs::path(o.parent_dir) / "lab-server" / name).string();
  std::error_code ec;
  fs::remove_all(dir, ec);  // a folder of this name is the lab's own, left by a killed run
  fs::create_directories(dir, ec);
  if (ec)
    throw Error(lab_errc::store_unreachable,
                "cannot make the lab server's folder '" + dir + "': " + ec.message());
  std::unique_ptr<LabServer> s(new LabServer(o, std::move(group), dir));
  s->cache_bytes_ = o.cache_bytes;
  s->log_ = dir + "/server.log";
  if (o.engine == DbEngine::postgres)
    s->start_postgres();
  else
    s->start_mariadb();
  s->wait_until_ready();
  return s;
}

void LabServer::start_postgres() {
  const std::string bin = options_.pg_bin_dir.empty()
                              ? env_or("IDFORGE_PG_BIN", "/usr/lib/postgresql/15/bin")
                              : options_.pg_bin_dir;
  if (::access((bin + "/initdb").c_str(), X_OK) != 0)
    fail("initdb", "no PostgreSQL binaries in " + bin +
                       " (install Debian's postgresql, or set IDFORGE_PG_BIN)");
  // initdb refuses to run as root: the folder and the server belong to the postgres user.
  const passwd* pw = ::getpwnam("postgres");
  if (!pw) fail("initdb", "there is no 'postgres' user to run the server as");
  const Identity who{::geteuid() == 0, pw->pw_uid, pw->pw_gid};
  if (who.drop && ::chown(dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0)
    fail("initdb", "cannot chown " + dir_ + " to postgres");
  ::chmod(dir_.c_str(), 0700);
  const std::string data = dir_ + "/pg", initlog = dir_ + "/initdb.log";
  const pid_t init = spawn({bin + "/initdb", "-D", data, "-A", "trust", "-U", "postgres",
                            "--no-sync", "-E", "UTF8", "--locale=C"},
                           initlog, "", who);
  const int st = wait_for(init, std::chrono::seconds(120));
  if (st == -1) {
    ::kill(init, SIGKILL);
    wait_for(init, std::chrono::seconds(5));
    fail("initdb", "did not finish in 120 s; " + tail_of(initlog));
  }
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
    fail("initdb", describe_exit(st) + ": " + tail_of(initlog));
  const std::string sb = std::to_string(options_.cache_bytes / 1024) + "kB";
  const std::string sync = options_.synchronous_commit ? "on" : "off";
  settings_ = "PostgreSQL in a " + mib(options_.memory_bytes) + " cgroup v" +
              std::to_string(cgroup_.version()) + ": shared_buffers " + mib(options_.cache_bytes) +
              ", synchronous_commit " + sync +
              ", fsync on, full_page_writes on, autovacuum off, max_wal_size 1GB, "
              "checkpoint_timeout 60s, wal_init_zero off";
  pid_ = spawn({bin + "/postgres",
                "-D",
                data,
                "-p",
                std::to_string(options_.port),
                "-k",
                dir_,
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "shared_buffers=" + sb,
                "-c",
                "synchronous_commit=" + sync,
                "-c",
                "autovacuum=off",
                "-c",
                "max_connections=" + std::to_string(options_.max_connections),
                "-c",
                "huge_pages=off",
                "-c",
                "max_wal_size=1GB",
                "-c",
                "checkpoint_timeout=60s",
                "-c",
                "wal_init_zero=off"},
               log_, cgroup_.procs_file(), who);
}

void LabServer::start_mariadb() {
  const std::string install = find_program("mariadb-install-db"), server = find_program("mariadbd");
  const std::string db = dir_ + "/db", initlog = dir_ + "/install.log";
  const pid_t init = spawn({install, "--no-defaults", "--user=root", "--datadir=" + db,
                            "--auth-root-authentication-method=normal", "--skip-test-db"},
                           initlog, "", Identity{});
  const int st = wait_for(init, std::chrono::seconds(180));
  if (st == -1) {
    ::kill(init, SIGKILL);
    wait_for(init, std::chrono::seconds(5));
    fail("mariadb-install-db", "did not finish in 180 s; " + tail_of(initlog));
  }
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
    fail("mariadb-install-db", describe_exit(st) + ": " + tail_of(initlog));
  const std::string trx = options_.synchronous_commit ? "1" : "2";
  settings_ = "MariaDB in a " + mib(options_.memory_bytes) + " cgroup v" +
              std::to_string(cgroup_.version()) + ": innodb_buffer_pool_size " +
              mib(options_.cache_bytes) +
              ", innodb_flush_method O_DIRECT, innodb_flush_log_at_trx_commit " + trx +
              ", innodb_lru_scan_depth 100, innodb_stats_auto_recalc off, performance_schema off, "
              "Aria and MyISAM caches 1 MiB / 64 KiB";
  pid_ = spawn(
      {server, "--no-defaults", "--user=root", "--datadir=" + db, "--socket=" + dir_ + "/sock",
       "--port=" + std::to_string(options_.port), "--bind-address=127.0.0.1",
       "--pid-file=" + dir_ + "/pid", "--skip-name-resolve",
       "--innodb-buffer-pool-size=" + std::to_string(options_.cache_bytes),
       "--innodb-flush-method=O_DIRECT", "--innodb-flush-log-at-trx-commit=" + trx,
       // The page cleaner keeps innodb_lru_scan_depth pages free (1536 by default):
       // more than a small pool holds, so it would evict every clean page, undo and
       // system pages included, and each insert would read them back.
       "--innodb-lru-scan-depth=100",
       // The lab runs ANALYZE itself between windows; a background recalculation
       // would read pages in the middle of one.
       "--innodb-stats-auto-recalc=OFF", "--innodb-buffer-pool-load-at-startup=OFF",
       "--innodb-buffer-pool-dump-at-shutdown=OFF", "--performance-schema=OFF",
       "--aria-pagecache-buffer-size=1M", "--key-buffer-size=64K", "--query-cache-size=0",
       "--query-cache-type=0", "--innodb-log-buffer-size=2M",
       "--max-connections=" + std::to_string(options_.max_connections), "--log-error=" + log_},
      dir_ + "/stdout.log", cgroup_.procs_file(), Identity{});
}

void LabServer::wait_until_ready() {
  const auto deadline = clock::now() + std::chrono::seconds(60);
  const DbConnection c = connection();
  while (true) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      const std::uint64_t ooms = cgroup_.oom_kills();
      fail("start", describe_exit(status) +
                        (ooms ? " (killed for memory in the " + mib(options_.memory_bytes) +
                                    " cgroup: raise --memory-mb or lower --cache-mb)"
                              : "") +
                        "; " + tail_of(log_));
    }
    bool ready = false;
    if (options_.engine == DbEngine::postgres) {
      ready = PQping((c.pg_url + "?connect_timeout=2").c_str()) == PQPING_OK;
    } else {
      MYSQL* m = mysql_init(nullptr);
      unsigned timeout = 2;
      mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
      ready = mysql_real_connect(m, nullptr, "root", nullptr, nullptr, 0, c.mariadb_socket.c_str(),
                                 0) != nullptr;
      mysql_close(m);
    }
    if (ready) return;
    if (clock::now() >= deadline) fail("start", "no answer within 60 s; " + tail_of(log_));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void LabServer::fail(const std::string& step, const std::string& why) {
  const std::string engine(engine_name(options_.engine));
  try {
    stop();
  } catch (const Error&) {
  }
  throw Error(lab_errc::store_unreachable,
              "lab " + engine + " server (" + dir_ + "): " + step + " failed: " + why);
}

LabServer::~LabServer() {
  try {
    stop();
  } catch (const Error&) {
    // Reported by an explicit stop(); a destructor has no one to tell.
  }
}

DbConnection LabServer::connection() const {
  DbConnection c;
  c.sqlite_dir = dir_;
  if (options_.engine == DbEngine::postgres)
    c.pg_url = "postgres://postgres@127.0.0.1:" + std::to_string(options_.port) + "/postgres";
  else
    c.mariadb_socket = dir_ + "/sock";
  return c;
}

std::uint64_t LabServer::storage_read_bytes() const {
  return lab::storage_read_bytes(cgroup_.processes());
}

void LabServer::stop() {
  if (stopped_) return;
  if (pid_ > 0) {
    // PostgreSQL: SIGINT is its fast shutdown; MariaDB: SIGTERM.
    ::kill(pid_, options_.engine == DbEngine::postgres ? SIGINT : SIGTERM);
    if (wait_for(pid_, std::chrono::seconds(60)) == -1) {
      ::kill(pid_, SIGKILL);
      wait_for(pid_, std::chrono::seconds(10));
    }
    pid_ = -1;
  }
  // The postmaster's children leave after it; anything left in the group is killed.
  const auto deadline = clock::now() + std::chrono::seconds(10);
  while (!cgroup_.processes().empty() && clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  for (pid_t p : cgroup_.processes()) ::kill(p, SIGKILL);
  stopped_ = true;
  cgroup_.remove();
  if (!options_.keep_data) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

}  // namespace idforge::lab
