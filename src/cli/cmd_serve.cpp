// `idforge serve`: the HTTP service. Settings come from a file (--config), then IDFORGE_*
// variables, then flags, each later one winning; all go through server::apply_setting.
#include <fcntl.h>
#include <fmt/core.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <thread>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/mask_keyring.hpp"
#include "idforge/server/bounded_clock.hpp"
#include "idforge/server/mask_routes.hpp"
#include "idforge/server/sequence_routes.hpp"
#include "idforge/server/server.hpp"
#include "idforge/server/snowflake_kind.hpp"
#include "idforge/server/text_kinds.hpp"
#include "output.hpp"
#include "secrets.hpp"
#ifdef IDFORGE_SERVER_HAVE_SIM
#include "idforge/server/sim.hpp"
#endif
#include "idforge/snowflake_generator.hpp"
#ifdef IDFORGE_SERVER_HAVE_LEASE
#include "idforge/coord/lease.hpp"
#include "idforge/coord/lease_url.hpp"
#include "idforge/server/lease_binding.hpp"
#include "lease_start.hpp"
#endif

namespace idforge::cli {
namespace {

// Takes SIGINT/SIGTERM (blocked in every thread) on a thread of its own and calls on_signal
// once; finish() (or the destructor) ends the thread.
class SignalWaiter {
 public:
  SignalWaiter(const sigset_t& signals, std::function<void(int)> on_signal)
      : thread_([this, signals, on_signal = std::move(on_signal)] {
          const timespec slice{0, 100'000'000};
          while (!done_.load()) {
            const int sig = sigtimedwait(&signals, nullptr, &slice);
            if (sig > 0) {
              on_signal(sig);
              return;
            }
          }
        }) {}
  ~SignalWaiter() { finish(); }
  void finish() {
    done_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

struct ServeArgs {
  std::string config_file;
  std::map<std::string, std::string> flags;  // setting key -> value given on the command line
};

// A malformed lease store URL is named before anything starts. With a fixed node the store
// is where that node is registered (refused while another live process holds it).
void check_lease_store(const server::ServerConfig& config) {
#ifdef IDFORGE_SERVER_HAVE_LEASE
  if (!config.lease_store.empty()) (void)coord::parse_lease_url(config.lease_store);
#else
  (void)config;
#endif
}

#ifdef IDFORGE_SERVER_HAVE_LEASE
// The folder a store URL keeps its node locks in, if it keeps them in a local folder.
std::optional<std::filesystem::path> lock_folder_of(const std::string& store_url) {
  const coord::LeaseUrl u = coord::parse_lease_url(store_url);
  std::optional<std::string> dir;
  if (u.scheme == "file")
    dir = u.body;
  else if (u.scheme == "static" || u.scheme == "ordinal")
    dir = u.param("state");
  if (!dir) return std::nullopt;
  std::error_code ec;
  return std::filesystem::weakly_canonical(*dir, ec);
}

// Two servers on one data folder never share a node ID, whichever lease store each names:
// with a store other than the data folder's own, the node is also locked there, with the
// same flock() on <data>/leases/node-N.lock that the default file store takes (so a server
// using the default store skips or refuses that node, and this one refuses a node such a
// server holds). Held for the life of the process; the kernel drops it on any exit.
class DataFolderNodeLock {
 public:
  DataFolderNodeLock(const std::string& data, const std::string& leases, const std::string& url,
                     std::uint64_t node) {
    std::error_code ec;
    const auto own = std::filesystem::weakly_canonical(leases, ec);
    if (const auto folder = lock_folder_of(url); folder && !ec && *folder == own) return;
    const std::string path =
        (std::filesystem::path(leases) / fmt::format("node-{}.lock", node)).string();
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW, 0644);
    if (fd_ < 0)
      throw CommandFailure{fmt::format("data='{}': cannot open '{}' to lock node {}: {}", data,
                                       path, node, std::strerror(errno))};
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd_);
      fd_ = -1;
      throw CommandFailure{fmt::format(
          "node {} from lease-store='{}' is held in the data folder '{}' by another live process "
          "({}): two servers on one data folder never share a node ID, whatever lease store "
          "each names",
          node, url, data, err == EWOULDBLOCK ? path + " is locked" : std::strerror(err))};
    }
  }
  ~DataFolderNodeLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  DataFolderNodeLock(const DataFolderNodeLock&) = delete;
  DataFolderNodeLock& operator=(const DataFolderNodeLock&) = delete;

 private:
  int fd_ = -1;
};

// The data folder's lock of node, shared by every generator of this process that holds it:
// a lost node given up for another and later taken again (a spare's node, after the spare
// lost it in turn) is this process's own, and a second flock() of it from a new open file
// would refuse it (a refusal that, on the replacement's thread, used to end the process).
std::shared_ptr<DataFolderNodeLock> lock_node_in_data_folder(const std::string& data,
                                                             const std::string& leases,
                                                             const std::string& url,
                                                             std::uint64_t node) {
  static std::mutex mu;
  static std::map<std::uint64_t, std::weak_ptr<DataFolderNodeLock>> held;
  std::lock_guard lock(mu);
  if (auto mine = held[node].lock()) return mine;
  auto fresh = std::make_shared<DataFolderNodeLock>(data, leases, url, node);
  held[node] = fresh;
  return fresh;
}

// The lease folder under the data folder, created if missing; a failure names both.
std::string lease_folder(const std::string& data) {
  const auto dir = std::filesystem::path(data) / "leases";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw CommandFailure{"data='" + data + "': cannot create the lease folder '" + dir.string() +
                         "': " + (ec ? ec.message() : std::string("not a folder"))};
  return dir.string();
}
#endif

void run_serve(const ServeArgs& a) {
  server::ServerConfig config;
  if (!a.config_file.empty()) {
    // A folder opens like a file and reads as empty: it would start with no settings at all.
    std::error_code ec;
    if (std::filesystem::is_directory(a.config_file, ec))
      throw CommandFailure{"--config '" + a.config_file + "': is a folder, not a settings file"};
    server::apply_config_file(config, a.config_file);
  }
  server::apply_environment(config);
  for (const auto& [k, v] : a.flags) server::apply_setting(config, k, v);
  if (a.flags.contains("token"))
    warn_secret_on_command_line("--token",
                                "set IDFORGE_TOKEN or token= in the --config file instead");
  check_lease_store(config);
  if (!config.mask_key_file.empty()) check_key_file(config.mask_key_file, "mask-key-file");

  const Layout layout = layout_from_option(config.layout);
  // Waiting threads sleep rather than spin: under load other requests keep the sequence
  // busy meanwhile, and a spinning waiter would take a core from them (and from clients on
  // the same machine). The server bounds each request's waits (batch-timeout-ms, stop).
  server::BoundedClock clock;

  // SIGINT/SIGTERM are blocked in every thread and taken by one waiter, started before the
  // node ID is taken: a signal during a start-up wait ends it at once (nothing issued), and
  // later asks the server to stop: in-flight requests finish, then run() returns.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  server::Server srv(config);
  // Lease and readiness events, one line each on stderr (--log-format json for collectors).
  server::EventLog events(config.log_format);
  std::stop_source stop;
  std::atomic<int> got_signal{0};
  std::atomic<bool> starting{true};
  const auto signal_name = [&] { return got_signal == SIGINT ? "SIGINT" : "SIGTERM"; };
  SignalWaiter waiter(stop_signals, [&](int sig) {
    got_signal = sig;
    stop.request_stop();
    srv.stop();
    // The stop request ends a start-up wait for the clock at once, but not a lease-store
    // request in flight (a store that does not answer holds it up to its timeout, which may
    // be minutes). Start-up gets a moment to end by itself; then the process ends here, before
    // anything was issued (a file lock goes with the process, a store key with its TTL).
    for (int i = 0; i < 20 && starting.load(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (starting.load()) {
      note(fmt::format(
          "idforge serve: stopped by {} during start-up while the lease store had not answered; "
          "nothing was issued",
          signal_name()));
      std::_Exit(0);
    }
  });
  struct StartUpEnds {  // whichever way start-up ends, a later signal takes the normal path
    std::atomic<bool>* starting;
    ~StartUpEnds() { *starting = false; }
  } start_up_ends{&starting};
  std::unique_ptr<SharedSnowflakeGenerator> fixed;
  std::string node_text;
#ifdef IDFORGE_SERVER_HAVE_LEASE
  std::unique_ptr<coord::SharedLeasedSnowflakeGenerator> leased;
  std::unique_ptr<server::LeaseBinding> binding;
  // The embedded default: a file lock per node ID under the data folder, so instances on
  // one host never share a node ID (a fixed --node takes the same lock, and is refused while
  // another live process holds it) and a restart starts above the last issued time.
  // ttl=10000 rather than the file store's 3000: each renewal fdatasync()s the mark, and on
  // a busy disk that stalled for over 3 s under load, fencing the generator (measured: 19%
  // of requests answered 503 at 16 clients). The price: a restart after kill -9 may wait up
  // to 10 s for the clock to pass the reserved mark (it says so); a clean stop stores the
  // exact time.
  // A static: or ordinal: store keeps its lock and mark in the same folder (unless its URL
  // names state= or register=): without a mark, a restart with the clock behind issues the
  // same IDs again.
  std::string url = config.lease_store;
  if (url.empty())
    url = "file:" + lease_folder(config.data) + "?ttl=10000";
  else if (keeps_no_state(url))
    url = with_local_state(url, lease_folder(config.data), 10000);
  // The snowflake kind is registered now and served once start-up holds a node ID: the
  // server answers /healthz (alive) and /readyz (503, saying what start-up waits for) during
  // the wait, so a liveness probe does not restart a start-up that only waits for the clock.
  binding = std::make_unique<server::LeaseBinding>(srv, layout, clock);
  binding->waiting("starting", "taking a node ID from " + url);
#else
  if (!config.lease_store.empty())
    throw CommandFailure{"lease-store='" + config.lease_store +
                         "': this build has no lease support (idforge::coord); use --node"};
  // A fixed node ID without leases: the operator guarantees no other process uses it.
  fixed = std::make_unique<SharedSnowflakeGenerator>(
      layout, layout.check_node(config.node.value_or(0)), clock);
  server::add_snowflake_kind(srv, *fixed);
  node_text = fmt::format("fixed node {} (not registered anywhere)", fixed->node());
  starting = false;
#endif
  server::add_text_kinds(srv);
#ifdef IDFORGE_SERVER_HAVE_SIM
  server::add_sim_routes(srv);  // the web page's simulation: /v1/sim/...
#endif
#ifdef IDFORGE_SERVER_HAVE_SEQUENCES
  std::shared_ptr<void> sequences;
  if (!config.sequence_store.empty())
    sequences = server::add_sequence_routes(srv, config.sequence_store);
#else
  if (!config.sequence_store.empty())
    throw CommandFailure{"sequence-store='" + config.sequence_store +
                         "': this build has no sequences (idforge::ticket)"};
#endif
  // Masking keys: the mask-key-file setting (also IDFORGE_MASK_KEY_FILE), else the keys in
  // IDFORGE_MASK_KEYS, the order `idforge mask` reads them in; without either the mask
  // routes answer 503. A bad keyring stops start-up.
  std::shared_ptr<const MaskKeyring> mask_keys;
  if (!config.mask_key_file.empty())
    mask_keys = std::make_shared<const MaskKeyring>(MaskKeyring::load_file(config.mask_key_file));
  else if (const char* k = std::getenv(kMaskKeysEnv); k && *k)
    mask_keys = std::make_shared<const MaskKeyring>(MaskKeyring::from_environment());
  server::add_mask_routes(srv, mask_keys);
  if (fixed) srv.readiness()->set_ready();

  // Serving begins when start-up holds a node ID, or earlier, as soon as start-up knows it
  // must wait for the clock (a restart after kill -9, a store that lost its state): then
  // /healthz answers (alive) and /readyz says what it waits for, so a liveness probe or a
  // start timeout shorter than the wait does not restart it in a loop. A lease error before
  // that (a node held, a store refused) ends serve before it binds, as it always has.
  std::exception_ptr run_failed;
  std::thread serving;
  const auto begin_serving = [&] {
    if (serving.joinable()) return;
    srv.bind();
    // The URL line is the one a supervisor or script waits for: it must arrive, or serve
    // fails.
    print_out("idforge serve: listening on {}\n", srv.url());
    flush_out();
    serving = std::thread([&] {
      try {
        srv.run();
      } catch (...) {
        run_failed = std::current_exception();
      }
    });
  };
  struct JoinServing {  // whichever way start-up ends: the server stops and its thread ends
    server::Server* srv;
    std::thread* serving;
    bool stop = true;
    ~JoinServing() {
      if (stop) srv->stop();
      if (serving->joinable()) serving->join();
    }
  } join_serving{&srv, &serving};
#ifdef IDFORGE_SERVER_HAVE_LEASE
  try {
    LeasedStart how{"idforge serve", config.node, stop.get_token()};
    server::LeaseBinding* b = binding.get();
    how.on_wait = [b, &begin_serving](const std::string& words) {
      b->waiting("waiting-for-clock", words);
      begin_serving();
    };
    // No node ID free (a spare server), the store not answering at start, or (for any free
    // node) every free node's mark further ahead of this clock than start-up waits (a node
    // freed by a host whose clock runs ahead): serve waits, saying so on /readyz and in one
    // line per new reason, and tries again until it holds one or a signal stops it. Exiting
    // instead left a server down until something outside restarted it. A refusal that trying
    // again would not change (a fixed node held, a bad URL, a fixed node's own mark far
    // ahead) still ends start-up.
    const auto retry = std::chrono::milliseconds(retry_start_ms(url));
    const std::string scheme = coord::parse_lease_url(url).scheme;
    const bool node_fixed = config.node || scheme == "static" || scheme == "ordinal";
    std::string said;  // the kind of the reason last told: each new kind is told once
    for (;;) {
      std::string why;
      std::string kind;
      try {
        leased = start_leased(url, layout, clock, how);
        break;
      } catch (const coord::LeaseError& e) {
        if (e.reason() != coord::LeaseFailure::space_full &&
            e.reason() != coord::LeaseFailure::unreachable)
          throw;
        why = e.what();
        kind = coord::to_string(e.reason());
      } catch (const ClockBackwardsError& e) {
        if (node_fixed) throw;
        why = e.what();
        kind = "marks ahead";
      }
      b->waiting("waiting-for-node", why);
      begin_serving();
      if (said != kind)
        note(fmt::format(
            "idforge serve: no node ID yet: {}; trying again every {} ms; SIGINT or SIGTERM stops",
            why, retry.count()));
      said = kind;
      std::mutex m;
      std::condition_variable_any cv;
      std::unique_lock lock(m);
      cv.wait_for(lock, how.stop, retry, [] { return false; });
      if (how.stop.stop_requested())
        throw coord::LeaseError(coord::LeaseFailure::cancelled, url, "stopped while waiting");
    }
  } catch (const coord::LeaseError& e) {
    if (e.reason() != coord::LeaseFailure::cancelled || !got_signal) throw;
    note(fmt::format("idforge serve: stopped by {} during start-up; nothing was issued",
                     signal_name()));
    return;
  }
  const std::string leases = lease_folder(config.data);
  const auto data_lock = lock_node_in_data_folder(config.data, leases, url, leased->node());
  binding->attach(*leased);
  // A leased node that another holder took for good (a store that lost its state and a
  // newcomer on the node) is given up for another one of the same store; a fixed node
  // cannot move, and stays lost until its holder lets go.
  if (!config.node)
    binding->replace_lost_node_with([&config, &url, &layout, &clock, &stop, leases] {
      server::LeaseBinding::Replacement r;
      r.gen = start_leased(url, layout, clock, {"idforge serve", std::nullopt, stop.get_token()});
      try {
        r.keep = lock_node_in_data_folder(config.data, leases, url, r.gen->node());
      } catch (const CommandFailure& f) {  // the replacement runs on a thread of its own
        throw std::runtime_error(f.message);
      }
      return r;
    });
  node_text = fmt::format("{} {} in {}", config.node ? "fixed node" : "node", leased->node(), url);
  starting = false;
#endif
  begin_serving();
  note(fmt::format(
      "idforge serve: layout {}, {}, {}; stop with Ctrl-C", layout.name(), node_text,
      srv.web_root().empty() ? std::string("built-in index at /") : "web root " + srv.web_root()));
  // Events from here on: the "listening on" line stays the first a supervisor reads.
#ifdef IDFORGE_SERVER_HAVE_LEASE
  binding->log_events_to(events);
#endif
  join_serving.stop = false;  // runs until a signal stops it
  serving.join();
  if (run_failed) std::rethrow_exception(run_failed);
  waiter.finish();
#ifdef IDFORGE_SERVER_HAVE_LEASE
  // Requests are finished: hand the node ID back with the exact last issued time.
  binding.reset();
  if (leased) leased->release();
#endif
  if (got_signal) note(fmt::format("idforge serve: stopped by {}", signal_name()));
}

}  // namespace

void add_serve_command(CLI::App& app) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "serve", "HTTP service: IDs as JSON (with id_str), inspect, health, metrics");
  cmd->add_option("--config", args->config_file,
                  "Settings file: key=value lines, or JSON if it ends in .json");
  for (const auto& s : server::settings()) {
    const std::string key = s.key;
    cmd->add_option_function<std::string>(
        "--" + key, [args, key](const std::string& v) { args->flags[key] = v; },
        s.help + " [" + s.env + "]");
  }
  cmd->callback([args] { run_serve(*args); });
}

}  // namespace idforge::cli
