// `idforge ticket init|next|resize|status`: Flickr-style ticket servers on PostgreSQL or
// MariaDB.
#include <fmt/core.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/ticket/ticket_client.hpp"
#include "idforge/ticket/ticket_server.hpp"
#include "idforge/ticket/ticket_set.hpp"
#include "option_checks.hpp"
#include "output.hpp"
#include "sequence_names.hpp"
#include "stop_signals.hpp"

namespace idforge::cli {
namespace {

struct TicketArgs {
  std::string servers;
  std::string name = "tickets";
  std::int64_t count = 1;
  std::int64_t start = 1;
  std::int64_t to = 0;
  std::int64_t gap = 0;
  std::vector<std::string> drop;
  bool resume = false;
  std::int64_t timeout_ms = ticket::DbTimeouts{}.statement_ms;
  std::int64_t lock_timeout_ms = ticket::DbTimeouts{}.lock_ms;
};

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::vector<std::unique_ptr<ticket::TicketServer>> open_servers(const TicketArgs& a) {
  check_name_option(a.name);  // before any server is asked, and never echoed whole
  ticket::DbTimeouts t;
  t.statement_ms = a.timeout_ms;
  t.connect_ms = a.timeout_ms;
  t.lock_ms = a.lock_timeout_ms;
  std::vector<std::unique_ptr<ticket::TicketServer>> out;
  for (const auto& url : split(a.servers)) out.push_back(ticket::open_ticket_server(url, t));
  if (out.empty())
    throw CommandFailure{"--servers lists no server: give URL,URL,... (postgres:// or mysql://)"};
  return out;
}

void add_common(CLI::App* cmd, TicketArgs& a) {
  cmd->add_option("--servers", a.servers,
                  "Comma-separated postgres:// or mysql:// URLs, in offset order")
      ->required();
  cmd->add_option("--name", a.name, "Ticket set name")->capture_default_str();
  cmd->add_option("--timeout-ms", a.timeout_ms,
                  "Longest wait for a server to connect or answer one statement")
      ->transform(signed_number(1, 3'600'000))
      ->capture_default_str();
  cmd->add_option("--lock-timeout-ms", a.lock_timeout_ms,
                  "Longest wait for a lock another session holds")
      ->transform(signed_number(1, 3'600'000))
      ->capture_default_str();
}

void add_resume(CLI::App* cmd, TicketArgs& a) {
  cmd->add_flag("--resume", a.resume,
                "Finish or take over an earlier run that left servers fenced (it crashed or "
                "failed; check first that it is not still running)");
}

void print_report(const TicketArgs& a, const ticket::ResizeReport& rep,
                  const std::vector<std::unique_ptr<ticket::TicketServer>>& servers) {
  if (!rep.finished_token.empty())
    print_out("finished the earlier run {}: the set reached epoch {}\n", rep.finished_token,
              rep.finished_epoch);
  for (std::int64_t i = 0; i < rep.new_k; ++i)
    print_out("  server {} {}: first value {}, step {}\n", i + 1,
              servers[static_cast<std::size_t>(i)]->describe(), rep.first + i, rep.new_k);
  for (const auto& r : rep.retired) print_out("  retired: {}\n", r.url);
  for (const auto& d : rep.dropped)
    print_out(
        "  dropped without a fence: {} [{}]; if it still runs it keeps its old values (below {} "
        "for the gap of {}), clients that know epoch {} refuse them; list it in a resize to "
        "retire it\n",
        d.url, d.id, rep.first, rep.gap, rep.epoch);
  (void)a;
}

void run_init(const TicketArgs& a) {
  auto servers = open_servers(a);
  ticket::ResizeOptions o;
  o.resume = a.resume;
  const auto rep = ticket::init_ticket_set(servers, a.name, a.start, o);
  print_out("ticket set '{}' on {} servers (epoch {}): server i hands out {}+i, step {}\n", a.name,
            rep.new_k, rep.epoch, rep.first, rep.new_k);
  print_report(a, rep, servers);
}

// The listed servers' records, refused unless they can be one set (SetStatus::conflict).
ticket::SetStatus checked_status(
    const TicketArgs& a, const std::vector<std::unique_ptr<ticket::TicketServer>>& servers) {
  auto st = ticket::read_ticket_set(servers, a.name);
  if (!st.conflict.empty()) throw Error(errc::invalid_argument, st.conflict);
  return st;
}

void run_next(const TicketArgs& a) {
  auto servers = open_servers(a);
  const auto st = checked_status(a, servers);
  // A server still active in an older epoch (dropped while unreachable) is refused from the
  // first call, not only once a member of the newest epoch has answered.
  ticket::TicketClient client(std::move(servers), a.name, {.min_epoch = st.epoch});
  // What was taken is printed even when a later call fails: a value taken and not shown
  // would be lost for good.
  std::string out;
  std::int64_t printed = 0, pending = 0;
  const auto flush = [&] {
    write_out(out);
    flush_out();
    out.clear();
    printed += pending;
    pending = 0;
  };
  // A stop signal ends the loop: the values taken so far are printed before it exits.
  const StopSignals signals;
  try {
    for (std::int64_t i = 0; i < a.count && g_stop_signal == 0; ++i) {
      out += std::to_string(client.next());
      out += '\n';
      ++pending;
      if (out.size() > (1 << 16)) flush();
    }
  } catch (const Error& e) {
    flush();
    throw Error(e.code(), std::string(e.what()) + " (after " + std::to_string(printed) + " of " +
                              std::to_string(a.count) + " values, printed above)");
  }
  flush();
  if (g_stop_signal != 0)
    throw CommandFailure{"stopped by signal " + std::to_string(g_stop_signal) + ": " +
                             std::to_string(printed) + " of " + std::to_string(a.count) +
                             " values written (each one taken was written)",
                         128 + g_stop_signal};
}

void run_resize(const TicketArgs& a) {
  auto servers = open_servers(a);
  ticket::ResizeOptions o;
  for (const auto& d : a.drop)
    for (const auto& u : split(d)) o.drop.push_back(u);
  o.gap = a.gap;
  o.resume = a.resume;
  const auto rep = ticket::resize_ticket_set(servers, a.name, a.to, o);
  if (rep.only_finished) {
    print_out("ticket set '{}' is at epoch {} with {} servers\n", a.name, rep.epoch, rep.new_k);
  } else {
    print_out(
        "ticket set '{}' resized from {} to {} servers (epoch {}): highest value handed out {}{}, "
        "new values start at {}\n",
        a.name, rep.old_k, rep.new_k, rep.epoch, rep.highest,
        rep.gap > 0 ? ", plus a gap of " + std::to_string(rep.gap) : std::string(), rep.first);
  }
  print_report(a, rep, servers);
}

// Exit 0 when at least one listed server answered (the others are reported as
// unreachable), 1 when none did: a script that checks the exit code must not take "every
// server down" for a healthy set.
void run_status(const TicketArgs& a) {
  auto servers = open_servers(a);
  const ticket::SetStatus st = checked_status(a, servers);
  write_out(ticket::format_ticket_set(st));
  const bool any_answered =
      std::any_of(st.servers.begin(), st.servers.end(),
                  [](const ticket::ServerStatus& s) { return s.error.empty(); });
  if (!any_answered)
    throw CommandFailure{
        (st.servers.size() == 1
             ? std::string("the listed server did not answer")
             : fmt::format("none of the {} listed servers answered", st.servers.size())) +
        "; the set's state is unknown"};
}

}  // namespace

void add_ticket_command(CLI::App& app) {
  CLI::App* t = app.add_subcommand(
      "ticket", "Ticket servers (Flickr): K databases, each hands out every K-th value");
  t->require_subcommand(1);

  auto init_args = std::make_shared<TicketArgs>();
  CLI::App* init = t->add_subcommand(
      "init", "Create a ticket set on every listed server (K = how many), all or nothing");
  add_common(init, *init_args);
  init->add_option("--start", init_args->start, "First value (server 1's)")
      ->transform(signed_number(1, std::numeric_limits<std::int64_t>::max()))
      ->capture_default_str();
  add_resume(init, *init_args);
  init->callback([init_args] { run_init(*init_args); });

  auto next_args = std::make_shared<TicketArgs>();
  CLI::App* next =
      t->add_subcommand("next", "Print N values, one database call each, spread over the servers");
  add_common(next, *next_args);
  next->add_option("-n,--count", next_args->count, "How many values")
      ->transform(signed_number(1, 10'000'000))
      ->capture_default_str();
  next->callback([next_args] { run_next(*next_args); });

  auto resize_args = std::make_shared<TicketArgs>();
  CLI::App* resize = t->add_subcommand(
      "resize", "Move a live set to the first K listed servers: fence, prepare, activate");
  add_common(resize, *resize_args);
  resize->add_option("--to", resize_args->to, "New number of servers K")
      ->transform(signed_number(1, ticket::kMaxTicketServers))
      ->capture_default_str()
      ->required();
  resize->add_option("--drop", resize_args->drop,
                     "Member(s) of the current epoch that are gone for good (URL or identity; "
                     "comma-separated or repeated): left out unfenced, needs --gap");
  resize
      ->add_option("--gap", resize_args->gap,
                   "With --drop: start the new values this far above the highest known one")
      ->transform(signed_number(0, std::numeric_limits<std::int64_t>::max()))
      ->capture_default_str();
  add_resume(resize, *resize_args);
  resize->callback([resize_args] { run_resize(*resize_args); });

  auto status_args = std::make_shared<TicketArgs>();
  CLI::App* status = t->add_subcommand(
      "status", "Show each listed server's state for the set (active, fenced, retired, stale)");
  add_common(status, *status_args);
  status->callback([status_args] { run_status(*status_args); });
}

}  // namespace idforge::cli
