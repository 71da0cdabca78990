#include "redis_link.hpp"

#include <hiredis/hiredis.h>

#include <memory>

#include "idforge/coord/lease.hpp"
#include "store_support.hpp"

namespace idforge::coord::detail {
namespace {

struct ReplyDeleter {
  void operator()(redisReply* r) const noexcept { freeReplyObject(r); }
};

RedisReply copy(const redisReply* r) {
  RedisReply out;
  switch (r->type) {
    case REDIS_REPLY_INTEGER:
      out.type = RedisReply::Type::integer;
      out.integer = r->integer;
      break;
    case REDIS_REPLY_STRING:
      out.type = RedisReply::Type::string;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_STATUS:
      out.type = RedisReply::Type::status;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ERROR:
      out.type = RedisReply::Type::error;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ARRAY:
      out.type = RedisReply::Type::array;
      for (std::size_t i = 0; i < r->elements; ++i) out.elements.push_back(copy(r->element[i]));
      break;
    default:
      break;
  }
  return out;
}

}  // namespace

RedisLink::RedisLink(Endpoint endpoint, std::int64_t timeout_ms, std::string store_url,
                     std::string client_name)
    : endpoint_(std::move(endpoint)),
      timeout_ms_(timeout_ms),
      store_url_(std::move(store_url)),
      client_name_(std::move(client_name)) {}

RedisLink::~RedisLink() {
  if (ctx_) redisFree(static_cast<redisContext*>(ctx_));
}

RedisReply RedisLink::command(const std::vector<std::string>& args) {
  const timeval timeout{static_cast<time_t>(timeout_ms_ / 1000),
                        static_cast<suseconds_t>((timeout_ms_ % 1000) * 1000)};
  const std::string where = endpoint_.host + ":" + std::to_string(endpoint_.port);
  auto* ctx = static_cast<redisContext*>(ctx_);
  if (!ctx) {
    const std::int64_t connect_ms = connect_timeout_ms(timeout_ms_);
    const timeval connect_timeout{static_cast<time_t>(connect_ms / 1000),
                                  static_cast<suseconds_t>((connect_ms % 1000) * 1000)};
    ctx = redisConnectWithTimeout(endpoint_.host.c_str(), endpoint_.port, connect_timeout);
    if (!ctx || ctx->err) {
      const std::string why = ctx ? ctx->errstr : "out of memory";
      if (ctx) redisFree(ctx);
      throw LeaseError(LeaseFailure::unreachable, store_url_,
                       "cannot connect to Redis at " + where + ": " + why + " (connect timeout " +
                           std::to_string(connect_ms) + " ms)");
    }
    redisSetTimeout(ctx, timeout);
    if (!client_name_.empty()) {
      // The name lets a holder that re-creates a lost generation record see this one.
      auto* named = static_cast<redisReply*>(
          redisCommand(ctx, "CLIENT SETNAME %b", client_name_.data(), client_name_.size()));
      if (named) freeReplyObject(named);
      if (ctx->err) {
        const std::string why = ctx->errstr;
        redisFree(ctx);
        throw LeaseError(LeaseFailure::unreachable, store_url_,
                         "Redis at " + where + " did not answer CLIENT SETNAME, sent on " +
                             "connecting: " + (why.empty() ? "connection closed" : why) +
                             " (timeout " + std::to_string(timeout_ms_) + " ms)");
      }
    }
    ctx_ = ctx;
  }
  std::vector<const char*> argv;
  std::vector<std::size_t> lens;
  for (const auto& a : args) argv.push_back(a.data()), lens.push_back(a.size());
  std::unique_ptr<redisReply, ReplyDeleter> r(static_cast<redisReply*>(
      redisCommandArgv(ctx, static_cast<int>(args.size()), argv.data(), lens.data())));
  if (!r) {
    const std::string why = ctx->errstr;
    redisFree(ctx);  // a timed-out connection may deliver a stale reply later: never reuse it
    ctx_ = nullptr;
    throw LeaseError(LeaseFailure::unreachable, store_url_,
                     "Redis at " + where + " did not answer " + args.front() + ": " +
                         (why.empty() ? "connection closed" : why) + " (timeout " +
                         std::to_string(timeout_ms_) + " ms)");
  }
  if (r->type == REDIS_REPLY_ERROR) {
    const std::string error(r->str, r->len);
    // A server that cannot answer yet (loading its data set after a restart, a script
    // running, a replica without its master) is a store not answering, tried again like a
    // timeout; any other error is a refusal.
    const bool not_yet = error.starts_with("LOADING") || error.starts_with("BUSY") ||
                         error.starts_with("MASTERDOWN") || error.starts_with("TRYAGAIN");
    throw LeaseError(not_yet ? LeaseFailure::unreachable : LeaseFailure::rejected, store_url_,
                     "Redis at " + where + " answered " + args.front() + " with " + error);
  }
  return copy(r.get());
}

}  // namespace idforge::coord::detail
