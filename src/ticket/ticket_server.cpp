#include "idforge/ticket/ticket_server.hpp"

#include "idforge/error.hpp"
#include "idforge/ticket/store_url.hpp"
#include "mariadb_ticket_server.hpp"
#include "pg_ticket_server.hpp"

namespace idforge::ticket {

std::unique_ptr<TicketServer> open_ticket_server(std::string_view url, DbTimeouts timeouts) {
  check_timeouts(timeouts);
  const StoreUrl u = parse_store_url(url);
  switch (u.kind) {
    case StoreKind::postgres:
      return std::make_unique<detail::PgTicketServer>(u.url, timeouts);
    case StoreKind::mariadb:
      return std::make_unique<detail::MariaDbTicketServer>(u.url, timeouts);
    case StoreKind::sqlite:
      break;
  }
  throw Error(errc::invalid_argument,
              "ticket server '" + redact_url(url) +
                  "' is SQLite: ticket servers are PostgreSQL (postgres://...) or MariaDB "
                  "(mysql://...); SQLite serves segments");
}

}  // namespace idforge::ticket
