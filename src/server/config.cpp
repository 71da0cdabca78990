#include "idforge/server/config.hpp"

#include "idforge/server/event_log.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>

#include "idforge/clock.hpp"
#include "idforge/error.hpp"
#include "idforge/snowflake_layout.hpp"
#include "idforge/time_format.hpp"

namespace idforge::server {
namespace {

// Far above any real settings file (a few hundred bytes).
constexpr std::size_t kMaxConfigFileBytes = 1024 * 1024;

// A value as it may be shown: bytes outside printable ASCII, '\\' and '\'' as \xHH (a
// settings file or a variable could hold escape sequences meant for the terminal).
std::string shown(std::string_view v) {
  std::string out;
  for (const char ch : v.substr(0, 256)) {
    const auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u >= 0x7f || ch == '\\' || ch == '\'')
      out += fmt::format("\\x{:02x}", u);
    else
      out += ch;
  }
  if (v.size() > 256) out += "...";
  return out;
}

[[noreturn]] void bad(std::string_view key, std::string_view value, std::string_view rule) {
  throw Error(errc::invalid_argument,
              "setting " + shown(key) + "='" + shown(value) + "': " + std::string(rule));
}

template <typename T>
T parse_number(std::string_view key, std::string_view v, T lo, T hi) {
  T out{};
  const auto* end = v.data() + v.size();
  const auto [p, ec] = std::from_chars(v.data(), end, out);
  if (v.empty() || ec != std::errc{} || p != end)
    bad(key, v, "must be a number from " + std::to_string(lo) + " to " + std::to_string(hi));
  if (out < lo || out > hi)
    bad(key, v, "must be from " + std::to_string(lo) + " to " + std::to_string(hi));
  return out;
}

// A decimal number (digits, '.', an exponent): 0, or one in [lo, hi].
// strtod alone would also take "inf", "nan" and hex floats.
double parse_decimal(std::string_view key, std::string_view v, double lo, double hi,
                     const std::string& rule) {
  const bool decimal_chars =
      !v.empty() && v.find_first_not_of("0123456789.eE+-") == std::string_view::npos;
  char* end = nullptr;
  const std::string s(v);
  const double d = decimal_chars ? std::strtod(s.c_str(), &end) : -1;
  if (!decimal_chars || end != s.c_str() + s.size() || !(d == 0 || (d >= lo && d <= hi)))
    bad(key, v, rule);
  return d;
}

// Bounds that keep the limiter's arithmetic (burst x interval, in ns) inside 64 bits.
constexpr double kMinRate = 0.001, kMaxRate = 1e9, kMaxBurst = 1e6;

double parse_rate(std::string_view key, std::string_view v) {
  return parse_decimal(key, v, kMinRate, kMaxRate,
                       "must be 0 (no limit) or a number of requests per second from 0.001 to 1e9");
}

double parse_burst(std::string_view key, std::string_view v) {
  return parse_decimal(key, v, 1, kMaxBurst,
                       "must be 0 (one second's worth) or a number of requests from 1 to 1e6");
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::string env_name(const std::string& key) {
  std::string e = "IDFORGE_";
  for (char c : key)
    e += static_cast<char>(c == '-' ? '_' : std::toupper(static_cast<unsigned char>(c)));
  return e;
}

}  // namespace

const std::vector<SettingInfo>& settings() {
  static const std::vector<SettingInfo> all = [] {
    std::vector<std::pair<std::string, std::string>> keys = {
        {"bind", "Address to listen on (beyond loopback requires token)"},
        {"port", "TCP port; 0 picks a free one"},
        {"layout", "Snowflake layout: preset or spec"},
        {"node", "Fixed Snowflake node ID (instead of a lease)"},
        {"lease-store",
         "Lease store URL (default file:<data>/leases; static: and ordinal: keep their lock and "
         "high-water mark there unless given state= or register=)"},
        {"token", "Bearer token required on /v1 and /metrics"},
        {"rate-limit", "Requests per second over all clients, 0 = no limit"},
        {"rate-burst", "Burst size for the rate limit, 0 = one second's worth"},
        {"max-connections", "Open connections at most; more get 503"},
        {"io-threads", "Threads serving connections, 0 = one per core"},
        {"read-timeout-ms", "Longest wait for one read from a client"},
        {"write-timeout-ms", "Longest wait for one write to a client"},
        {"request-timeout-ms", "Longest time a request head may take to arrive"},
        {"keep-alive-timeout-ms", "Idle keep-alive connections close after this"},
        {"batch-timeout-ms", "Longest wait for the clock while issuing IDs; then 503"},
        {"max-body-bytes", "Requests with a larger body get 413"},
        {"data", "Data folder (leases, high-water marks)"},
        {"web-root",
         "Folder served at / (default: web/dist of the source tree or the install share dir)"},
        {"access-log", "'-' = stderr, 'off', or a file to append to"},
        {"log-format",
         "Lease and readiness events on stderr: 'text' (one line each) or 'json' (one object "
         "per line)"},
        {"sequence-store",
         "Segment store for /v1/sequences/{name}: sqlite:PATH or postgres://... (empty: off)"},
        {"mask-key-file",
         "Keyring file for /v1/mask and /v1/unmask (keys themselves: IDFORGE_MASK_KEYS)"},
    };
    std::vector<SettingInfo> out;
    for (auto& [k, h] : keys) out.push_back({k, k == "data" ? "IDFORGE_DATA" : env_name(k), h});
    return out;
  }();
  return all;
}

void apply_setting(ServerConfig& c, std::string_view key_in, std::string_view v) {
  std::string key(key_in);
  for (char& ch : key)
    if (ch == '_') ch = '-';
  constexpr int kMaxMs = 600'000;
  if (key == "bind") {
    if (v.empty()) bad(key, v, "must be an IP address or localhost");
    c.bind = v;
  } else if (key == "port")
    c.port = parse_number<int>(key, v, 0, 65535);
  else if (key == "layout") {
    if (v.empty()) bad(key, v, "must name a preset or a spec");
    c.layout = v;
  } else if (key == "node") {
    if (v.empty())
      c.node.reset();
    else
      c.node = parse_number<std::uint64_t>(key, v, 0, (std::uint64_t{1} << 31) - 1);
  } else if (key == "lease-store")
    c.lease_store = v;
  else if (key == "sequence-store")
    c.sequence_store = v;
  else if (key == "mask-key-file")
    c.mask_key_file = v;
  else if (key == "token") {
    // Sent as "Authorization: Bearer <token>": a space, a control byte or a NUL could never
    // arrive intact, and an empty token would turn authentication off unnoticed.
    if (v.empty()) bad(key, v, "is empty; leave the setting out for no token");
    for (const char ch : v)
      if (static_cast<unsigned char>(ch) <= 0x20 || static_cast<unsigned char>(ch) >= 0x7f)
        bad(key, "<hidden>",
            "holds a space, a control byte or a byte above 0x7E; a bearer token is visible "
            "ASCII only");
    c.token = v;
  } else if (key == "rate-limit")
    c.rate_limit = parse_rate(key, v);
  else if (key == "rate-burst")
    c.rate_burst = parse_burst(key, v);
  else if (key == "max-connections")
    c.max_connections = parse_number<int>(key, v, 1, 4096);
  else if (key == "io-threads")
    c.io_threads = parse_number<int>(key, v, 0, 64);
  else if (key == "batch-timeout-ms")
    c.batch_timeout_ms = parse_number<int>(key, v, 1, kMaxMs);
  else if (key == "read-timeout-ms")
    c.read_timeout_ms = parse_number<int>(key, v, 1, kMaxMs);
  else if (key == "write-timeout-ms")
    c.write_timeout_ms = parse_number<int>(key, v, 1, kMaxMs);
  else if (key == "request-timeout-ms")
    c.request_timeout_ms = parse_number<int>(key, v, 1, kMaxMs);
  else if (key == "keep-alive-timeout-ms")
    c.keep_alive_timeout_ms = parse_number<int>(key, v, 1, kMaxMs);
  else if (key == "max-body-bytes")
    c.max_body_bytes = parse_number<std::size_t>(key, v, 0, std::size_t{1} << 30);
  else if (key == "data") {
    if (v.empty()) bad(key, v, "must name a folder");
    c.data = v;
  } else if (key == "web-root")
    c.web_root = v;
  else if (key == "access-log") {
    if (v.empty()) bad(key, v, "must be '-', 'off' or a file");
    c.access_log = v;
  } else if (key == "log-format")
    c.log_format = parse_log_format(v);
  else {
    std::string known;
    for (const auto& s : settings()) known += (known.empty() ? "" : ", ") + s.key;
    // The value is not shown: an unknown setting may be a secret put where it does not
    // belong (mask-keys=ID:SECRET instead of mask-key-file=PATH).
    throw Error(errc::invalid_argument, "setting " + shown(key) + " (value not shown): " +
                                            "unknown setting; known: " + known);
  }
}

namespace {

[[noreturn]] void bad_file(const std::string& path, const std::string& what) {
  throw Error(errc::invalid_argument, "config file '" + path + "': " + what);
}

std::string normal_key(std::string_view key) {
  std::string k(key);
  for (char& ch : k)
    if (ch == '_') ch = '-';
  return k;
}

void apply_json_file(ServerConfig& c, const std::string& path, std::istream& in) {
  // Keys are collected with their order by hand: nlohmann's object keeps only the last of
  // two equal keys, and a key given twice is a conflict to report, not to resolve.
  std::vector<std::pair<std::string, nlohmann::json>> entries;
  nlohmann::json j;
  try {
    int depth = 0;
    std::string key;
    j = nlohmann::json::parse(in, [&](int d, nlohmann::json::parse_event_t event,
                                      nlohmann::json& parsed) {
      depth = d;
      if (event == nlohmann::json::parse_event_t::key && depth == 1) {
        key = parsed.get<std::string>();
        const std::string k = normal_key(key);
        for (const auto& [seen, value] : entries)
          if (normal_key(seen) == k) bad_file(path, "setting '" + shown(key) + "' is given twice");
        entries.emplace_back(key, nullptr);
      } else if (event == nlohmann::json::parse_event_t::value && depth == 1 && !entries.empty()) {
        entries.back().second = parsed;
      } else if ((event == nlohmann::json::parse_event_t::object_end ||
                  event == nlohmann::json::parse_event_t::array_end) &&
                 depth == 1 && !entries.empty()) {
        entries.back().second = parsed;
      }
      return true;
    });
  } catch (const nlohmann::json::exception& e) {
    bad_file(path, e.what());
  }
  if (!j.is_object()) bad_file(path, "must hold a JSON object");
  for (const auto& [k, v] : entries) {
    std::string text;
    if (v.is_string())
      text = v.get<std::string>();
    else if (v.is_number())
      text = v.dump();
    else
      bad_file(path, "setting '" + shown(k) + "' is " + std::string(v.type_name()) +
                         "; give a string or a number");
    try {
      apply_setting(c, k, text);
    } catch (const Error& e) {
      throw Error(e.code(), "config file '" + path + "': " + e.what());
    }
  }
}

// A '#' starts a comment at the start of a line or after whitespace; elsewhere it belongs
// to the value ("token=abc#def").
std::string_view strip_comment(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i)
    if (line[i] == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t'))
      return line.substr(0, i);
  return line;
}

// The whole file, read through one descriptor: O_NONBLOCK so a FIFO cannot hold open()
// until a writer comes, fstat() on that descriptor so only a regular file is read, and a
// size bound so /dev/zero-like files cannot grow a line without end.
std::string read_settings_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) bad_file(path, std::string("cannot be read: ") + std::strerror(errno));
  struct stat st {};
  std::string text;
  const auto fail = [&](const std::string& what) {
    ::close(fd);
    bad_file(path, what);
  };
  if (::fstat(fd, &st) != 0) fail(std::string("cannot be read: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) fail("is a folder, not a file");
  if (!S_ISREG(st.st_mode)) fail("is not a regular file (a FIFO, socket or device)");
  if (st.st_size > static_cast<off_t>(kMaxConfigFileBytes))
    fail(fmt::format("is {} bytes; a settings file holds at most {}", st.st_size,
                     kMaxConfigFileBytes));
  char buf[16 * 1024];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(std::string("cannot be read: ") + std::strerror(errno));
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxConfigFileBytes)  // it grew while read
      fail(fmt::format("holds more than {} bytes", kMaxConfigFileBytes));
  }
  ::close(fd);
  return text;
}

}  // namespace

void apply_config_file(ServerConfig& c, const std::string& path) {
  std::istringstream in(read_settings_file(path));
  const bool json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  if (json) return apply_json_file(c, path, in);
  std::vector<std::pair<std::string, int>> seen;  // key, line
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::string_view s = trim(strip_comment(line));
    if (s.empty()) continue;
    const auto eq = s.find('=');
    if (eq == std::string_view::npos)
      throw Error(errc::invalid_argument, "config file '" + path + "' line " + std::to_string(n) +
                                              ": '" + shown(s) + "' is not key=value");
    const std::string key = normal_key(trim(s.substr(0, eq)));
    for (const auto& [k, at] : seen)
      if (k == key)
        throw Error(errc::invalid_argument,
                    "config file '" + path + "' line " + std::to_string(n) + ": setting '" +
                        shown(key) + "' was already given on line " + std::to_string(at));
    seen.emplace_back(key, n);
    try {
      apply_setting(c, trim(s.substr(0, eq)), trim(s.substr(eq + 1)));
    } catch (const Error& e) {
      throw Error(e.code(),
                  "config file '" + path + "' line " + std::to_string(n) + ": " + e.what());
    }
  }
}

void apply_environment(
    ServerConfig& c, const std::function<std::optional<std::string>(const std::string&)>& lookup) {
  for (const auto& s : settings())
    if (auto v = lookup(s.env)) apply_setting(c, s.key, *v);
}

void apply_environment(ServerConfig& c) {
  apply_environment(c, [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    return v ? std::optional<std::string>(v) : std::nullopt;
  });
}

bool is_loopback(std::string_view address) noexcept {
  if (address == "localhost" || address == "::1") return true;
  in_addr a{};
  const std::string s(address);
  return inet_pton(AF_INET, s.c_str(), &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

void validate(const ServerConfig& c, Clock& clock) {
  if (!is_loopback(c.bind) && c.token.empty())
    throw Error(errc::invalid_argument,
                "bind='" + c.bind +
                    "' reaches beyond loopback: set a bearer token (--token or "
                    "IDFORGE_TOKEN) or bind 127.0.0.1");
  if (c.rate_burst > 0 && c.rate_limit == 0)
    throw Error(errc::invalid_argument,
                "rate-burst='" + std::to_string(c.rate_burst) + "' needs rate-limit above 0");
  // node= beside lease-store= is no conflict: a fixed node registers in that store, so a
  // second process configured with the same node is refused (docs/LEASES.md).
  // A layout whose time field has run out would answer every request 500: refuse it now.
  const Layout layout = parse_layout(c.layout);
  const LayoutFacts facts = describe(layout);
  const std::int64_t now_ms = clock.now_ns() / 1'000'000;
  if (facts.time_runs_out_ms <= now_ms)
    throw Error(errc::invalid_layout,
                "layout='" + c.layout + "': its " + std::to_string(layout.time_bits()) +
                    "-bit time field ran out at " + format_iso8601_ms(facts.time_runs_out_ms) +
                    ", so no ID can be issued; widen time or move the epoch");
}

}  // namespace idforge::server
