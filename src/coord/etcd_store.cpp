// etcd://HOST:PORT[,HOST:PORT...] — etcd v3 through its JSON gateway. Acquiring grants a
// lease with the TTL, then claims PREFIX node/N in a transaction that puts the key (bound
// to the lease) only if its create_revision is 0, i.e. it does not exist. Keep-alive
// renews the lease; when it lapses etcd deletes the key itself. The mark is PREFIX mark/N,
// without a lease, written only by a transaction that checks the node key is still the one
// this holder created (same create_revision) and still holds this holder's value, so a
// holder that lost its lease cannot overwrite the next holder's mark, and a key deleted or
// overwritten by hand fails the next renewal (lost).
// A wiped data directory (or another cluster behind the same address) loses every key:
// PREFIX generation (store_generation.hpp) is compared by every renewal, and the holder
// that creates it records the time as a possible loss, since etcd cannot say whether holders
// of an earlier state still issue: the first start on a fresh prefix waits one window.
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "etcd_client.hpp"
#include "store_generation.hpp"
#include "store_support.hpp"

namespace idforge::coord::detail {
namespace {

using json = nlohmann::json;

// The key after every key that starts with prefix (etcd's range_end for a prefix).
std::string prefix_end(std::string prefix) {
  while (!prefix.empty() && static_cast<unsigned char>(prefix.back()) == 0xff) prefix.pop_back();
  if (!prefix.empty()) prefix.back() = static_cast<char>(prefix.back() + 1);
  return prefix;
}

class EtcdStore final : public StoreBase {
 public:
  EtcdStore(const LeaseUrl& url, Clock& clock)
      : StoreBase(url.text, clock, read_settings(url)),
        prefix_(url.param("prefix").value_or("/idforge/lease/")),
        client_(url.endpoints, settings_.timeout_ms, url.text) {}

  Lease acquire(const Layout& layout) override {
    const NodeRange range = acquire_range(layout);
    std::lock_guard lock(mu_);
    const Grant grant = new_lease();
    std::set<std::uint64_t> taken;
    const json held =
        client_.call("/v3/kv/range", {{"key", b64(prefix_ + "node/")},
                                      {"range_end", b64(prefix_end(prefix_ + "node/"))},
                                      {"keys_only", true}});
    for (const auto& kv : held.value("kvs", json::array())) {
      const std::string key = client_.decode64(kv.value("key", ""));
      try {
        taken.insert(std::stoull(key.substr(prefix_.size() + 5)));
      } catch (const std::exception&) {  // a foreign key under the prefix: not ours to judge
      }
    }
    for (std::uint64_t i = 0; i < range.count; ++i) {
      const std::uint64_t node = range.first + i;
      if (taken.contains(node)) continue;
      if (auto lease = try_take(layout, node, grant)) return *lease;
    }
    revoke(grant.id);
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
    const Grant grant = new_lease();
    if (auto lease = try_take(layout, node, grant)) return *lease;
    revoke(grant.id);
    const json now = client_.call("/v3/kv/range", {{"key", b64(node_key(node))}});
    std::string holder = "a holder that just left";
    if (now.contains("kvs") && !now["kvs"].empty())
      holder = client_.decode64(now["kvs"][0].value("value", ""));
    throw LeaseError(LeaseFailure::held, url_,
                     "node " + std::to_string(node) + " is held under key " + node_key(node) +
                         " by " + holder +
                         "; a node ID configured twice would issue the same IDs twice");
  }

  void renew(Lease& lease, std::int64_t mark) override {
    guard_.check(url_);
    std::lock_guard lock(mu_);
    const auto [lease_id, revision] = parse_token(lease);
    Held& held = find(lease);
    const std::int64_t t0 = now_ms(*clock_);
    const json alive = client_.call("/v3/lease/keepalive", {{"ID", std::to_string(lease_id)}});
    const std::int64_t ttl_s = EtcdClient::int_field(alive, "TTL");
    if (ttl_s <= 0)
      throw LeaseError(LeaseFailure::lost, url_,
                       "etcd lease " + std::to_string(lease_id) + " of node " +
                           std::to_string(lease.node) + " has expired; etcd deleted " +
                           node_key(lease.node));
    // Checks the node key is still ours and raises the mark in one step.
    json success = json::array();
    if (mark != kNoMark && mark > held.stored_mark)
      success.push_back(
          {{"request_put",
            {{"key", b64(mark_key(lease.node))}, {"value", b64(std::to_string(mark))}}}});
    json compare = still_ours(lease.node, revision, held.value);
    compare.push_back(
        {{"target", "VALUE"}, {"key", b64(generation_key())}, {"value", b64(lease.generation)}});
    const json txn = client_.call("/v3/kv/txn", {{"compare", compare}, {"success", success}});
    if (!txn.value("succeeded", false) && generation_changed(lease))
      throw LeaseError(LeaseFailure::lost, url_,
                       "store state lost: key " + generation_key() +
                           " is gone or changed (the etcd data was wiped or restored, or the "
                           "key deleted by hand; cluster ID " +
                           cluster_id_ + " when acquired, " + cluster_id(txn) +
                           " now), so another holder could take node " +
                           std::to_string(lease.node) + " with no mark");
    if (!txn.value("succeeded", false))
      throw LeaseError(LeaseFailure::lost, url_,
                       "key " + node_key(lease.node) +
                           " is no longer the one this holder created (revision " +
                           std::to_string(revision) +
                           ") with this holder's value: it was deleted, overwritten " +
                           "or taken by another holder");
    if (!success.empty()) held.stored_mark = mark;
    lease.deadline_unix_ms = t0 + ttl_s * 1000;
  }

  void release(Lease& lease, std::int64_t mark) override {
    guard_.check(url_);
    std::lock_guard lock(mu_);
    const auto [lease_id, revision] = parse_token(lease);
    const auto it = held_.find(lease.node);
    if (it == held_.end()) return;
    json success = json::array();
    if (mark != kNoMark)
      success.push_back(
          {{"request_put",
            {{"key", b64(mark_key(lease.node))}, {"value", b64(std::to_string(mark))}}}});
    success.push_back({{"request_delete_range", {{"key", b64(node_key(lease.node))}}}});
    client_.call("/v3/kv/txn", {{"compare", still_ours(lease.node, revision, it->second.value)},
                                {"success", success}});
    held_.erase(it);
    revoke(lease_id);
  }

  bool initialize() override {
    guard_.check(url_);
    std::lock_guard lock(mu_);
    const std::string key = b64(generation_key());
    const json txn = client_.call(
        "/v3/kv/txn",
        {{"compare", json::array({{{"target", "CREATE"}, {"key", key}, {"create_revision", "0"}}})},
         {"success",
          json::array({{{"request_put",
                         {{"key", key}, {"value", b64(new_generation_record(kNoMark))}}}}})}});
    return txn.value("succeeded", false);
  }

  std::vector<HolderInfo> list(const Layout& layout) override {
    guard_.check(url_);
    const NodeRange range = node_range(settings_, layout, url_);
    std::lock_guard lock(mu_);
    const json held = client_.call(
        "/v3/kv/range",
        {{"key", b64(prefix_ + "node/")}, {"range_end", b64(prefix_end(prefix_ + "node/"))}});
    std::vector<HolderInfo> rows;
    for (const auto& kv : held.value("kvs", json::array())) {
      const std::string key = client_.decode64(kv.value("key", ""));
      std::uint64_t node = 0;
      try {
        node = std::stoull(key.substr(prefix_.size() + 5));
      } catch (const std::exception&) {
        continue;
      }
      if (node < range.first || node >= range.first + range.count) continue;
      HolderInfo row;
      set_node(row, layout, node);
      read_holder_json(client_.decode64(kv.value("value", "")), row);
      const json ttl = client_.call("/v3/lease/timetolive",
                                    {{"ID", std::to_string(EtcdClient::int_field(kv, "lease"))}});
      row.ttl_left_ms = EtcdClient::int_field(ttl, "TTL") * 1000;
      const json mark = client_.call("/v3/kv/range", {{"key", b64(mark_key(node))}});
      if (mark.contains("kvs") && !mark["kvs"].empty())
        row.high_water_unix_ms =
            parse_mark(client_.decode64(mark["kvs"][0].value("value", "")), node);
      rows.push_back(std::move(row));
    }
    std::sort(rows.begin(), rows.end(),
              [](const auto& a, const auto& b) { return a.node < b.node; });
    return rows;
  }

 private:
  static CommonSettings read_settings(const LeaseUrl& url) {
    url.allow_only({"ttl", "timeout", "dc", "nodes", "prefix"});
    return network_settings(url, 10'000);
  }
  static std::string b64(std::string_view s) { return EtcdClient::encode64(s); }
  std::string node_key(std::uint64_t node) const {
    return prefix_ + "node/" + std::to_string(node);
  }
  std::string mark_key(std::uint64_t node) const {
    return prefix_ + "mark/" + std::to_string(node);
  }
  std::string generation_key() const { return prefix_ + "generation"; }

  static std::string cluster_id(const json& reply) {
    if (!reply.contains("header")) return "unknown";
    const json& h = reply["header"];
    if (!h.contains("cluster_id")) return "unknown";
    return h["cluster_id"].is_string() ? h["cluster_id"].get<std::string>()
                                       : h["cluster_id"].dump();
  }

  // Reads the generation record, or creates it ("ID RESET-MS"; see the top). mu_ held.
  void read_or_create_generation() {
    const std::string key = b64(generation_key());
    const std::string fresh = new_generation_record(now_ms(*clock_));
    const json txn = client_.call(
        "/v3/kv/txn",
        {{"compare", json::array({{{"target", "CREATE"}, {"key", key}, {"create_revision", "0"}}})},
         {"success", json::array({{{"request_put", {{"key", key}, {"value", b64(fresh)}}}}})},
         {"failure", json::array({{{"request_range", {{"key", key}}}}})}});
    std::string record = fresh;
    if (!txn.value("succeeded", false)) {
      record.clear();
      for (const auto& r : txn.value("responses", json::array())) {
        const json kvs = r.value("response_range", json::object()).value("kvs", json::array());
        if (!kvs.empty()) record = client_.decode64(kvs[0].value("value", ""));
      }
    }
    reset_ms_ = generation_reset(record, "key " + generation_key(), url_);
    generation_ = record;
    if (cluster_id_.empty()) cluster_id_ = cluster_id(txn);
  }

  // Whether the generation record differs from lease's (after a failed renewal txn).
  bool generation_changed(const Lease& lease) {
    const json now = client_.call("/v3/kv/range", {{"key", b64(generation_key())}});
    if (!now.contains("kvs") || now["kvs"].empty()) return true;
    return client_.decode64(now["kvs"][0].value("value", "")) != lease.generation;
  }

  struct Grant {
    std::int64_t id = 0;
    std::int64_t ttl_s = 0;
    std::int64_t t0 = 0;  // local ms before the grant: deadlines count from here
  };
  struct Held {
    std::string value;  // the holder text the node key must still hold
    std::int64_t stored_mark = kNoMark;
  };

  // etcd counts TTLs in whole seconds and may raise a short one to its minimum; the answer
  // says what it granted, and the deadline uses that.
  Grant new_lease() {
    Grant g;
    g.t0 = now_ms(*clock_);
    const json grant = client_.call("/v3/lease/grant", {{"TTL", (settings_.ttl_ms + 999) / 1000}});
    g.id = EtcdClient::int_field(grant, "ID");
    g.ttl_s = EtcdClient::int_field(grant, "TTL");
    if (g.id == 0 || g.ttl_s <= 0)
      throw LeaseError(LeaseFailure::rejected, url_, "etcd granted no lease: " + grant.dump());
    return g;
  }

  // Claims node with the granted lease: the lease, or nullopt if someone holds it. mu_ held.
  std::optional<Lease> try_take(const Layout& layout, std::uint64_t node, const Grant& grant) {
    read_or_create_generation();
    Lease lease;
    lease.holder = new_holder_id();
    lease.since_unix_ms = grant.t0;
    set_node(lease, layout, node);
    const std::string value = holder_json(lease);
    const std::int64_t revision = claim(node, value, grant.id);
    if (revision == 0) return std::nullopt;
    lease.token = std::to_string(grant.id) + ":" + std::to_string(revision);
    lease.deadline_unix_ms = grant.t0 + grant.ttl_s * 1000;
    const json mark = client_.call("/v3/kv/range", {{"key", b64(mark_key(node))}});
    lease.high_water_unix_ms = kNoMark;
    if (mark.contains("kvs") && !mark["kvs"].empty())
      lease.high_water_unix_ms =
          parse_mark(client_.decode64(mark["kvs"][0].value("value", "")), node);
    held_[node] = {value, lease.high_water_unix_ms};
    lease.generation = generation_;
    lease.store_reset_unix_ms = reset_ms_;
    return lease;
  }

  Held& find(const Lease& lease) {
    const auto it = held_.find(lease.node);
    if (it == held_.end())
      throw LeaseError(
          LeaseFailure::lost, url_,
          "node " + std::to_string(lease.node) + " is not held by this store (released?)");
    return it->second;
  }

  json still_ours(std::uint64_t node, std::int64_t revision, const std::string& value) const {
    return json::array(
        {{{"target", "CREATE"},
          {"key", b64(node_key(node))},
          {"create_revision", std::to_string(revision)}},
         {{"target", "VALUE"}, {"key", b64(node_key(node))}, {"value", b64(value)}}});
  }

  // Puts the node key if absent; returns its create revision, or 0 if someone holds it.
  std::int64_t claim(std::uint64_t node, const std::string& value, std::int64_t lease_id) {
    const std::string key = b64(node_key(node));
    const json txn = client_.call(
        "/v3/kv/txn",
        {{"compare", json::array({{{"target", "CREATE"}, {"key", key}, {"create_revision", "0"}}})},
         {"success",
          json::array(
              {{{"request_put",
                 {{"key", key}, {"value", b64(value)}, {"lease", std::to_string(lease_id)}}}}})},
         {"failure", json::array({{{"request_range", {{"key", key}}}}})}});
    if (txn.value("succeeded", false)) return EtcdClient::int_field(txn["header"], "revision");
    // After a failover the put may have landed on the first try: then the key is ours.
    for (const auto& r : txn.value("responses", json::array())) {
      const json kvs = r.value("response_range", json::object()).value("kvs", json::array());
      if (!kvs.empty() && EtcdClient::int_field(kvs[0], "lease") == lease_id &&
          client_.decode64(kvs[0].value("value", "")) == value)
        return EtcdClient::int_field(kvs[0], "create_revision");
    }
    return 0;
  }

  void revoke(std::int64_t lease_id) {
    try {
      client_.call("/v3/lease/revoke", {{"ID", std::to_string(lease_id)}});
    } catch (const LeaseError&) {  // an unrevoked lease only lives out its TTL
    }
  }

  std::pair<std::int64_t, std::int64_t> parse_token(const Lease& lease) const {
    const auto colon = lease.token.find(':');
    return {std::stoll(lease.token.substr(0, colon)), std::stoll(lease.token.substr(colon + 1))};
  }

  std::int64_t parse_mark(const std::string& text, std::uint64_t node) const {
    return parse_mark_text(text, "key " + mark_key(node), url_);
  }

  std::string prefix_;
  EtcdClient client_;
  std::map<std::uint64_t, Held> held_;
  std::string generation_;           // the generation record as last read
  std::int64_t reset_ms_ = kNoMark;  // its reset time
  std::string cluster_id_;           // etcd's cluster ID when the record was first read
};

}  // namespace

std::unique_ptr<LeaseStore> make_etcd_store(const LeaseUrl& url, Clock& clock) {
  return std::make_unique<EtcdStore>(url, clock);
}

}  // namespace idforge::coord::detail
