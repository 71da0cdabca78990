// The explorer's Redis: RedisLink (src/coord/redis_link.hpp) over the world's shared key
// table instead of a socket, so the real RedisStore runs against it. Each command parks the
// actor before it is applied (the request) and after (the reply); keys expire on the
// world's true time. It knows the commands and the two scripts RedisStore sends; anything
// else is an error reply, so a change in the store shows up here instead of passing.
#include <cstdint>
#include <string>

#include "actor.hpp"
#include "idforge/coord/lease.hpp"
#include "redis_link.hpp"
#include "world.hpp"

namespace idforge::coord::detail {
namespace {

using explore::park;
using explore::Point;
using explore::RedisKey;
using explore::World;
using Type = RedisReply::Type;

RedisKey* find(World& w, const std::string& key) {
  for (RedisKey& k : w.redis) {
    if (!k.used || key != k.key) continue;
    if (k.expires_ns >= 0 && w.true_ns.load() >= k.expires_ns) {
      k.used = false;  // expired
      return nullptr;
    }
    return &k;
  }
  return nullptr;
}

RedisKey& put_key(World& w, const std::string& key, const std::string& value,
                  std::int64_t expires_ns) {
  RedisKey* k = find(w, key);
  for (RedisKey& slot : w.redis)
    if (!k && !slot.used) k = &slot;
  if (!k) std::abort();  // the scenarios stay far below the table's size
  k->used = true;
  explore::put(k->key, key.c_str());
  explore::put(k->value, value.c_str());
  k->expires_ns = expires_ns;
  return *k;
}

RedisReply nil() {
  return {};
}
RedisReply integer(long long v) {
  return {Type::integer, v, "", {}};
}
RedisReply string(const std::string& s) {
  return {Type::string, 0, s, {}};
}
RedisReply status(const std::string& s) {
  return {Type::status, 0, s, {}};
}

RedisReply get(World& w, const std::string& key) {
  const RedisKey* k = find(w, key);
  return k ? string(k->value) : nil();
}

// args: EVAL script numkeys key1 key2 argv...
RedisReply eval(World& w, const std::vector<std::string>& a) {
  const std::string& script = a.at(1);
  const std::string &node = a.at(3), &mark = a.at(4);
  const std::int64_t now = w.true_ns.load();
  const RedisKey* held = find(w, node);
  if (script.find("PEXPIRE") != std::string::npos) {
    // renew: KEYS node, mark, generation; ARGV value, ttl, mark, generation record
    const RedisKey* gen = find(w, a.at(5));
    if (!gen || a.at(9) != gen->value) return integer(2);
    if (!held || a.at(6) != held->value) return integer(0);
    put_key(w, node, a.at(6), now + std::stoll(a.at(7)) * 1'000'000);
    if (!a.at(8).empty()) {
      const RedisKey* old = find(w, mark);
      if (!old || std::stoll(a.at(8)) > std::stoll(old->value)) put_key(w, mark, a.at(8), -1);
    }
    return integer(1);
  }
  if (script.find("'DEL'") != std::string::npos) {  // release: compare, store the mark, delete
    if (!held || a.at(5) != held->value) return integer(0);
    if (!a.at(6).empty()) put_key(w, mark, a.at(6), -1);
    for (RedisKey& k : w.redis)
      if (k.used && node == k.key) k.used = false;
    return integer(1);
  }
  return {Type::error, 0, "ERR the explorer's Redis knows no such script", {}};
}

RedisReply apply(World& w, const std::vector<std::string>& a) {
  const std::string& cmd = a.at(0);
  if (cmd == "MGET") {
    RedisReply r{Type::array, 0, "", {}};
    for (std::size_t i = 1; i < a.size(); ++i) r.elements.push_back(get(w, a[i]));
    return r;
  }
  if (cmd == "GET") return get(w, a.at(1));
  if (cmd == "SET" && a.size() == 6 && a[3] == "NX" && a[4] == "PX") {
    if (find(w, a[1])) return nil();
    put_key(w, a[1], a[2], w.true_ns.load() + std::stoll(a[5]) * 1'000'000);
    return status("OK");
  }
  if (cmd == "SET" && a.size() == 4 && a[3] == "NX") {  // the generation record
    if (find(w, a[1])) return nil();
    put_key(w, a[1], a[2], -1);
    return status("OK");
  }
  // A Redis long up with no other idforge connection: a fresh generation record waits for
  // nothing (store_generation.hpp).
  if (cmd == "CLIENT" && a.at(1) == "ID") return integer(1);
  if (cmd == "CLIENT" && a.at(1) == "LIST") return string("id=1 addr=explorer name=idforge\n");
  if (cmd == "INFO") return string("# Server\r\nrun_id:explorer\r\nuptime_in_seconds:86400\r\n");
  if (cmd == "SET" && a.size() == 3) {
    put_key(w, a[1], a[2], -1);
    return status("OK");
  }
  if (cmd == "DEL") {
    long long n = 0;
    for (RedisKey& k : w.redis)
      if (k.used && a.at(1) == k.key) k.used = false, ++n;
    return integer(n);
  }
  if (cmd == "PTTL") {
    const RedisKey* k = find(w, a.at(1));
    return integer(!k                  ? -2
                   : k->expires_ns < 0 ? -1
                                       : (k->expires_ns - w.true_ns.load()) / 1'000'000);
  }
  if (cmd == "EVAL") return eval(w, a);
  return {Type::error, 0, "ERR the explorer's Redis knows no " + cmd, {}};
}

}  // namespace

RedisLink::RedisLink(Endpoint endpoint, std::int64_t timeout_ms, std::string store_url,
                     std::string client_name)
    : endpoint_(std::move(endpoint)),
      timeout_ms_(timeout_ms),
      store_url_(std::move(store_url)),
      client_name_(std::move(client_name)) {}

RedisLink::~RedisLink() = default;

RedisReply RedisLink::command(const std::vector<std::string>& args) {
  const std::string what = "redis " + args.at(0);
  park(Point::store_request, what.c_str());
  World& w = explore::world();
  const RedisReply r = apply(w, args);
  park(Point::store_reply, what.c_str());
  if (w.lose_next_reply.exchange(0) != 0)
    throw LeaseError(LeaseFailure::unreachable, store_url_,
                     "the explorer lost the reply to " + args.at(0));
  if (r.type == Type::error) throw LeaseError(LeaseFailure::rejected, store_url_, r.str);
  return r;
}

}  // namespace idforge::coord::detail
