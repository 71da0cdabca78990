// `idforge serve`: the HTTP service. Settings come from a file (--config), then IDFORGE_*
// variables, then flags, each later one winning; all go through server::apply_setting.
#include <fmt/core.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <thread>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/mask_keyring.hpp"
#include "idforge/server/mask_routes.hpp"
#include "idforge/server/sequence_routes.hpp"
#include "idforge/server/server.hpp"
#include "idforge/server/snowflake_kind.hpp"
#include "idforge/server/text_kinds.hpp"
#include "output.hpp"
#ifdef IDFORGE_SERVER_HAVE_SIM
#include "idforge/server/sim.hpp"
#endif
#include "idforge/snowflake_generator.hpp"
#ifdef IDFORGE_SERVER_HAVE_LEASE
#include "idforge/coord/lease.hpp"
#include "idforge/coord/lease_url.hpp"
#include "idforge/server/lease_binding.hpp"
#endif

namespace idforge::cli {
namespace {

struct ServeArgs {
  std::string config_file;
  std::map<std::string, std::string> flags;  // setting key -> value given on the command line
};

// A fixed node takes no lease, so a lease store beside it would be ignored: refuse the pair
// (after naming a malformed URL) rather than run with a coordination the operator believes in.
void check_node_and_store(const server::ServerConfig& config) {
  if (!config.node || config.lease_store.empty()) return;
#ifdef IDFORGE_SERVER_HAVE_LEASE
  (void)coord::parse_lease_url(config.lease_store);
#endif
  throw CommandFailure{
      "lease-store='" + config.lease_store + "' is used only when the node is leased; node=" +
      std::to_string(*config.node) + " is fixed and leases nothing: drop one of them"};
}

#ifdef IDFORGE_SERVER_HAVE_LEASE
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

// Sets done and joins the signal waiter on every way out of run_serve, an exception too
// (a joinable std::thread destroyed would terminate the process).
struct WaiterGuard {
  std::atomic<bool>& done;
  std::thread& thread;
  ~WaiterGuard() {
    done = true;
    if (thread.joinable()) thread.join();
  }
};

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
  check_node_and_store(config);

  const Layout layout = layout_from_option(config.layout);
  // Waiting threads sleep rather than spin: under load other requests keep the sequence
  // busy meanwhile, and a spinning waiter would take a core from them (and from clients on
  // the same machine).
  SystemClock clock(WaitMode::sleep);

  // SIGINT/SIGTERM are blocked in every thread and taken by one waiter, which asks the
  // server to stop: in-flight requests finish, then run() returns.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  server::Server srv(config);
  std::unique_ptr<SnowflakeGenerator> fixed;
  std::string node_text;
#ifdef IDFORGE_SERVER_HAVE_LEASE
  std::unique_ptr<coord::LeasedSnowflakeGenerator> leased;
  std::unique_ptr<server::LeaseBinding> binding;
  if (!config.node) {
    // The embedded default: a file lock per node ID under the data folder, so instances on
    // one host never share a node ID and a restart starts above the last issued time.
    // ttl=10000 rather than the file store's 3000: each renewal fdatasync()s the mark, and on
    // a busy disk that stalled for over 3 s under load, fencing the generator (measured: 19%
    // of requests answered 503 at 16 clients). The price: a restart after kill -9 may wait up
    // to 10 s for the clock to pass the reserved mark; a clean stop stores the exact time.
    std::string url = config.lease_store;
    if (url.empty()) url = "file:" + lease_folder(config.data) + "?ttl=10000";
    SnowflakePolicy policy;
    leased = std::make_unique<coord::LeasedSnowflakeGenerator>(coord::open_lease_store(url, clock),
                                                               layout, clock, policy);
    binding = std::make_unique<server::LeaseBinding>(srv, *leased);
    node_text = fmt::format("node {} leased from {}", leased->node(), url);
  }
#else
  if (!config.lease_store.empty())
    throw CommandFailure{"lease-store='" + config.lease_store +
                         "': this build has no lease support (idforge::coord); use --node"};
#endif
  if (node_text.empty()) {
    // A fixed node ID: the operator guarantees no other process uses it.
    fixed = std::make_unique<SnowflakeGenerator>(layout, layout.check_node(config.node.value_or(0)),
                                                 clock);
    server::add_snowflake_kind(srv, *fixed);
    node_text = fmt::format("fixed node {}", fixed->node());
  }
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
  srv.bind();
  if (fixed) srv.readiness()->set_ready();

  // The URL line is the one a supervisor or script waits for: it must arrive, or serve fails.
  print_out("idforge serve: listening on {}\n", srv.url());
  flush_out();
  note(fmt::format(
      "idforge serve: layout {}, {}, {}; stop with Ctrl-C", layout.name(), node_text,
      srv.web_root().empty() ? std::string("built-in index at /") : "web root " + srv.web_root()));

  std::atomic<bool> done{false};
  std::atomic<int> got_signal{0};
  std::thread waiter;
  WaiterGuard guard{done, waiter};
  waiter = std::thread([&] {
    const timespec slice{0, 200'000'000};
    while (!done.load()) {
      const int sig = sigtimedwait(&stop_signals, nullptr, &slice);
      if (sig > 0) {
        got_signal = sig;
        srv.stop();
        return;
      }
    }
  });

  srv.run();
  done = true;
  waiter.join();
#ifdef IDFORGE_SERVER_HAVE_LEASE
  // Requests are finished: hand the node ID back with the exact last issued time.
  binding.reset();
  if (leased) leased->release();
#endif
  if (got_signal)
    note(fmt::format("idforge serve: stopped by {}", got_signal == SIGINT ? "SIGINT" : "SIGTERM"));
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
