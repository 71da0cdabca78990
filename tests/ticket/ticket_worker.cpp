// A separate process that runs an init or a resize and can die (SIGKILL, no clean-up, as a
// crash or `kill -9`) just before any one of its SQL statements, for the crash tests.
//   ticket_worker resize NAME NEW_K CRASH_AT URL,URL,... [resume]
//   ticket_worker init NAME CRASH_AT URL,URL,...
// Statements are numbered from 1 across all servers, in the order they are sent. CRASH_AT 0
// runs to the end and prints "statements N". Before dying it prints, flushed,
// "crash before statement N on server I: SQL".
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "idforge/error.hpp"
#include "idforge/ticket/ticket_server.hpp"
#include "idforge/ticket/ticket_set.hpp"

using namespace idforge::ticket;

namespace {

long g_count = 0;
long g_crash_at = 0;

std::vector<std::unique_ptr<TicketServer>> open_all(const std::string& list) {
  std::vector<std::unique_ptr<TicketServer>> out;
  std::stringstream in(list);
  for (std::string u; std::getline(in, u, ',');)
    if (!u.empty()) {
      // The lock and statement bounds are not under test here (the crash points are): on a
      // loaded machine the clients drawing beside a resize can hold the set's table past the
      // 1 s lock default, which would stop a clean run for the wrong reason.
      out.push_back(open_ticket_server(u, {.statement_ms = 20'000, .lock_ms = 10'000}));
      const std::size_t index = out.size();
      out.back()->set_statement_hook([index](std::string_view sql) {
        if (++g_count != g_crash_at) return;
        std::printf("crash before statement %ld on server %zu: %.*s\n", g_count, index,
                    static_cast<int>(sql.size()), sql.data());
        std::fflush(stdout);
        ::kill(::getpid(), SIGKILL);
      });
    }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "resize" && (argc == 6 || argc == 7)) {
      g_crash_at = std::atol(argv[4]);
      auto servers = open_all(argv[5]);
      ResizeOptions o;
      o.resume = argc == 7 && std::string(argv[6]) == "resume";
      const auto rep = resize_ticket_set(servers, argv[2], std::atol(argv[3]), o);
      std::printf("resized to %lld servers, epoch %lld, first %lld\nstatements %ld\n",
                  static_cast<long long>(rep.new_k), static_cast<long long>(rep.epoch),
                  static_cast<long long>(rep.first), g_count);
      return 0;
    }
    if (mode == "init" && argc == 5) {
      g_crash_at = std::atol(argv[3]);
      auto servers = open_all(argv[4]);
      const auto rep = init_ticket_set(servers, argv[2]);
      std::printf("created on %lld servers\nstatements %ld\n", static_cast<long long>(rep.new_k),
                  g_count);
      return 0;
    }
  } catch (const idforge::Error& e) {
    std::fprintf(stderr, "ticket_worker: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr,
               "usage: ticket_worker resize NAME NEW_K CRASH_AT URLS [resume] | init NAME "
               "CRASH_AT URLS\n");
  return 2;
}
