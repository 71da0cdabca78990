// The explorer's etcd: EtcdClient (src/coord/etcd_client.hpp) over the world's shared key
// and lease tables instead of the JSON gateway, so the real EtcdStore runs against it. A
// call parks the actor before it is applied (the request) and after (the reply); leases
// expire on the world's true time, taking their keys with them, and every put or delete
// moves the revision on. It answers the calls EtcdStore makes, as the gateway answers them
// (int64 as strings, keys and values in base64); any other call is an error.
#include <sodium.h>

#include <cstdlib>
#include <string>

#include "actor.hpp"
#include "etcd_client.hpp"
#include "idforge/coord/lease.hpp"
#include "world.hpp"

namespace idforge::coord::detail {
namespace {

using explore::EtcdKey;
using explore::EtcdLease;
using explore::park;
using explore::Point;
using explore::World;
using json = nlohmann::json;

std::int64_t number(const json& j, const char* key) {
  return EtcdClient::int_field(j, key);
}

void expire_leases(World& w) {
  const std::int64_t now = w.true_ns.load();
  for (EtcdLease& l : w.etcd_leases) {
    if (!l.used || l.expires_ns > now) continue;
    l.used = false;
    for (EtcdKey& k : w.etcd)
      if (k.used && k.lease == l.id) k.used = false, ++w.etcd_revision;
  }
}

EtcdLease* lease(World& w, std::int64_t id) {
  for (EtcdLease& l : w.etcd_leases)
    if (l.used && l.id == id) return &l;
  return nullptr;
}

EtcdKey* key(World& w, const std::string& k) {
  for (EtcdKey& e : w.etcd)
    if (e.used && k == e.key) return &e;
  return nullptr;
}

json kv_json(const EtcdKey& e) {
  return {{"key", EtcdClient::encode64(e.key)},
          {"value", EtcdClient::encode64(e.value)},
          {"create_revision", std::to_string(e.create_revision)},
          {"lease", std::to_string(e.lease)}};
}

class Apply {
 public:
  Apply(World& w, const EtcdClient& client) : w_(w), client_(client) {}

  json call(const std::string& path, const json& body) {
    expire_leases(w_);
    if (path == "/v3/lease/grant") {
      for (EtcdLease& l : w_.etcd_leases)
        if (!l.used) {
          const std::int64_t ttl = std::max<std::int64_t>(1, body.value("TTL", 1));
          l = {true, ++w_.etcd_next_lease + 1000, ttl, w_.true_ns.load() + ttl * 1'000'000'000};
          return {{"ID", std::to_string(l.id)}, {"TTL", std::to_string(ttl)}};
        }
      std::abort();
    }
    if (path == "/v3/lease/keepalive") {
      EtcdLease* l = lease(w_, number(body, "ID"));
      if (!l) return {{"ID", body.value("ID", "0")}, {"TTL", "0"}};
      l->expires_ns = w_.true_ns.load() + l->ttl_s * 1'000'000'000;
      return {{"ID", std::to_string(l->id)}, {"TTL", std::to_string(l->ttl_s)}};
    }
    if (path == "/v3/lease/revoke") {
      if (EtcdLease* l = lease(w_, number(body, "ID"))) {
        l->expires_ns = 0;
        expire_leases(w_);
      }
      return json::object();
    }
    if (path == "/v3/lease/timetolive") {
      const EtcdLease* l = lease(w_, number(body, "ID"));
      return {
          {"TTL", std::to_string(l ? (l->expires_ns - w_.true_ns.load()) / 1'000'000'000 : -1)}};
    }
    if (path == "/v3/kv/range") return range(body);
    if (path == "/v3/kv/txn") return txn(body);
    throw LeaseError(LeaseFailure::rejected, "etcd double", "no such call " + path);
  }

 private:
  json range(const json& body) {
    const std::string from = client_.decode64(body.value("key", ""));
    const std::string to =
        body.contains("range_end") ? client_.decode64(body.value("range_end", "")) : "";
    json kvs = json::array();
    for (const EtcdKey& e : w_.etcd) {
      if (!e.used) continue;
      const std::string k = e.key;
      if (to.empty() ? k == from : (k >= from && k < to)) kvs.push_back(kv_json(e));
    }
    return {{"kvs", kvs}, {"count", std::to_string(kvs.size())}};
  }

  bool holds(const json& c) {
    const EtcdKey* e = key(w_, client_.decode64(c.value("key", "")));
    const std::string target = c.value("target", "");
    if (target == "CREATE") return (e ? e->create_revision : 0) == number(c, "create_revision");
    if (target == "VALUE") return e && client_.decode64(c.value("value", "")) == e->value;
    throw LeaseError(LeaseFailure::rejected, "etcd double", "no such compare target " + target);
  }

  json txn(const json& body) {
    bool ok = true;
    for (const json& c : body.value("compare", json::array())) ok = ok && holds(c);
    json responses = json::array();
    for (const json& op : body.value(ok ? "success" : "failure", json::array())) {
      if (op.contains("request_put")) {
        const json& p = op["request_put"];
        const std::string k = client_.decode64(p.value("key", ""));
        EtcdKey* e = key(w_, k);
        ++w_.etcd_revision;
        if (!e) {
          for (EtcdKey& slot : w_.etcd)
            if (!e && !slot.used) e = &slot;
          if (!e) std::abort();
          *e = {};
          e->used = true;
          explore::put(e->key, k.c_str());
          e->create_revision = w_.etcd_revision;
        }
        explore::put(e->value, client_.decode64(p.value("value", "")).c_str());
        e->lease = number(p, "lease");
        responses.push_back({{"response_put", json::object()}});
      } else if (op.contains("request_delete_range")) {
        if (EtcdKey* e = key(w_, client_.decode64(op["request_delete_range"].value("key", ""))))
          e->used = false, ++w_.etcd_revision;
        responses.push_back({{"response_delete_range", json::object()}});
      } else if (op.contains("request_range")) {
        responses.push_back({{"response_range", range(op["request_range"])}});
      }
    }
    return {{"header", {{"revision", std::to_string(w_.etcd_revision)}}},
            {"succeeded", ok},
            {"responses", responses}};
  }

  World& w_;
  const EtcdClient& client_;
};

}  // namespace

EtcdClient::EtcdClient(std::vector<Endpoint> endpoints, std::int64_t timeout_ms,
                       std::string store_url)
    : endpoints_(std::move(endpoints)), timeout_ms_(timeout_ms), store_url_(std::move(store_url)) {
  if (sodium_init() < 0) std::abort();
}

EtcdClient::~EtcdClient() = default;

std::string EtcdClient::current() const {
  return "etcd double";
}

nlohmann::json EtcdClient::call(const std::string& path, const nlohmann::json& body) {
  const std::string what = "etcd " + path;
  park(Point::store_request, what.c_str());
  World& w = explore::world();
  const json out = Apply(w, *this).call(path, body);
  park(Point::store_reply, what.c_str());
  if (w.lose_next_reply.exchange(0) != 0)
    throw LeaseError(LeaseFailure::unreachable, store_url_,
                     "the explorer lost the reply to " + path);
  return out;
}

std::string EtcdClient::encode64(std::string_view bytes) {
  std::string out(sodium_base64_encoded_len(bytes.size(), sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()),
                    bytes.size(), sodium_base64_VARIANT_ORIGINAL);
  out.resize(out.size() - 1);
  return out;
}

std::string EtcdClient::decode64(std::string_view text) const {
  std::string out(text.size() / 4 * 3 + 3, '\0');
  std::size_t len = 0;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), text.data(),
                        text.size(), nullptr, &len, nullptr, sodium_base64_VARIANT_ORIGINAL) != 0)
    throw LeaseError(LeaseFailure::rejected, store_url_, "invalid base64");
  out.resize(len);
  return out;
}

std::int64_t EtcdClient::int_field(const nlohmann::json& j, const char* key) {
  if (!j.contains(key)) return 0;
  const auto& v = j[key];
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_string()) return std::stoll(v.get<std::string>());
  return 0;
}

}  // namespace idforge::coord::detail
