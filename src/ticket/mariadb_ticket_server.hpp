// TicketServer on MariaDB / MySQL: Flickr's original ticket table.
#pragma once

#include <mysql.h>

#include <map>
#include <string>
#include <utility>

#include "idforge/ticket/ticket_server.hpp"

namespace idforge::ticket::detail {

/// The parts of a mysql:// or mariadb:// URL.
struct MariaDbUrl {
  std::string user = "root";
  std::string password;
  std::string host = "127.0.0.1";
  unsigned port = 3306;
  std::string database = "idforge";
};

/// Parses mysql://USER[:PASSWORD]@HOST[:PORT]/DB; errc::invalid_argument names the URL.
MariaDbUrl parse_mariadb_url(std::string_view url);

class MariaDbTicketServer final : public TicketServer {
 public:
  /// Checks the URL. The first call connects and creates the database in the URL and
  /// idforge_ticket_sets if missing.
  explicit MariaDbTicketServer(std::string url);
  ~MariaDbTicketServer() override;
  std::string describe() const override;
  void install(std::string_view name, std::int64_t first, std::int64_t increment) override;
  std::int64_t next(std::string_view name) override;
  std::optional<TicketState> lock_for_resize(std::string_view name) override;
  void reconfigure(std::string_view name, std::int64_t first, std::int64_t increment) override;
  void retire(std::string_view name) override;
  void commit() override;
  void abort() noexcept override;

 private:
  /// Times next() re-reads the set's row after finding its session step stale.
  static constexpr int kMaxStaleRetries = 3;

  void connect();
  void disconnect() noexcept;
  void query(const std::string& sql);
  /// Runs sql and returns the first column of the first row (nullopt: no row or NULL).
  std::optional<std::string> scalar(const std::string& sql);
  [[noreturn]] void fail(const std::string& doing);
  std::pair<std::int64_t, std::int64_t> config_of(std::string_view name);  // increment, offset
  void write_config(std::string_view name, std::int64_t first, std::int64_t increment);

  std::string url_;
  MariaDbUrl parts_;
  MYSQL* db_ = nullptr;
  std::string session_set_;  // the set whose increment/offset this session has applied
  bool locked_ = false;
};

}  // namespace idforge::ticket::detail
