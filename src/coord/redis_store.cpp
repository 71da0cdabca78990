// redis://HOST:PORT — Redis 7 through hiredis. Node ID N is the key PREFIX node:N, set with
// SET NX PX to a value unique to this holder (holder_json, with a nonce); renewal and
// release are Lua scripts that act only if the value is still ours (compare-and-extend,
// compare-and-delete), so a holder whose key expired and was taken cannot touch it again.
// The mark is PREFIX mark:N, without expiry, raised by the renewal script in the same step.
// One Redis only (no Cluster: the scripts touch two keys built from one node number).
#include <hiredis/hiredis.h>

#include <mutex>

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

struct ReplyDeleter {
  void operator()(redisReply* r) const noexcept { freeReplyObject(r); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

class RedisStore final : public LeaseStore {
 public:
  RedisStore(const LeaseUrl& url, Clock& clock)
      : url_(url.text), clock_(&clock), endpoint_(url.endpoints.front()) {
    url.allow_only({"ttl", "timeout", "dc", "nodes", "prefix"});
    settings_ = common_settings(url, 10'000);
    prefix_ = url.param("prefix").value_or("idforge:lease:");
  }
  ~RedisStore() override {
    if (ctx_) redisFree(ctx_);
  }

  const std::string& url() const noexcept override { return url_; }
  std::int64_t ttl_ms() const noexcept override { return settings_.ttl_ms; }

  Lease acquire(const Layout& layout) override {
    const NodeRange range = node_range(settings_, layout, url_);
    std::lock_guard lock(mu_);
    Lease lease;
    lease.holder = new_holder_id();
    for (std::uint64_t start = 0; start < range.count; start += kChunk) {
      const std::uint64_t n = std::min(kChunk, range.count - start);
      std::vector<std::string> mget{"MGET"};
      for (std::uint64_t i = 0; i < n; ++i) mget.push_back(node_key(range.first + start + i));
      const Reply taken = command(mget);
      for (std::uint64_t i = 0; i < n; ++i) {
        if (taken->element[i]->type != REDIS_REPLY_NIL) continue;
        const std::uint64_t node = range.first + start + i;
        set_node(lease, layout, node);
        const std::int64_t t0 = now_ms(*clock_);
        lease.since_unix_ms = t0;
        lease.token = holder_json(lease);
        const Reply set = command({"SET", node_key(node), lease.token, "NX", "PX", std::to_string(settings_.ttl_ms)});
        if (set->type == REDIS_REPLY_NIL) continue;  // taken since the MGET
        // Redis starts the TTL when it runs SET, after t0: a deadline from t0 is early, never late.
        lease.deadline_unix_ms = t0 + settings_.ttl_ms;
        const Reply mark = command({"GET", mark_key(node)});
        lease.high_water_unix_ms = mark->type == REDIS_REPLY_STRING ? parse_mark(mark.get(), node) : kNoMark;
        return lease;
      }
    }
    throw LeaseError(LeaseFailure::space_full, url_,
                     "all " + std::to_string(range.count) + " node IDs " + std::to_string(range.first) +
                         ".." + std::to_string(range.first + range.count - 1) + " under prefix '" +
                         prefix_ + "' are held");
  }

  void renew(Lease& lease, std::int64_t mark) override {
    std::lock_guard lock(mu_);
    const std::int64_t t0 = now_ms(*clock_);
    const Reply r = command({"EVAL", kRenewScript, "2", node_key(lease.node), mark_key(lease.node), lease.token,
                             std::to_string(settings_.ttl_ms), mark == kNoMark ? "" : std::to_string(mark)});
    if (r->type != REDIS_REPLY_INTEGER || r->integer != 1)
      throw LeaseError(LeaseFailure::lost, url_,
                       "key " + node_key(lease.node) + " no longer holds this holder's value (it expired" +
                           " or another holder took node " + std::to_string(lease.node) + ")");
    lease.deadline_unix_ms = t0 + settings_.ttl_ms;
  }

  void release(Lease& lease, std::int64_t mark) override {
    std::lock_guard lock(mu_);
    command({"EVAL", kReleaseScript, "2", node_key(lease.node), mark_key(lease.node), lease.token,
             mark == kNoMark ? "" : std::to_string(mark)});
  }

  std::vector<HolderInfo> list(const Layout& layout) override {
    const NodeRange range = node_range(settings_, layout, url_);
    std::lock_guard lock(mu_);
    std::vector<HolderInfo> rows;
    for (std::uint64_t start = 0; start < range.count; start += kChunk) {
      const std::uint64_t n = std::min(kChunk, range.count - start);
      std::vector<std::string> mget{"MGET"};
      for (std::uint64_t i = 0; i < n; ++i) mget.push_back(node_key(range.first + start + i));
      const Reply held = command(mget);
      for (std::uint64_t i = 0; i < n; ++i) {
        const redisReply* v = held->element[i];
        if (v->type != REDIS_REPLY_STRING) continue;
        HolderInfo row;
        set_node(row, layout, range.first + start + i);
        read_holder_json(std::string_view(v->str, v->len), row);
        const Reply ttl = command({"PTTL", node_key(row.node)});
        row.ttl_left_ms = ttl->type == REDIS_REPLY_INTEGER ? ttl->integer : -1;
        const Reply mark = command({"GET", mark_key(row.node)});
        if (mark->type == REDIS_REPLY_STRING) row.high_water_unix_ms = parse_mark(mark.get(), row.node);
        rows.push_back(std::move(row));
      }
    }
    return rows;
  }

 private:
  std::string node_key(std::uint64_t node) const { return prefix_ + "node:" + std::to_string(node); }
  std::string mark_key(std::uint64_t node) const { return prefix_ + "mark:" + std::to_string(node); }
  std::string where() const { return endpoint_.host + ":" + std::to_string(endpoint_.port); }

  std::int64_t parse_mark(const redisReply* r, std::uint64_t node) const {
    try {
      return std::stoll(std::string(r->str, r->len));
    } catch (const std::exception&) {
      throw LeaseError(LeaseFailure::rejected, url_,
                       "key " + mark_key(node) + " holds '" + std::string(r->str, r->len) +
                           "', not a Unix time in ms");
    }
  }

  void drop() noexcept {
    if (ctx_) redisFree(ctx_);
    ctx_ = nullptr;
  }

  timeval timeout() const noexcept {
    return {static_cast<time_t>(settings_.timeout_ms / 1000),
            static_cast<suseconds_t>((settings_.timeout_ms % 1000) * 1000)};
  }

  // Runs one command; connects first if needed. Connection and reply are both bounded by
  // the timeout, so a stopped (SIGSTOP) server costs at most that long.
  Reply command(const std::vector<std::string>& args) {
    if (!ctx_) {
      ctx_ = redisConnectWithTimeout(endpoint_.host.c_str(), endpoint_.port, timeout());
      if (!ctx_ || ctx_->err) {
        const std::string why = ctx_ ? ctx_->errstr : "out of memory";
        drop();
        throw LeaseError(LeaseFailure::unreachable, url_,
                         "cannot connect to Redis at " + where() + ": " + why + " (timeout " +
                             std::to_string(settings_.timeout_ms) + " ms)");
      }
      redisSetTimeout(ctx_, timeout());
    }
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;
    for (const auto& a : args) argv.push_back(a.data()), lens.push_back(a.size());
    Reply r(static_cast<redisReply*>(
        redisCommandArgv(ctx_, static_cast<int>(args.size()), argv.data(), lens.data())));
    if (!r) {
      const std::string why = ctx_->errstr;
      drop();  // a timed-out connection may deliver a stale reply later: never reuse it
      throw LeaseError(LeaseFailure::unreachable, url_,
                       "Redis at " + where() + " did not answer " + args.front() + ": " +
                           (why.empty() ? "connection closed" : why) + " (timeout " +
                           std::to_string(settings_.timeout_ms) + " ms)");
    }
    if (r->type == REDIS_REPLY_ERROR)
      throw LeaseError(LeaseFailure::rejected, url_,
                       "Redis at " + where() + " answered " + args.front() + " with " +
                           std::string(r->str, r->len));
    return r;
  }

  std::string url_;
  Clock* clock_;
  Endpoint endpoint_;
  CommonSettings settings_;
  std::string prefix_;
  std::mutex mu_;
  redisContext* ctx_ = nullptr;
};

}  // namespace

std::unique_ptr<LeaseStore> make_redis_store(const LeaseUrl& url, Clock& clock) {
  return std::make_unique<RedisStore>(url, clock);
}

}  // namespace idforge::coord::detail
