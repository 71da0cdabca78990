// `idforge lease acquire|list|init`: hold a node-ID lease from a store, show who holds
// what, or provision a new store's generation record.
#ifdef IDFORGE_HAVE_COORD
#include <fmt/core.h>
#include <signal.h>

#include <cerrno>
#include <ctime>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/coord/lease_keeper.hpp"
#include "idforge/time_format.hpp"
#include "option_checks.hpp"
#include "output.hpp"
#include "printable.hpp"

namespace idforge::cli {
namespace {

struct LeaseArgs {
  std::string store = "file:.data/leases";
  std::string layout = "twitter";
  std::optional<double> hold_s;  // absent: until SIGINT/SIGTERM
  std::string format = "text";
};

std::string time_or_dash(std::int64_t unix_ms) {
  return unix_ms <= 0 || unix_ms == coord::kNoDeadline ? "-" : format_iso8601_ms(unix_ms);
}

// Waits for SIGINT/SIGTERM, at most hold_s seconds. The signals are blocked in every thread
// (the keeper's thread inherits the mask), so sigtimedwait is the only one to see them.
int wait_for_signal(const sigset_t& set, std::optional<double> hold_s) {
  if (!hold_s) {
    int sig = 0;
    sigwait(&set, &sig);
    return sig;
  }
  timespec ts{static_cast<time_t>(*hold_s),
              static_cast<long>((*hold_s - static_cast<time_t>(*hold_s)) * 1e9)};
  for (;;) {
    const int sig = sigtimedwait(&set, nullptr, &ts);
    if (sig >= 0 || errno != EINTR) return sig < 0 ? 0 : sig;
  }
}

void run_acquire(const LeaseArgs& a) {
  const Layout layout = layout_from_option(a.layout);
  // Acquiring can wait (a store that does not answer, up to its timeout): the signals stay
  // deliverable meanwhile, so SIGINT/SIGTERM end the process as usual (nothing is held yet
  // but what the kernel or the store's TTL frees). They are blocked only from here on, before
  // start() makes the renewal thread, which inherits the mask.
  coord::LeaseKeeper keeper(coord::open_lease_store(a.store), layout, SystemClock::instance());
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  keeper.start();
  const coord::Lease& l = keeper.acquired();
  if (a.format == "json") {
    nlohmann::json j{{"node", l.node},
                     {"datacenter", l.datacenter},
                     {"worker", l.worker},
                     {"holder", l.holder},
                     {"store", a.store},
                     {"since_ms", l.since_unix_ms},
                     {"high_water_ms", l.high_water_unix_ms == coord::kNoMark
                                           ? nlohmann::json()
                                           : nlohmann::json(l.high_water_unix_ms)}};
    print_out("{}\n", json_text(j));
  } else {
    print_out("node {} (datacenter {}, worker {}) held from {} by {}; earlier high-water mark {}\n",
              l.node, l.datacenter, l.worker, printable(a.store), printable(l.holder),
              time_or_dash(l.high_water_unix_ms));
  }
  flush_out();  // whoever waits for the node number reads it now, not at exit
  const int sig = wait_for_signal(set, a.hold_s);
  const coord::KeeperStatus st = keeper.status();
  keeper.release();
  if (st.lost)
    throw CommandFailure{"lost the lease on node " + std::to_string(l.node) + ": " + st.last_error};
  note(fmt::format("idforge: released node {} after {} renewals{}", l.node, st.renewals,
                   sig ? fmt::format(" (signal {})", sig) : ""));
}

void run_list(const LeaseArgs& a) {
  const Layout layout = layout_from_option(a.layout);
  auto store = coord::open_lease_store(a.store);
  const auto rows = store->list(layout);
  if (a.format == "json") {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : rows)
      out.push_back({{"node", r.node},
                     {"datacenter", r.datacenter},
                     {"worker", r.worker},
                     {"holder", r.holder},
                     {"pid", r.pid},
                     {"host", r.host},
                     {"since_ms", r.since_unix_ms},
                     {"high_water_ms", r.high_water_unix_ms == coord::kNoMark
                                           ? nlohmann::json()
                                           : nlohmann::json(r.high_water_unix_ms)},
                     {"ttl_left_ms", r.ttl_left_ms}});
    print_out("{}\n", json_text(out));
    return;
  }
  print_out("{:>6} {:>3} {:>6}  {:<34} {:>8}  {:<24}  {:<24}  {}\n", "node", "dc", "worker",
            "holder", "pid", "since", "high-water mark", "ttl left");
  for (const auto& r : rows)
    print_out("{:>6} {:>3} {:>6}  {:<34} {:>8}  {:<24}  {:<24}  {}\n", r.node, r.datacenter,
              r.worker, printable(r.holder), r.pid, time_or_dash(r.since_unix_ms),
              time_or_dash(r.high_water_unix_ms),
              r.ttl_left_ms < 0 ? std::string("-") : fmt::format("{} ms", r.ttl_left_ms));
  print_out("{} node ID{} held in {}\n", rows.size(), rows.size() == 1 ? "" : "s",
            printable(a.store));
}

// Creates the store's generation record as a fresh store's (LeaseStore::initialize).
void run_init(const LeaseArgs& a) {
  auto store = coord::open_lease_store(a.store);
  const bool created = store->initialize();
  if (a.format == "json") {
    print_out("{}\n", json_text(nlohmann::json{{"store", a.store}, {"created", created}}));
    return;
  }
  if (created)
    print_out("{}: generation record created; the first holder issues at once\n",
              printable(a.store));
  else
    print_out(
        "{}: a generation record exists already (or the store keeps none); nothing "
        "changed\n",
        printable(a.store));
}

void add_common(CLI::App* cmd, LeaseArgs& a) {
  cmd->add_option("--store", a.store,
                  "file:DIR, redis://HOST:PORT, etcd://HOST:PORT[,...], static:N, ordinal:HOST")
      ->capture_default_str();
  cmd->add_option("--layout", a.layout, "Preset or spec whose node IDs are leased")
      ->capture_default_str();
  cmd->add_option("--format", a.format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
}

}  // namespace

void add_lease_command(CLI::App& app) {
  CLI::App* lease = app.add_subcommand("lease", "Node-ID leases: hold one, or list who holds what");
  lease->require_subcommand(1);
  auto acquire_args = std::make_shared<LeaseArgs>();
  CLI::App* acquire = lease->add_subcommand("acquire",
                                            "Acquire a node ID, print it, hold it (renewing) until "
                                            "--hold ends or SIGINT/SIGTERM, then release it");
  add_common(acquire, *acquire_args);
  acquire
      ->add_option("--hold", acquire_args->hold_s, "Seconds to hold it (default: until a signal)")
      ->check(real_number(0.0, 31'536'000.0));
  acquire->callback([acquire_args] { run_acquire(*acquire_args); });
  auto list_args = std::make_shared<LeaseArgs>();
  CLI::App* list = lease->add_subcommand(
      "list", "Show held node IDs: holder, pid, host, since, high-water mark");
  add_common(list, *list_args);
  list->callback([list_args] { run_list(*list_args); });
  auto init_args = std::make_shared<LeaseArgs>();
  CLI::App* init = lease->add_subcommand(
      "init",
      "Provision a new store: create its generation record, so that its first holder need "
      "not wait out the window of holders a lost state may still have (never after a "
      "flush or a wipe while holders run)");
  init->add_option("--store", init_args->store,
                   "file:DIR, redis://HOST:PORT, etcd://HOST:PORT[,...], static:N?state=DIR")
      ->capture_default_str();
  init->add_option("--format", init_args->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  init->callback([init_args] { run_init(*init_args); });
}

}  // namespace idforge::cli
#endif
