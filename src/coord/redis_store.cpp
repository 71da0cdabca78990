// redis://HOST:PORT — Redis 7 through hiredis. Node ID N is the key PREFIX node:N, set with
// SET NX PX to a value unique to this holder (holder_json, with a nonce); renewal and
// release are Lua scripts that act only if the value is still ours (compare-and-extend,
// compare-and-delete), so a holder whose key expired and was taken cannot touch it again.
// The mark is PREFIX mark:N, without expiry, raised by the renewal script in the same step.
// One Redis only (no Cluster: the scripts touch two keys built from one node number).
// A key deleted or overwritten by hand fails the next renewal's compare (lost); the mark key
// survives, so a newcomer that takes the node meanwhile starts above the holder's mark.
// A FLUSHALL or a restart without persistence loses every key at once, marks included:
// PREFIX generation (store_generation.hpp) is the record every renewal compares, and the
// holder that creates it anew records the time as a possible loss, so every holder of the
// next window waits it out (`idforge lease init` provisions a new prefix without the wait).
// Connections carry a name for the prefix (CLIENT SETNAME), so `lease init` can refuse
// while a holder is connected, and an operator can see holders in CLIENT LIST.
#include <charconv>
#include <optional>
#include <sstream>

#include "redis_link.hpp"
#include "store_generation.hpp"
#include "store_support.hpp"

namespace idforge::coord::detail {
namespace {

// KEYS: node key, mark key, generation key. ARGV: our value, ttl ms, mark ('' = keep),
// the generation record as acquired. 2: the record is gone or changed (state lost).
constexpr const char* kRenewScript = R"lua(
if redis.call('GET', KEYS[3]) ~= ARGV[4] then return 2 end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if ARGV[3] ~= '' then
  local old = redis.call('GET', KEYS[2])
  if (not old) or tonumber(ARGV[3]) > tonumber(old) then redis.call('SET', KEYS[2], ARGV[3]) end
end
return 1)lua";

// KEYS: node key, mark key. ARGV: our value, mark ('' = keep).
constexpr const char* kReleaseScript = R"lua(
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2]) end
redis.call('DEL', KEYS[1])
return 1)lua";

constexpr std::uint64_t kChunk = 256;

using Type = RedisReply::Type;

class RedisStore final : public StoreBase {
 public:
  RedisStore(const LeaseUrl& url, Clock& clock)
      : StoreBase(url.text, clock, read_settings(url)),
        prefix_(url.param("prefix").value_or("idforge:lease:")),
        link_(url.endpoints.front(), settings_.timeout_ms, url.text, presence_tag(prefix_)) {}

  Lease acquire(const Layout& layout) override {
    const NodeRange range = acquire_range(layout);
    std::lock_guard lock(mu_);
    for (std::uint64_t start = 0; start < range.count; start += kChunk) {
      const std::uint64_t n = std::min(kChunk, range.count - start);
      std::vector<std::string> mget{"MGET"};
      for (std::uint64_t i = 0; i < n; ++i) mget.push_back(node_key(range.first + start + i));
      const RedisReply taken = link_.command(mget);
      for (std::uint64_t i = 0; i < n && i < taken.elements.size(); ++i) {
        if (taken.elements[i].type != Type::nil) continue;
        if (auto lease = try_take(layout, range.first + start + i))
          return *lease;  // else taken since the MGET
      }
    }
    throw LeaseError(LeaseFailure::space_full, url_,
                     "all " + std::to_string(range.count) + " node IDs " +
                         std::to_string(range.first) + ".." +
                         std::to_string(range.first + range.count - 1) + " under prefix '" +
                         prefix_ + "' are held");
  }

  Lease acquire_node(const Layout& layout, std::uint64_t node) override {
    guard_.check(url_);
    check_fixed_node(layout, node, settings_, url_);
    std::lock_guard lock(mu_);
    if (auto lease = try_take(layout, node)) return *lease;
    const RedisReply holder = link_.command({"GET", node_key(node)});
    throw LeaseError(
        LeaseFailure::held, url_,
        "node " + std::to_string(node) + " is held under key " + node_key(node) + " by " +
            (holder.type == Type::string ? holder.str : std::string("a holder that just left")) +
            "; a node ID configured twice would issue the same IDs twice");
  }

  void renew(Lease& lease, std::int64_t mark) override {
    guard_.check(url_);
    std::lock_guard lock(mu_);
    const std::int64_t t0 = now_ms(*clock_);
    const RedisReply r =
        link_.command({"EVAL", kRenewScript, "3", node_key(lease.node), mark_key(lease.node),
                       generation_key(), lease.token, std::to_string(settings_.ttl_ms),
                       mark == kNoMark ? "" : std::to_string(mark), lease.generation});
    if (r.type == Type::integer && r.integer == 2)
      throw LeaseError(LeaseFailure::lost, url_,
                       "store state lost: key " + generation_key() + " is " +
                           (lease.generation.empty() ? "there" : "gone or changed") + " (" +
                           why_state_lost() + "), so another holder could take node " +
                           std::to_string(lease.node) + " with no mark");
    if (r.type != Type::integer || r.integer != 1)
      throw LeaseError(LeaseFailure::lost, url_,
                       "key " + node_key(lease.node) +
                           " no longer holds this holder's value (it expired," +
                           " was deleted or overwritten, or another holder took node " +
                           std::to_string(lease.node) + ")");
    lease.deadline_unix_ms = t0 + settings_.ttl_ms;
  }

  void release(Lease& lease, std::int64_t mark) override {
    guard_.check(url_);
    std::lock_guard lock(mu_);
    link_.command({"EVAL", kReleaseScript, "2", node_key(lease.node), mark_key(lease.node),
                   lease.token, mark == kNoMark ? "" : std::to_string(mark)});
  }

  bool initialize() override {
    guard_.check(url_);
    std::lock_guard lock(mu_);
    // A holder connected now is one the record would be taken on trust against (a flush
    // under running holders): refuse rather than let its IDs be issued again. (One that is
    // not connected at this moment cannot be seen: the docs say when init is safe.)
    bool connected = false;
    try {
      connected = other_holder_connected();
    } catch (const LeaseError& e) {
      if (e.reason() != LeaseFailure::rejected) throw;  // CLIENT refused: cannot look
    }
    if (connected)
      throw LeaseError(LeaseFailure::rejected, url_,
                       "a holder of prefix '" + prefix_ +
                           "' is connected (CLIENT LIST): `lease init` is for a store no holder "
                           "ran on; after a flush, let the first holder wait out the window");
    const RedisReply set =
        link_.command({"SET", generation_key(), new_generation_record(kNoMark), "NX"});
    return set.type != Type::nil;
  }

  std::vector<HolderInfo> list(const Layout& layout) override {
    guard_.check(url_);
    const NodeRange range = node_range(settings_, layout, url_);
    std::lock_guard lock(mu_);
    std::vector<HolderInfo> rows;
    for (std::uint64_t start = 0; start < range.count; start += kChunk) {
      const std::uint64_t n = std::min(kChunk, range.count - start);
      std::vector<std::string> mget{"MGET"};
      for (std::uint64_t i = 0; i < n; ++i) mget.push_back(node_key(range.first + start + i));
      const RedisReply held = link_.command(mget);
      for (std::uint64_t i = 0; i < n && i < held.elements.size(); ++i) {
        const RedisReply& v = held.elements[i];
        if (v.type != Type::string) continue;
        HolderInfo row;
        set_node(row, layout, range.first + start + i);
        read_holder_json(v.str, row);
        const RedisReply ttl = link_.command({"PTTL", node_key(row.node)});
        row.ttl_left_ms = ttl.type == Type::integer ? ttl.integer : -1;
        const RedisReply mark = link_.command({"GET", mark_key(row.node)});
        if (mark.type == Type::string) row.high_water_unix_ms = parse_mark(mark.str, row.node);
        rows.push_back(std::move(row));
      }
    }
    return rows;
  }

 private:
  static CommonSettings read_settings(const LeaseUrl& url) {
    url.allow_only({"ttl", "timeout", "dc", "nodes", "prefix"});
    return network_settings(url, 10'000);
  }
  std::string node_key(std::uint64_t node) const {
    return prefix_ + "node:" + std::to_string(node);
  }
  std::string mark_key(std::uint64_t node) const {
    return prefix_ + "mark:" + std::to_string(node);
  }
  std::string generation_key() const { return prefix_ + "generation"; }

  // Reads the generation record, or creates it: into generation_ and reset_ms_. mu_ held.
  // A record created here counts as a loss from now: Redis cannot say whether holders of an
  // earlier state still issue (they need not be connected: an idle `timeout`, CLIENT KILL,
  // a network blip), and a missing record looks the same whether the prefix is new or was
  // flushed. A new prefix is provisioned with `idforge lease init` to skip the wait.
  void read_or_create_generation() {
    RedisReply g = link_.command({"GET", generation_key()});
    if (g.type != Type::string) {
      link_.command({"SET", generation_key(), new_generation_record(now_ms(*clock_)), "NX"});
      g = link_.command({"GET", generation_key()});
      if (g.type != Type::string)
        throw LeaseError(LeaseFailure::rejected, url_,
                         "key " + generation_key() + " vanished right after it was set");
    }
    reset_ms_ = generation_reset(g.str, "key " + generation_key(), url_);
    generation_ = g.str;
    if (run_id_.empty()) run_id_ = info_field("run_id");
  }

  // Whether another connection carries this prefix's name (a holder talking to Redis now).
  bool other_holder_connected() {
    const RedisReply me = link_.command({"CLIENT", "ID"});
    const RedisReply list = link_.command({"CLIENT", "LIST"});
    const std::string mine = "id=" + std::to_string(me.integer) + " ";
    const std::string name = " name=" + presence_tag(prefix_) + " ";
    std::istringstream lines(list.str);
    for (std::string line; std::getline(lines, line);)
      if (line.find(name) != std::string::npos && !line.starts_with(mine)) return true;
    return false;
  }

  // One field of INFO server ("" if absent or refused).
  std::string info_field(const std::string& field) {
    try {
      const RedisReply info = link_.command({"INFO", "server"});
      const std::string key = field + ":";
      std::istringstream lines(info.str);
      for (std::string line; std::getline(lines, line);) {
        if (!line.starts_with(key)) continue;
        std::string v = line.substr(key.size());
        while (!v.empty() && (v.back() == '\r' || v.back() == ' ')) v.pop_back();
        return v;
      }
    } catch (const LeaseError& e) {
      if (e.reason() != LeaseFailure::rejected) throw;
    }
    return "";
  }

  // Words for a renewal that found the generation record gone. mu_ held.
  std::string why_state_lost() {
    std::string now_id;
    try {
      now_id = info_field("run_id");
    } catch (const LeaseError&) {
    }
    if (!run_id_.empty() && !now_id.empty() && now_id != run_id_)
      return "Redis restarted without its data: run_id " + run_id_ + " is now " + now_id;
    return "FLUSHALL, FLUSHDB or a delete by hand";
  }

  // SET NX PX on node's key; the lease, or nullopt if someone holds it. mu_ held.
  std::optional<Lease> try_take(const Layout& layout, std::uint64_t node) {
    read_or_create_generation();
    Lease lease;
    lease.holder = new_holder_id();
    set_node(lease, layout, node);
    const std::int64_t t0 = now_ms(*clock_);
    lease.since_unix_ms = t0;
    lease.token = holder_json(lease);
    const RedisReply set = link_.command(
        {"SET", node_key(node), lease.token, "NX", "PX", std::to_string(settings_.ttl_ms)});
    if (set.type == Type::nil) return std::nullopt;
    // Redis starts the TTL when it runs SET, after t0: a deadline from t0 is early, never late.
    lease.deadline_unix_ms = t0 + settings_.ttl_ms;
    const RedisReply mark = link_.command({"GET", mark_key(node)});
    lease.high_water_unix_ms = mark.type == Type::string ? parse_mark(mark.str, node) : kNoMark;
    lease.generation = generation_;
    lease.store_reset_unix_ms = reset_ms_;
    return lease;
  }

  std::int64_t parse_mark(const std::string& text, std::uint64_t node) const {
    return parse_mark_text(text, "key " + mark_key(node), url_);
  }

  std::string prefix_;
  RedisLink link_;
  std::string generation_;           // the generation record as last read
  std::int64_t reset_ms_ = kNoMark;  // its reset time
  std::string run_id_;               // Redis's run_id when the record was first read
};

}  // namespace

std::unique_ptr<LeaseStore> make_redis_store(const LeaseUrl& url, Clock& clock) {
  return std::make_unique<RedisStore>(url, clock);
}

}  // namespace idforge::coord::detail
