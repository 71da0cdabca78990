// TicketServer on MariaDB / MySQL: Flickr's original ticket table and the set's record in
// idforge_ticket_members.
#pragma once

#include <mysql.h>

#include <string>
#include <utility>
#include <vector>

#include "idforge/db_url.hpp"
#include "idforge/ticket/ticket_server.hpp"

namespace idforge::ticket::detail {

/// The database a ticket server URL without one uses.
inline constexpr const char* kDefaultTicketDatabase = "idforge";

class MariaDbTicketServer final : public TicketServer {
 public:
  /// Checks the URL. The first call connects and creates the database in the URL and the
  /// tables idforge_ticket_members and idforge_ticket_node if missing.
  MariaDbTicketServer(std::string url, DbTimeouts timeouts);
  ~MariaDbTicketServer() override;
  std::string describe() const override;
  std::string identity() override;
  TicketValue next(std::string_view name) override;
  std::optional<MemberRecord> read(std::string_view name) override;
  MemberRecord fence(std::string_view name, std::int64_t version,
                     const std::string& token) override;
  void prepare(std::string_view name, std::optional<std::int64_t> version, const std::string& token,
               const TicketConfig& next) override;
  MemberRecord activate(std::string_view name, const std::string& token) override;
  void discard(std::string_view name, const std::string& token) override;
  void set_statement_hook(StatementHook hook) override { hook_ = std::move(hook); }

 private:
  /// Times next() re-reads the set's record after finding its session step stale.
  static constexpr int kMaxStaleRetries = 3;

  void connect();
  void disconnect() noexcept;
  /// Sends sql (after the hook); on failure throws via fail().
  void send(const std::string& sql);
  void query(const std::string& sql);
  /// Rows changed by sql.
  std::int64_t change(const std::string& sql);
  /// Runs sql and returns the first column of the first row (nullopt: no row or NULL).
  std::optional<std::string> scalar(const std::string& sql);
  [[noreturn]] void fail(const std::string& doing);
  /// " did not answer within ...: " when the statement sent at since_ns waited out the
  /// read timeout, else " is unreachable: ".
  std::string timed_out(std::int64_t since_ns) const;
  /// Runs UNLOCK TABLES, swallowing errors (a lost connection drops its locks anyway).
  void unlock() noexcept;

  std::string url_;
  MariaDbUrl parts_;
  DbTimeouts timeouts_;
  MYSQL* db_ = nullptr;
  StatementHook hook_;
  std::int64_t sent_at_ns_ = 0;  // when the latest statement was sent (steady clock)
  std::string identity_;
  std::string session_set_;         // the set whose step/offset this session has applied
  std::int64_t session_epoch_ = 0;  // and the epoch of that configuration
};

}  // namespace idforge::ticket::detail
