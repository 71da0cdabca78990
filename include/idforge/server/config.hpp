// ServerConfig: everything `idforge serve` can be told, and the one place that parses and
// checks it. Flags, environment variables (IDFORGE_<KEY>) and a config file all go through
// apply_setting(), so a value means the same and fails the same wherever it comes from.
// Precedence is the caller's order of application: file, then environment, then flags.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "idforge/clock.hpp"
#include "idforge/server/event_log.hpp"

namespace idforge::server {

/// Settings of the service. Each field says its default and what makes it invalid.
struct ServerConfig {
  std::string bind = "127.0.0.1";          ///< address to listen on; beyond loopback needs token
  int port = 8080;                         ///< 0..65535; 0 picks a free port
  std::string layout = "twitter";          ///< Snowflake preset or spec (parse_layout)
  std::optional<std::uint64_t> node;       ///< fixed node ID; unset = from the lease store
  std::string lease_store;                 ///< lease store URL; empty = file:<data>/leases
  std::string token;                       ///< bearer token for /v1 and /metrics; empty = none
  double rate_limit = 0;                   ///< requests/s over all clients: 0 (none) or 0.001..1e6
  double rate_burst = 0;                   ///< bucket size 1..1e6; 0 = one second of rate_limit
  int max_connections = 256;               ///< 1..4096 open connections; more get 503
  int io_threads = 0;                      ///< 0..64 threads serving connections; 0 = one per core
  int read_timeout_ms = 5000;              ///< 1..600000: one read may wait this long
  int write_timeout_ms = 5000;             ///< 1..600000: one write may wait this long
  int request_timeout_ms = 10000;          ///< 1..600000: a whole request head must arrive in this
  int keep_alive_timeout_ms = 5000;        ///< 1..600000: idle keep-alive connections close after
  int batch_timeout_ms = 2000;             ///< 1..600000: IDs not issued within this get 503
  std::size_t max_body_bytes = 8192;       ///< requests announcing a larger body get 413
  std::string data = ".data";              ///< data folder (leases, high-water marks)
  std::string web_root;                    ///< static files served at /; empty = default search
  std::string access_log = "-";            ///< "-" = stderr, "off", or a file to append to
  LogFormat log_format = LogFormat::text;  ///< events on stderr: "text" or "json"
  std::string sequence_store;              ///< segment store URL for /v1/sequences; empty = none
  std::string mask_key_file;               ///< keyring file for /v1/mask, /v1/unmask; empty = none
};

/// One setting: its key (file and flag name), environment variable and help line.
struct SettingInfo {
  std::string key;
  std::string env;
  std::string help;
};

/// Every setting, in the order of ServerConfig.
const std::vector<SettingInfo>& settings();

/// Sets config.<key> from text. Throws Error(errc::invalid_argument) naming the key, the
/// value and the rule when the key is unknown or the value breaks its rule.
void apply_setting(ServerConfig& config, std::string_view key, std::string_view value);

/// Applies a config file: JSON (an object of key: value, each value a string or a number)
/// when the name ends in .json, otherwise lines of key=value, where '#' at the start of a
/// line or after whitespace starts a comment. A key given twice, a value of another JSON
/// type, a folder or an unreadable file is an error naming the file (and line or key).
void apply_config_file(ServerConfig& config, const std::string& path);

/// Applies IDFORGE_<KEY> variables (IDFORGE_BIND, IDFORGE_PORT, ...) that lookup returns.
void apply_environment(ServerConfig& config,
                       const std::function<std::optional<std::string>(const std::string&)>& lookup);
/// Same, from the process environment.
void apply_environment(ServerConfig& config);

/// Checks rules between settings: binding beyond loopback requires a token; rate-burst
/// needs rate-limit; a fixed node and a lease store exclude each other; the layout is
/// one that can issue now on clock (its time field has not run out).
void validate(const ServerConfig& config, Clock& clock = SystemClock::instance());

/// True for 127.0.0.0/8, ::1 and "localhost".
bool is_loopback(std::string_view address) noexcept;

}  // namespace idforge::server
