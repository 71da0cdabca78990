#include "scenarios.hpp"

#include <stdexcept>

namespace idforge::explore {
namespace {

using K = Op::Kind;
using M = EnvMove::Kind;

Op op(K k, int child = -1) {
  return {k, child};
}

// Store URLs, one node ID, a short TTL (renew every 333 ms, fence at the reservation or 166
// ms before the deadline).
std::string url_of(const std::string& store) {
  if (store == "file") return "file:{dir}?nodes=1&ttl=1000";
  if (store == "redis") return "redis://127.0.0.1:1?prefix={prefix}&nodes=1&ttl=1000";
  return "etcd://127.0.0.1:1?prefix={prefix}&nodes=1&ttl=1000";
}

HolderSpec holder(const std::string& name, const std::string& url,
                  std::vector<std::vector<Op>> scripts, std::vector<bool> thread = {}) {
  if (thread.empty()) thread.assign(scripts.size(), true);
  return {name, url, std::nullopt, std::move(scripts), std::move(thread), 0};
}

Scenario base(const std::string& name) {
  Scenario s;
  s.name = name;
  s.policy.max_backward_wait_ms = 5;
  return s;
}

const std::vector<std::string> kStores{"file", "redis", "etcd"};

}  // namespace

std::vector<Scenario> all_scenarios() {
  std::vector<Scenario> out;
  for (const std::string& store : kStores) {
    const std::string url = url_of(store);
    {
      // A forks a child that calls next() and exits (destructors run); B waits to take the node.
      Scenario s = base("fork-exit/" + store);
      s.holders = {holder("A", url,
                          {{op(K::start), op(K::next), op(K::fork, 1), op(K::next), op(K::next)},
                           {op(K::next), op(K::exit)}},
                          {true, false}),
                   holder("B", url, {{op(K::start), op(K::next)}})};
      s.env = {{M::plus_tick, 0, 2}};
      out.push_back(s);
    }
    {
      // A releases on one thread while another is inside next().
      Scenario s = base("release-in-flight/" + store);
      s.holders = {holder("A", url, {{op(K::start), op(K::next), op(K::next)}, {op(K::release)}}),
                   holder("B", url, {{op(K::start), op(K::next)}})};
      s.env = {{M::plus_tick, 0, 2}};
      out.push_back(s);
    }
    {
      // A thread of A delayed between its clock reading and its claim; time runs to A's fence
      // and past its lease, while B waits to take the node.
      Scenario s = base("stale-reading/" + store);
      s.holders = {holder("A", url, {{op(K::start), op(K::next), op(K::next)}, {op(K::next)}}),
                   holder("B", url, {{op(K::start), op(K::next)}})};
      s.env = {{M::plus_ms, 10, 1}, {M::to_fence, 0, 1}, {M::past_lease, 0, 1}, {M::plus_ms, 2, 1}};
      s.max_time_jumps = 4;
      out.push_back(s);
    }
    {
      // 10 ms ticks, two IDs a tick: the sequence runs out in the tick of A's fence.
      Scenario s = base("tick-fence/" + store);
      s.layout = Layout::make(
          {"tens", 41, 0, 21, 1, 10, 1'700'000'000'000, FieldOrder::time_node_sequence, true},
          s.start_ms);
      s.holders = {
          holder("A", url, {{op(K::start), op(K::next), op(K::next), op(K::next), op(K::next)}})};
      s.env = {{M::to_fence, 0, 1}, {M::plus_ms, 1, 2}};
      out.push_back(s);
    }
    {
      // Two holders of one node in turn, with every fault of the environment once: a crash,
      // a lost reply, the holder's lock file or key deleted by hand, time past its lease.
      Scenario s = base("handover/" + store);
      s.holders = {
          holder("A", url,
                 {{op(K::start), op(K::next), op(K::next), op(K::release)}, {op(K::renew)}}),
          holder("B", url, {{op(K::start), op(K::next)}})};
      s.env = {{M::crash, 0, 1},
               {M::lose_reply, 0, 1},
               {store == "file" ? M::delete_lock : M::delete_key, 0, 1},
               {M::past_lease, 0, 1},
               {M::plus_tick, 0, 1}};
      out.push_back(s);
    }
    {
      // The same fixed node configured for both.
      Scenario s = base("same-fixed-node/" + store);
      s.holders = {holder("A", url, {{op(K::start), op(K::next)}}),
                   holder("B", url, {{op(K::start), op(K::next)}})};
      s.holders[0].node = 0;
      s.holders[1].node = 0;
      s.env = {{M::plus_tick, 0, 1}};
      out.push_back(s);
    }
  }
  {
    // The mark file cannot be read when B takes the node A released.
    Scenario s = base("unreadable-mark/file");
    s.holders = {holder("A", url_of("file"), {{op(K::start), op(K::next), op(K::release)}}),
                 holder("B", url_of("file"), {{op(K::start), op(K::next)}})};
    s.env = {{M::fail_mark_read, 0, 1}};
    out.push_back(s);
  }
  {
    // The power fails while A holds the node; B starts after the reboot.
    Scenario s = base("power-loss/file");
    s.holders = {holder("A", url_of("file"), {{op(K::start), op(K::next), op(K::next)}}),
                 holder("B", url_of("file"), {{op(K::start), op(K::next)}})};
    s.env = {{M::power_loss, 0, 1}};
    out.push_back(s);
  }
  {
    // Two pods whose names must not give one worker number.
    Scenario s = base("ordinal-alias/static");
    s.holders = {
        holder("A", "ordinal:app-0", {{op(K::start), op(K::next)}}),
        holder("B", "ordinal:app-18446744073709551615?offset=1", {{op(K::start), op(K::next)}})};
    out.push_back(s);
  }
  return out;
}

Scenario scenario_named(const std::string& name) {
  for (Scenario& s : all_scenarios())
    if (s.name == name) return s;
  throw std::invalid_argument("no scenario " + name);
}

}  // namespace idforge::explore
