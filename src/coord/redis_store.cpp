// redis://HOST:PORT — Redis 7 through hiredis. Node ID N is the key PREFIX node:N, set with
// SET NX PX to a value unique to this holder (holder_json, with a nonce); renewal and
// release are Lua scripts that act only if the value is still ours (compare-and-extend,
// compare-and-delete), so a holder whose key expired and was taken cannot touch it again.
// The mark is PREFIX mark:N, without expiry, raised by the renewal script in the same step.
// One Redis only (no Cluster: the scripts touch two keys built from one node number).
// A key deleted or overwritten by hand fails the next renewal's compare (lost); the mark key
// survives, so a newcomer that takes the node meanwhile starts above the holder's mark.
#include <charconv>
#include <optional>

#include "redis_link.hpp"
#include "store_support.hpp"

namespace idforge::coord::detail {
namespace {

// KEYS: node key, mark key. ARGV: our value, ttl ms, mark ('' = keep).
constexpr const char* kRenewScript = R"lua(
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

class RedisStore final : public LeaseStore {
 public:
  RedisStore(const LeaseUrl& url, Clock& clock)
      : url_(url.text),
        clock_(&clock),
        settings_(read_settings(url)),
        prefix_(url.param("prefix").value_or("idforge:lease:")),
        link_(url.endpoints.front(), settings_.timeout_ms, url.text) {}

  const std::string& url() const noexcept override { return url_; }

  void check(const Layout& layout, std::optional<std::uint64_t> node) const override {
    if (node)
      check_fixed_node(layout, *node, settings_, url_);
    else
      (void)node_range(settings_, layout, url_);
  }
  std::int64_t ttl_ms() const noexcept override { return settings_.ttl_ms; }

  Lease acquire(const Layout& layout) override {
    guard_.check(url_);
    const NodeRange range = node_range(settings_, layout, url_);
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
    const RedisReply r = link_.command(
        {"EVAL", kRenewScript, "2", node_key(lease.node), mark_key(lease.node), lease.token,
         std::to_string(settings_.ttl_ms), mark == kNoMark ? "" : std::to_string(mark)});
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
    return common_settings(url, 10'000);
  }
  std::string node_key(std::uint64_t node) const {
    return prefix_ + "node:" + std::to_string(node);
  }
  std::string mark_key(std::uint64_t node) const {
    return prefix_ + "mark:" + std::to_string(node);
  }

  // SET NX PX on node's key; the lease, or nullopt if someone holds it. mu_ held.
  std::optional<Lease> try_take(const Layout& layout, std::uint64_t node) {
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
    return lease;
  }

  std::int64_t parse_mark(const std::string& text, std::uint64_t node) const {
    return parse_mark_text(text, "key " + mark_key(node), url_);
  }

  std::string url_;
  Clock* clock_;
  CommonSettings settings_;
  std::string prefix_;
  ForkGuard guard_;
  StoreMutex mu_;
  RedisLink link_;
};

}  // namespace

std::unique_ptr<LeaseStore> make_redis_store(const LeaseUrl& url, Clock& clock) {
  return std::make_unique<RedisStore>(url, clock);
}

}  // namespace idforge::coord::detail
