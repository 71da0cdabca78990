#include "explorer.hpp"

#include <linux/futex.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "actor.hpp"
#include "world.hpp"

namespace idforge::explore {
namespace {

constexpr auto kHangLimit = std::chrono::seconds(10);
constexpr int kWaitMove =
    99;  // the implicit move: time jumps to the earliest clock an actor waits for

void futex_wake(std::atomic<std::uint32_t>& word) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE, 1 << 30, nullptr, nullptr,
          0);
}

void futex_wait_for(std::atomic<std::uint32_t>& word, std::uint32_t expected, long ns) {
  timespec ts{0, ns};
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT, expected, &ts, nullptr,
          0);
}

ActorState state_of(const ActorSlot& s) {
  return static_cast<ActorState>(s.state.load(std::memory_order_acquire));
}

bool process_gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;
  const auto paren = text.rfind(')');
  return paren == std::string::npos || paren + 2 >= text.size() || text[paren + 2] == 'Z';
}

std::int64_t read_file_mark(const std::string& path) {
  std::ifstream in(path);
  std::int64_t v = 0;
  if (!(in >> v)) return std::numeric_limits<std::int64_t>::min();
  return v;
}

}  // namespace

struct Explorer::Step {
  std::vector<int> actors;  // enabled actors
  std::vector<int> moves;   // possible environment moves (within their budgets)
  int last_actor = -1;
  Choice chosen;
  bool chosen_default = true;
  int preemptions = 0, env_moves = 0;  // counts before this step
};

std::string to_string(const std::vector<Choice>& schedule) {
  std::string s;
  for (const Choice& c : schedule)
    s += (s.empty() ? "" : " ") + std::string(c.env ? "e" : "a") + std::to_string(c.index);
  return s;
}

std::vector<Choice> parse_schedule(const std::string& text) {
  std::vector<Choice> out;
  std::istringstream in(text);
  for (std::string tok; in >> tok;) out.push_back({tok[0] == 'e', std::stoi(tok.substr(1))});
  return out;
}

Explorer::Explorer(Scenario scenario) : sc_(std::move(scenario)) {
  // Orphaned children of holders (a forked child whose parent was killed) come to us.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
}

namespace {

// One run's scheduler-side state.
class Run {
 public:
  Run(const Scenario& sc, std::int64_t serial) : sc_(sc), slots_(assign_slots(sc)) {
    reset_world();
    const char* base = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
    place_.dir = std::string(base) + "/idforge-explore-" + std::to_string(getpid()) + "-" +
                 std::to_string(serial);
    place_.prefix = "x" + std::to_string(serial) + ":";
    std::filesystem::remove_all(place_.dir);
    std::filesystem::create_directories(place_.dir);
    World& w = world();
    w.true_ns = sc.start_ms * 1'000'000;
    env_used_.assign(sc.env.size(), 0);
    for (std::size_t h = 0; h < sc.holders.size(); ++h) {
      w.clock_offset_ns[h] = sc.holders[h].clock_offset_ms * 1'000'000;
      w.fence_ms[h] = std::numeric_limits<std::int64_t>::max();
      w.lease_ends_ms[h] = std::numeric_limits<std::int64_t>::max();
    }
    for (std::size_t h = 0; h < sc.holders.size(); ++h)
      for (int slot : slots_.of_script[h])
        if (slot >= 0)
          w.actors[slot].state = static_cast<std::uint32_t>(ActorState::starting),
          w.actors[slot].holder = static_cast<int>(h);
    for (std::size_t h = 0; h < sc.holders.size(); ++h)
      for (int slot : slots_.fork_child[h])
        if (slot >= 0) w.actors[slot].holder = static_cast<int>(h);
    for (std::size_t h = 0; h < sc.holders.size(); ++h) {
      const pid_t pid = fork();
      if (pid == 0) holder_main(sc_, slots_, place_, static_cast<int>(h));
      holder_pids_.push_back(pid);
    }
    quiesce();
  }

  ~Run() {
    World& w = world();
    std::set<pid_t> pids(holder_pids_.begin(), holder_pids_.end());
    for (int a = 0; a < slots_.count; ++a)
      if (w.actors[a].pid > 0) pids.insert(w.actors[a].pid);
    for (pid_t p : pids) kill(p, SIGKILL);
    for (pid_t p : pids) waitpid(p, nullptr, 0);
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    std::error_code ec;
    std::filesystem::remove_all(place_.dir, ec);
  }

  std::optional<std::string> violation;
  std::string trace;

  std::vector<int> enabled_actors() const {
    const World& w = world();
    std::vector<int> out;
    for (int a = 0; a < slots_.count; ++a) {
      const ActorSlot& s = w.actors[a];
      if (state_of(s) != ActorState::parked) continue;
      const int h = s.holder;
      if (s.point == Point::clock_wait && w.true_ns.load() + w.clock_offset_ns[h] < s.wait_until_ns)
        continue;
      if (s.point == Point::lock_wait && w.unlock_gen[root_of(a)].load() == s.unlock_gen) continue;
      if (s.point == Point::op_begin && std::string(s.text) == "await start" && !w.started[h])
        continue;
      out.push_back(a);
    }
    return out;
  }

  bool someone_waits_for_the_clock(std::int64_t* earliest) const {
    const World& w = world();
    bool any = false;
    for (int a = 0; a < slots_.count; ++a) {
      const ActorSlot& s = w.actors[a];
      if (state_of(s) != ActorState::parked || s.point != Point::clock_wait) continue;
      const std::int64_t t = s.wait_until_ns - w.clock_offset_ns[s.holder];
      if (t <= w.true_ns.load()) continue;
      if (!any || t < *earliest) *earliest = t;
      any = true;
    }
    return any;
  }

  // The moves possible now, within their budgets.
  std::vector<int> possible_moves() const {
    const World& w = world();
    std::vector<int> out;
    for (std::size_t i = 0; i < sc_.env.size(); ++i) {
      const EnvMove& m = sc_.env[i];
      if (env_used_[i] >= m.budget) continue;
      if (is_time_move(m) && time_jumps_ >= sc_.max_time_jumps) continue;
      if (target_of(m) <= w.true_ns.load() && is_time_move(m)) continue;
      if ((m.kind == EnvMove::Kind::crash) &&
          (!w.started[m.arg] || process_gone(w.holder_pid[m.arg])))
        continue;
      if (m.kind == EnvMove::Kind::power_loss && !any_started()) continue;
      out.push_back(static_cast<int>(i));
    }
    return out;
  }

  void run_actor(int a) {
    World& w = world();
    ActorSlot& s = w.actors[a];
    const std::string from = describe(a);
    w.step.fetch_add(1);
    s.state.store(static_cast<std::uint32_t>(ActorState::running), std::memory_order_release);
    s.go.store(1, std::memory_order_release);
    futex_wake(s.go);
    quiesce();
    const ActorSlot& after = w.actors[a];
    note("a" + std::to_string(a) + " " + from + " -> " +
         (state_of(after) == ActorState::parked
              ? std::string(to_string(after.point)) + " " + after.text
              : std::string(state_of(after) == ActorState::done ? "done" : "gone")));
  }

  void move(int index) {
    World& w = world();
    w.step.fetch_add(1);
    if (index == kWaitMove) {
      std::int64_t t = 0;
      if (someone_waits_for_the_clock(&t)) w.true_ns = t;
      note("time jumps to the earliest waited-for clock: " + when());
      return;
    }
    const EnvMove& m = sc_.env[index];
    ++env_used_[index];
    if (is_time_move(m)) {
      ++time_jumps_;
      w.true_ns = target_of(m);
      note("time jumps (" + name_of(m) + "): " + when());
      return;
    }
    note(name_of(m));
    switch (m.kind) {
      case EnvMove::Kind::crash:
        kill_holder(static_cast<int>(m.arg));
        break;
      case EnvMove::Kind::power_loss:
        for (std::size_t h = 0; h < sc_.holders.size(); ++h)
          if (w.started[h]) kill_holder(static_cast<int>(h));
        roll_back_marks();
        break;
      case EnvMove::Kind::fail_mark_read:
        w.fail_next_mark_read = EACCES;
        break;
      case EnvMove::Kind::lose_reply:
        w.lose_next_reply = 1;
        break;
      case EnvMove::Kind::delete_lock:
        std::filesystem::remove(place_.dir + "/node-" + std::to_string(m.arg) + ".lock");
        break;
      case EnvMove::Kind::delete_key: {
        const std::string r = place_.prefix + "node:" + std::to_string(m.arg);
        const std::string e = place_.prefix + "node/" + std::to_string(m.arg);
        for (RedisKey& k : w.redis)
          if (k.used && r == k.key) k.used = false;
        for (EtcdKey& k : w.etcd)
          if (k.used && e == k.key) k.used = false, ++w.etcd_revision;
        break;
      }
      default:
        break;
    }
    reap();
  }

  // Invariants 1-5 (6 is checked while stepping).
  void check() {
    if (violation) return;
    const World& w = world();
    const int n = std::min(w.issued_count.load(), kMaxIssued);
    std::map<std::uint64_t, int> seen;
    std::map<int, std::uint64_t> last_of_actor;
    std::map<std::uint64_t, std::int64_t> top_tick;  // per node
    for (int i = 0; i < n; ++i) {
      const Issued& x = w.issued[i];
      if (auto [it, fresh] = seen.emplace(x.id, i); !fresh)
        return fail("ID " + std::to_string(x.id) + " issued twice: by " +
                    who(w.issued[it->second].actor) + " and " + who(x.actor));
      if (auto it = last_of_actor.find(x.actor); it != last_of_actor.end() && x.id <= it->second)
        return fail(who(x.actor) + " issued " + std::to_string(x.id) + " after " +
                    std::to_string(it->second));
      last_of_actor[x.actor] = x.id;
      const SnowflakeParts p = decompose(sc_.layout, Snowflake(x.id));
      top_tick[p.node] =
          std::max<std::int64_t>(top_tick.count(p.node) ? top_tick[p.node] : 0, p.tick);
    }
    const int events = std::min(w.event_count.load(), kMaxEvents);
    // 3: a holder starts above every ID an earlier holder of its node issued.
    for (int e = 0; e < events; ++e) {
      const Event& acq = w.events[e];
      if (acq.kind != EventKind::acquired) continue;
      std::set<int> earlier;
      for (int f = 0; f < e; ++f)
        if (w.events[f].kind == EventKind::acquired && w.events[f].node == acq.node &&
            w.events[f].holder != acq.holder)
          earlier.insert(w.events[f].holder);
      for (int i = 0; i < n; ++i) {
        const Issued& x = w.issued[i];
        const SnowflakeParts p = decompose(sc_.layout, Snowflake(x.id));
        if (!earlier.count(x.holder) || p.node != acq.node) continue;
        if (acq.mark == std::numeric_limits<std::int64_t>::min() ||
            static_cast<std::int64_t>(p.tick) > tick_of(acq.mark))
          return fail(sc_.holders[acq.holder].name + " took node " + std::to_string(acq.node) +
                      " above mark " + mark_text(acq.mark) + ", but " + who(x.actor) +
                      " (an earlier holder) issued " + std::to_string(x.id) + " in tick " +
                      std::to_string(p.tick));
      }
    }
    // 4: every ID lies at or below its node's stored mark.
    if (keeps_marks())
      for (const auto& [node, tick] : top_tick) {
        const std::int64_t mark = stored_mark(node);
        if (mark == std::numeric_limits<std::int64_t>::min() || tick > tick_of(mark))
          return fail("an ID of node " + std::to_string(node) + " lies in tick " +
                      std::to_string(tick) + ", above the stored mark " + mark_text(mark));
      }
    // 5: nothing from a call begun after its holder released or lost the lease.
    for (int e = 0; e < events; ++e) {
      const Event& end = w.events[e];
      if (end.kind != EventKind::released && end.kind != EventKind::lost) continue;
      for (int i = 0; i < n; ++i) {
        const Issued& x = w.issued[i];
        if (x.holder == end.holder && x.call_begun > end.step)
          return fail(who(x.actor) + " issued " + std::to_string(x.id) +
                      " from a call begun at step " + std::to_string(x.call_begun) +
                      ", after its lease was " +
                      (end.kind == EventKind::released ? "released" : "lost") + " at step " +
                      std::to_string(end.step));
      }
    }
  }

  // At the end: a forked child that set out to exit must have finished.
  void check_end() {
    if (violation) return;
    const World& w = world();
    for (std::size_t h = 0; h < sc_.holders.size(); ++h)
      for (std::size_t s = 0; s < sc_.holders[h].scripts.size(); ++s) {
        const int slot = slots_.fork_child[h][s];
        if (slot < 0) continue;
        const ActorSlot& a = w.actors[slot];
        const auto& script = sc_.holders[h].scripts[s];
        const bool exits = !script.empty() && script.back().kind == Op::Kind::exit;
        if (exits && state_of(a) == ActorState::parked &&
            a.op == static_cast<int>(script.size()) - 1 && a.point != Point::op_begin)
          return fail(who(slot) + " did not finish exiting: stuck at " + to_string(a.point) + " " +
                      a.text);
      }
  }

 private:
  static bool is_time_move(const EnvMove& m) {
    switch (m.kind) {
      case EnvMove::Kind::to_wait:
      case EnvMove::Kind::plus_tick:
      case EnvMove::Kind::plus_ms:
      case EnvMove::Kind::to_fence:
      case EnvMove::Kind::past_lease:
        return true;
      default:
        return false;
    }
  }

  std::int64_t target_of(const EnvMove& m) const {
    const World& w = world();
    const std::int64_t now = w.true_ns.load();
    switch (m.kind) {
      case EnvMove::Kind::to_wait: {
        std::int64_t t = now;
        return someone_waits_for_the_clock(&t) ? t : now;
      }
      case EnvMove::Kind::plus_tick:
        return now + sc_.layout.tick_ms() * 1'000'000;
      case EnvMove::Kind::plus_ms:
        return now + m.arg * 1'000'000;
      case EnvMove::Kind::to_fence: {
        const std::int64_t f = w.fence_ms[m.arg];
        if (f <= 0 || f == std::numeric_limits<std::int64_t>::max()) return now;
        return (f - 1) * 1'000'000 - w.clock_offset_ns[m.arg];
      }
      case EnvMove::Kind::past_lease: {
        const std::int64_t d = w.lease_ends_ms[m.arg];
        if (d == std::numeric_limits<std::int64_t>::max()) return now;
        return (d + 1) * 1'000'000 - w.clock_offset_ns[m.arg];
      }
      default:
        return now;
    }
  }

  std::string name_of(const EnvMove& m) const {
    static const char* names[] = {"to wait",
                                  "+1 tick",
                                  "+ms",
                                  "to the fence of",
                                  "past the lease of",
                                  "crash",
                                  "power loss",
                                  "fail the next mark read",
                                  "lose the next reply",
                                  "delete the lock file of node",
                                  "delete the key of node"};
    return std::string(names[static_cast<int>(m.kind)]) + " " + std::to_string(m.arg);
  }

  bool any_started() const {
    for (std::size_t h = 0; h < sc_.holders.size(); ++h)
      if (world().started[h]) return true;
    return false;
  }

  int root_of(int slot) const {
    for (std::size_t h = 0; h < sc_.holders.size(); ++h) {
      for (int s : slots_.fork_child[h])
        if (s == slot) return slot;
      for (int s : slots_.of_script[h])
        if (s >= 0) {
          for (int t : slots_.of_script[h])
            if (t == slot) return s;
          break;
        }
    }
    return slot;
  }

  void kill_holder(int h) {
    World& w = world();
    const pid_t pid = w.holder_pid[h];
    killed_.insert(pid);
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    for (int a = 0; a < slots_.count; ++a)
      if (w.actors[a].pid == pid) w.actors[a].state = static_cast<std::uint32_t>(ActorState::dead);
  }

  // A power loss leaves each mark file as its last synced rename left it.
  void roll_back_marks() {
    for (MarkFile& m : world().marks) {
      if (!m.used || !m.pending) continue;
      if (m.durable_exists)
        std::ofstream(m.path) << m.durable << "\n";
      else
        std::filesystem::remove(m.path);
      m.pending = false;
      put(m.current, m.durable);
    }
  }

  // Waits until every actor is parked, done or dead; a process that died unasked, or an
  // actor that neither parks nor finishes (blocked where the explorer cannot see), fails.
  void quiesce() {
    World& w = world();
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
      const std::uint32_t seen = w.scheduler_wake.load();
      bool busy = false;
      for (int a = 0; a < slots_.count && !violation; ++a) {
        const ActorState st = state_of(w.actors[a]);
        if (st != ActorState::running && st != ActorState::starting) continue;
        const pid_t pid = w.actors[a].pid;
        if (pid > 0 && process_gone(pid)) {
          if (state_of(w.actors[a]) == ActorState::done) continue;  // finished, then exited
          w.actors[a].state = static_cast<std::uint32_t>(ActorState::dead);
          if (!killed_.count(pid)) fail(who(a) + " died while running (its process ended)");
          continue;
        }
        busy = true;
      }
      if (!busy || violation) return;
      if (std::chrono::steady_clock::now() - start > kHangLimit) {
        for (int a = 0; a < slots_.count; ++a)
          if (state_of(w.actors[a]) == ActorState::running)
            return fail(who(a) + " blocked outside any point for " +
                        std::to_string(kHangLimit.count()) + " s (after " +
                        to_string(w.actors[a].point) + " " + w.actors[a].text + "): a deadlock");
        return fail("an actor never started");
      }
      futex_wait_for(w.scheduler_wake, seen, 5'000'000);
      reap();
    }
  }

  void reap() {
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
  }

  bool keeps_marks() const {
    const std::string& u = sc_.holders.front().url;
    return u.starts_with("file:") || u.starts_with("redis:") || u.starts_with("etcd:") ||
           u.find("state=") != std::string::npos;
  }

  std::int64_t stored_mark(std::uint64_t node) const {
    const std::string& u = sc_.holders.front().url;
    const World& w = world();
    if (u.starts_with("redis:") || u.starts_with("etcd:")) {
      const std::string key =
          place_.prefix + (u.starts_with("redis:") ? "mark:" : "mark/") + std::to_string(node);
      for (const RedisKey& k : w.redis)
        if (k.used && key == k.key) return std::stoll(k.value);
      for (const EtcdKey& k : w.etcd)
        if (k.used && key == k.key) return std::stoll(k.value);
      return std::numeric_limits<std::int64_t>::min();
    }
    return read_file_mark(place_.dir + "/node-" + std::to_string(node) + ".mark");
  }

  std::int64_t tick_of(std::int64_t unix_ms) const {
    if (unix_ms < sc_.layout.epoch_ms()) return -1;
    return (unix_ms - sc_.layout.epoch_ms()) / sc_.layout.tick_ms();
  }

  std::string mark_text(std::int64_t mark) const {
    if (mark == std::numeric_limits<std::int64_t>::min()) return "(none)";
    return std::to_string(mark - sc_.start_ms) + " ms (tick " + std::to_string(tick_of(mark)) + ")";
  }

  std::string when() const {
    return "t+" + std::to_string(world().true_ns.load() / 1'000'000 - sc_.start_ms) + " ms";
  }

  std::string who(int slot) const {
    for (std::size_t h = 0; h < sc_.holders.size(); ++h) {
      for (std::size_t s = 0; s < slots_.of_script[h].size(); ++s)
        if (slots_.of_script[h][s] == slot) return sc_.holders[h].name + "/" + std::to_string(s);
      for (std::size_t s = 0; s < slots_.fork_child[h].size(); ++s)
        if (slots_.fork_child[h][s] == slot) return sc_.holders[h].name + "'s child";
    }
    return "actor " + std::to_string(slot);
  }

  std::string describe(int a) const {
    const ActorSlot& s = world().actors[a];
    std::string d = who(a) + " at " + to_string(s.point);
    if (s.text[0] != '\0') d += std::string(" ") + s.text;
    return d;
  }

  void note(const std::string& line) {
    trace += "step " + std::to_string(world().step.load()) + ": " + line + "\n";
  }

  void fail(const std::string& why) {
    if (!violation) violation = why;
  }

  const Scenario& sc_;
  Slots slots_;
  RunPlace place_;
  std::vector<pid_t> holder_pids_;
  std::set<pid_t> killed_;
  std::vector<int> env_used_;
  int time_jumps_ = 0;
};

}  // namespace

RunResult Explorer::run(const std::vector<Choice>& prefix, std::mt19937_64* random) {
  return run_impl(prefix, random, nullptr, nullptr);
}

RunResult Explorer::run_impl(const std::vector<Choice>& prefix, std::mt19937_64* random,
                             std::vector<Step>* steps, const Bounds* bounds) {
  static std::int64_t serial = 0;
  Run run(sc_, ++serial);
  RunResult result;
  int last_actor = -1;
  for (int step = 0; step < sc_.max_steps && !run.violation; ++step) {
    run.check();
    if (run.violation) break;
    const std::vector<int> actors = run.enabled_actors();
    const std::vector<int> moves = run.possible_moves();
    const bool last_enabled = std::find(actors.begin(), actors.end(), last_actor) != actors.end();
    std::int64_t earliest = 0;
    const bool waits = run.someone_waits_for_the_clock(&earliest);
    // The default: go on with the same actor, else the first enabled one, else let time pass.
    std::optional<Choice> fallback;
    if (last_enabled)
      fallback = Choice{false, last_actor};
    else if (!actors.empty())
      fallback = Choice{false, actors.front()};
    else if (waits)
      fallback = Choice{true, kWaitMove};
    std::optional<Choice> pick;
    if (step < static_cast<int>(prefix.size())) {
      const Choice& c = prefix[step];
      const bool ok = c.env ? (c.index == kWaitMove
                                   ? waits
                                   : std::find(moves.begin(), moves.end(), c.index) != moves.end())
                            : std::find(actors.begin(), actors.end(), c.index) != actors.end();
      if (ok) pick = c;
    } else if (random && (!actors.empty() || !moves.empty())) {
      // Mostly actors; now and then a move of the environment.
      std::uniform_int_distribution<int> d(0,
                                           static_cast<int>(actors.size() + moves.size()) * 4 - 1);
      const int r = d(*random);
      if (r < static_cast<int>(actors.size()) * 4)
        pick = Choice{false, actors[r / 4]};
      else
        pick = Choice{true, moves[(r - static_cast<int>(actors.size()) * 4) % moves.size()]};
    }
    if (!pick) pick = fallback;
    if (!pick) break;  // nothing can happen any more
    const bool is_default = fallback && *pick == *fallback;
    if (steps) {
      Step s;
      s.actors = actors;
      s.moves = moves;
      s.last_actor = last_enabled ? last_actor : -1;
      s.chosen = *pick;
      s.chosen_default = is_default;
      s.preemptions = result.preemptions;
      s.env_moves = result.env_moves;
      steps->push_back(s);
    }
    if (!is_default) {
      if (pick->env)
        ++result.env_moves;
      else if (last_enabled)
        ++result.preemptions;
    }
    result.schedule.push_back(*pick);
    if (pick->env) {
      run.move(pick->index);
    } else {
      run.run_actor(pick->index);
      last_actor = pick->index;
    }
  }
  run.check();
  run.check_end();
  result.violation = run.violation;
  result.trace = run.trace;
  (void)bounds;
  return result;
}

Summary Explorer::exhaustive(const Bounds& bounds) {
  // Depth-first over the choice tree: each frame holds the alternatives at one step of the
  // current path that stay within the bounds; a new run replays the path up to the deepest
  // frame with an alternative left, takes it, and goes on by default.
  struct Frame {
    Choice chosen;
    std::vector<Choice> left;
  };
  std::vector<Frame> path;
  std::vector<Choice> prefix;
  Summary summary;
  for (;;) {
    std::vector<Step> steps;
    RunResult r = run_impl(prefix, nullptr, &steps, &bounds);
    ++summary.runs;
    if (r.violation) {
      summary.failure = std::move(r);
      return summary;
    }
    for (std::size_t i = path.size(); i < steps.size(); ++i) {
      const Step& s = steps[i];
      Frame f{s.chosen, {}};
      for (int a : s.actors) {
        const Choice c{false, a};
        if (c == s.chosen) continue;
        const bool preempts = s.last_actor >= 0 && a != s.last_actor;
        if (preempts && s.preemptions + 1 > bounds.preemptions) continue;
        f.left.push_back(c);
      }
      if (s.env_moves + 1 <= bounds.env_moves)
        for (int m : s.moves)
          if (!(s.chosen == Choice{true, m})) f.left.push_back({true, m});
      path.push_back(std::move(f));
    }
    while (!path.empty() && path.back().left.empty()) path.pop_back();
    if (path.empty()) {
      summary.exhaustive = true;
      return summary;
    }
    if (summary.runs >= bounds.max_runs) return summary;
    path.back().chosen = path.back().left.back();
    path.back().left.pop_back();
    prefix.clear();
    for (const Frame& f : path) prefix.push_back(f.chosen);
  }
}

Summary Explorer::random(std::uint64_t seed, std::int64_t runs) {
  Summary summary;
  std::mt19937_64 rng(seed);
  for (std::int64_t i = 0; i < runs; ++i) {
    RunResult r = run_impl({}, &rng, nullptr, nullptr);
    ++summary.runs;
    if (r.violation) {
      summary.failure = std::move(r);
      return summary;
    }
  }
  return summary;
}

}  // namespace idforge::explore
