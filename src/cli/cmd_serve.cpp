// `idforge serve`: the HTTP service. Settings come from a file (--config), then IDFORGE_*
// variables, then flags, each later one winning; all go through server::apply_setting.
#include <fmt/core.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <thread>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/server/server.hpp"
#include "idforge/server/snowflake_kind.hpp"
#include "idforge/snowflake_generator.hpp"

namespace idforge::cli {
namespace {

struct ServeArgs {
  std::string config_file;
  std::map<std::string, std::string> flags;  // setting key -> value given on the command line
};

void run_serve(const ServeArgs& a) {
  server::ServerConfig config;
  if (!a.config_file.empty()) server::apply_config_file(config, a.config_file);
  server::apply_environment(config);
  for (const auto& [k, v] : a.flags) server::apply_setting(config, k, v);

  const Layout layout = layout_from_option(config.layout);
  // A fixed node ID until the lease layer provides one; node 0 is the embedded default
  // for a single instance.
  const std::uint64_t node = layout.check_node(config.node.value_or(0));
  // Waiting threads sleep rather than spin: under load other requests keep the sequence
  // busy meanwhile, and a spinning waiter would take a core from them (and from clients on
  // the same machine).
  SystemClock clock(WaitMode::sleep);
  SnowflakeGenerator gen(layout, node, clock);

  // SIGINT/SIGTERM are blocked in every thread and taken by one waiter, which asks the
  // server to stop: in-flight requests finish, then run() returns.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  server::Server srv(config);
  server::add_snowflake_kind(srv, gen);
  srv.bind();
  srv.readiness()->set_ready();

  std::atomic<bool> done{false};
  std::atomic<int> got_signal{0};
  std::thread waiter([&] {
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

  fmt::print("idforge serve: listening on {}\n", srv.url());
  std::fflush(stdout);
  fmt::print(stderr, "idforge serve: layout {}, node {}, {}; stop with Ctrl-C\n", layout.name(), node,
             srv.web_root().empty() ? std::string("built-in index at /") : "web root " + srv.web_root());
  srv.run();
  done = true;
  waiter.join();
  if (got_signal) fmt::print(stderr, "idforge serve: stopped by {}\n", got_signal == SIGINT ? "SIGINT" : "SIGTERM");
}

}  // namespace

void add_serve_command(CLI::App& app) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* cmd = app.add_subcommand("serve", "HTTP service: IDs as JSON (with id_str), inspect, health, metrics");
  cmd->add_option("--config", args->config_file, "Settings file: key=value lines, or JSON if it ends in .json");
  for (const auto& s : server::settings()) {
    const std::string key = s.key;
    cmd->add_option_function<std::string>(
        "--" + key, [args, key](const std::string& v) { args->flags[key] = v; }, s.help + " [" + s.env + "]");
  }
  cmd->callback([args] { run_serve(*args); });
}

}  // namespace idforge::cli
