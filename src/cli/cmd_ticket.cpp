// `idforge ticket init|next|resize`: Flickr-style ticket servers on PostgreSQL or MariaDB.
#include <fmt/core.h>

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

namespace idforge::cli {
namespace {

struct TicketArgs {
  std::string servers;
  std::string name = "tickets";
  std::int64_t count = 1;
  std::int64_t start = 1;
  std::int64_t to = 0;
};

std::vector<std::unique_ptr<ticket::TicketServer>> open_servers(const std::string& list) {
  std::vector<std::unique_ptr<ticket::TicketServer>> out;
  std::stringstream in(list);
  for (std::string url; std::getline(in, url, ',');) {
    if (url.empty()) continue;
    out.push_back(ticket::open_ticket_server(url));
  }
  if (out.empty())
    throw CommandFailure{"--servers lists no server: give URL,URL,... (postgres:// or mysql://)"};
  return out;
}

void add_common(CLI::App* cmd, TicketArgs& a) {
  cmd->add_option("--servers", a.servers,
                  "Comma-separated postgres:// or mysql:// URLs, in offset order")
      ->required();
  cmd->add_option("--name", a.name, "Ticket set name")->capture_default_str();
}

void run_init(const TicketArgs& a) {
  auto servers = open_servers(a.servers);
  ticket::init_ticket_set(servers, a.name, a.start);
  print_out("ticket set '{}' on {} servers: server i hands out {}+i, step {}\n", a.name,
            servers.size(), a.start, servers.size());
}

void run_next(const TicketArgs& a) {
  ticket::TicketClient client(open_servers(a.servers), a.name);
  std::string out;
  // Written as they come (64 KiB at a time): values already taken from a server are printed
  // even when a later call fails.
  try {
    for (std::int64_t i = 0; i < a.count; ++i) {
      out += std::to_string(client.next());
      out += '\n';
      if (out.size() > (1 << 16)) {
        write_out(out);
        out.clear();
      }
    }
  } catch (const OutputError&) {
    throw;
  } catch (...) {
    write_out(out);  // the values taken before the failure are handed out, then the error
    throw;
  }
  write_out(out);
}

void run_resize(const TicketArgs& a) {
  auto servers = open_servers(a.servers);
  const auto rep = ticket::resize_ticket_set(servers, a.name, a.to);
  print_out(
      "ticket set '{}' resized from {} to {} servers: highest value handed out {}, new values "
      "start at {}\n",
      a.name, rep.old_k, rep.new_k, rep.highest, rep.first);
  for (std::int64_t i = 0; i < rep.new_k; ++i)
    print_out("  server {} {}: {}, {}, ...\n", i + 1,
              servers[static_cast<std::size_t>(i)]->describe(), rep.first + i,
              rep.first + i + rep.new_k);
}

}  // namespace

void add_ticket_command(CLI::App& app) {
  CLI::App* t = app.add_subcommand(
      "ticket", "Ticket servers (Flickr): K databases, each hands out every K-th value");
  t->require_subcommand(1);

  auto init_args = std::make_shared<TicketArgs>();
  CLI::App* init =
      t->add_subcommand("init", "Create a ticket set on every listed server (K = how many)");
  add_common(init, *init_args);
  init->add_option("--start", init_args->start, "First value (server 1's)")
      ->transform(signed_number(std::numeric_limits<std::int64_t>::min(),
                                std::numeric_limits<std::int64_t>::max()))
      ->capture_default_str();
  init->callback([init_args] { run_init(*init_args); });

  auto next_args = std::make_shared<TicketArgs>();
  CLI::App* next =
      t->add_subcommand("next", "Print N values, one database call each, spread over the servers");
  add_common(next, *next_args);
  next->add_option("-n,--count", next_args->count, "How many values")
      ->transform(signed_number(1, 10'000'000));
  next->callback([next_args] { run_next(*next_args); });

  auto resize_args = std::make_shared<TicketArgs>();
  CLI::App* resize =
      t->add_subcommand("resize", "Move a live set to the first K listed servers, safely");
  add_common(resize, *resize_args);
  resize->add_option("--to", resize_args->to, "New number of servers K")
      ->transform(signed_number(std::numeric_limits<std::int64_t>::min(),
                                std::numeric_limits<std::int64_t>::max()))
      ->required();
  resize->callback([resize_args] { run_resize(*resize_args); });
}

}  // namespace idforge::cli
