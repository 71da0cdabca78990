#include "actor.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <thread>

#include "idforge/coord/lease.hpp"
#include "idforge/coord/leased_generator.hpp"
#include "idforge/detail/explore.hpp"

namespace idforge::explore {
namespace {

thread_local int t_actor = -1;
int g_process_root = -1;  // the slot that names this process for unlock counts
int g_holder = -1;
const Scenario* g_scenario = nullptr;
const Slots* g_slots = nullptr;
RunPlace g_place;
std::unique_ptr<SchedClock> g_clock;
std::unique_ptr<coord::SharedLeasedSnowflakeGenerator> g_gen;  // the holder's objects

void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT, expected, nullptr,
          nullptr, 0);
}

void futex_wake(std::atomic<std::uint32_t>& word) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE, 1 << 30, nullptr, nullptr,
          0);
}

void log_event(EventKind kind, std::uint64_t node, std::int64_t mark, const std::string& text) {
  World& w = world();
  const int i = w.event_count.fetch_add(1);
  if (i >= kMaxEvents) return;
  Event& e = w.events[i];
  e.kind = kind, e.holder = g_holder, e.actor = t_actor, e.step = w.step.load(), e.node = node,
  e.mark = mark;
  put(e.text, text.c_str());
}

void log_issued(std::uint64_t id, std::int64_t begun) {
  World& w = world();
  const int i = w.issued_count.fetch_add(1);
  if (i >= kMaxIssued) return;
  w.issued[i] = {id, g_holder, t_actor, w.step.load(), begun};
}

// What the scheduler reads to aim its time moves.
void publish_lease() {
  if (!g_gen) return;
  World& w = world();
  const coord::KeeperStatus st = g_gen->keeper().status();
  w.fence_ms[g_holder] = st.fence_unix_ms;
  w.lease_ends_ms[g_holder] = st.lease.deadline_unix_ms;
}

// The scheduler runs nothing after this: the actor's script is over.
void finish() {
  ActorSlot& s = world().actors[t_actor];
  s.point = Point::finished;
  s.state.store(static_cast<std::uint32_t>(ActorState::done), std::memory_order_release);
  world().scheduler_wake.fetch_add(1);
  futex_wake(world().scheduler_wake);
}

[[noreturn]] void exit_process() {
  g_gen.reset();  // what exit() does for a generator in a static object
  log_event(EventKind::child_exited, 0, 0, "exit");
  finish();
  _exit(0);
}

void run_script(int script);

void run_fork(int child_script) {
  World& w = world();
  const int slot = (*g_slots).fork_child[g_holder][child_script];
  ActorSlot& c = w.actors[slot];
  c.state.store(static_cast<std::uint32_t>(ActorState::starting));
  const pid_t pid = fork();
  if (pid == 0) {
    t_actor = slot;
    g_process_root = slot;
    c.pid = getpid();
    park(Point::child_started, "child");
    run_script(child_script);
    finish();
    for (;;) pause();
  }
  c.pid = pid;
  park(Point::after_fork, "parent");
}

void run_op(const Op& op) {
  World& w = world();
  const HolderSpec& spec = g_scenario->holders[g_holder];
  switch (op.kind) {
    case Op::Kind::start: {
      coord::LeasedOptions o;
      o.keeper = g_scenario->keeper;
      o.keeper.renew_in_background = false;
      o.keeper.node = spec.node;
      try {
        g_gen = std::make_unique<coord::SharedLeasedSnowflakeGenerator>(
            coord::open_lease_store(url_of(spec, g_place), *g_clock), g_scenario->layout, *g_clock,
            g_scenario->policy, o);
        log_event(EventKind::acquired, g_gen->node(), g_gen->keeper().acquired().high_water_unix_ms,
                  "");
        w.started[g_holder] = 1;
      } catch (const std::exception& e) {
        log_event(EventKind::start_refused, 0, 0, e.what());
      }
      break;
    }
    case Op::Kind::next: {
      if (!g_gen) break;
      const std::int64_t begun = w.step.load();
      try {
        log_issued(g_gen->next().value(), begun);
      } catch (const std::exception& e) {
        log_event(EventKind::refused, 0, 0, e.what());
      }
      break;
    }
    case Op::Kind::release:
      if (!g_gen) break;
      try {
        g_gen->release();
      } catch (const std::exception& e) {
        log_event(EventKind::refused, 0, 0, e.what());
      }
      log_event(EventKind::released, g_gen->node(), 0, "");
      break;
    case Op::Kind::renew:
      if (!g_gen) break;
      if (!g_gen->keeper().renew() && g_gen->keeper().status().lost)
        log_event(EventKind::lost, g_gen->node(), 0, g_gen->keeper().status().last_error);
      break;
    case Op::Kind::fork:
      run_fork(op.child);
      break;
    case Op::Kind::exit:
      exit_process();
  }
  publish_lease();
}

const char* name_of(Op::Kind k) {
  switch (k) {
    case Op::Kind::start:
      return "start";
    case Op::Kind::next:
      return "next";
    case Op::Kind::release:
      return "release";
    case Op::Kind::renew:
      return "renew";
    case Op::Kind::fork:
      return "fork";
    case Op::Kind::exit:
      return "exit";
  }
  return "?";
}

void run_script(int script) {
  const std::vector<Op>& ops = g_scenario->holders[g_holder].scripts[script];
  ActorSlot& s = world().actors[t_actor];
  for (std::size_t i = 0; i < ops.size(); ++i) {
    s.op = static_cast<int>(i);
    park(Point::op_begin, name_of(ops[i].kind));
    run_op(ops[i]);
  }
}

}  // namespace

int current_actor() noexcept {
  return t_actor;
}

Slots assign_slots(const Scenario& sc) {
  Slots s;
  for (const HolderSpec& h : sc.holders) {
    s.of_script.emplace_back(h.scripts.size(), -1);
    s.fork_child.emplace_back(h.scripts.size(), -1);
    for (std::size_t i = 0; i < h.scripts.size(); ++i)
      if (h.thread[i]) s.of_script.back()[i] = s.count++;
    for (const auto& script : h.scripts)
      for (const Op& op : script)
        if (op.kind == Op::Kind::fork) s.fork_child.back()[op.child] = s.count++;
  }
  return s;
}

std::string url_of(const HolderSpec& h, const RunPlace& place) {
  std::string u = h.url;
  for (const auto& [from, to] :
       {std::pair<std::string, std::string>{"{dir}", place.dir}, {"{prefix}", place.prefix}})
    for (auto pos = u.find(from); pos != std::string::npos; pos = u.find(from))
      u.replace(pos, from.size(), to);
  return u;
}

void park(Point p, const char* text, std::int64_t wait_until_ns) {
  if (t_actor < 0) return;
  World& w = world();
  ActorSlot& s = w.actors[t_actor];
  s.point = p;
  put(s.text, text ? text : "");
  s.wait_until_ns = wait_until_ns;
  if (p == Point::lock_wait) s.unlock_gen = w.unlock_gen[g_process_root].load();
  s.go.store(0);
  s.state.store(static_cast<std::uint32_t>(ActorState::parked), std::memory_order_release);
  w.scheduler_wake.fetch_add(1);
  futex_wake(w.scheduler_wake);
  while (s.go.load(std::memory_order_acquire) == 0) futex_wait(s.go, 0);
}

std::int64_t SchedClock::now_ns() noexcept {
  park(Point::clock_read, "");
  return world().true_ns.load() + world().clock_offset_ns[holder_];
}

void SchedClock::wait_until_ns(std::int64_t unix_ns) noexcept {
  while (world().true_ns.load() + world().clock_offset_ns[holder_] < unix_ns)
    park(Point::clock_wait, "", unix_ns);
}

[[noreturn]] void holder_main(const Scenario& sc, const Slots& slots, const RunPlace& place,
                              int h) {
  g_scenario = &sc, g_slots = &slots, g_place = place, g_holder = h;
  g_process_root = -1;
  g_clock = std::make_unique<SchedClock>(h);
  World& w = world();
  w.holder_pid[h] = getpid();
  for (std::size_t i = 0; i < sc.holders[h].scripts.size(); ++i) {
    const int slot = slots.of_script[h][i];
    if (slot < 0) continue;
    if (g_process_root < 0) g_process_root = slot;
    w.actors[slot].pid = getpid();
    std::thread([slot, i] {
      t_actor = slot;
      const auto& script = g_scenario->holders[g_holder].scripts[i];
      if (script.empty() || script.front().kind != Op::Kind::start) {
        // Waits for the holder's generator: enabled once started[] is set (the scheduler
        // checks), so this park is only taken when it is.
        park(Point::op_begin, "await start");
      }
      run_script(static_cast<int>(i));
      finish();
    }).detach();
  }
  for (;;) pause();
}

}  // namespace idforge::explore

// The library's points (compiled in with IDFORGE_EXPLORE) land here.
int idforge::detail::explore_point(ExplorePoint point, const char* text) noexcept {
  using namespace idforge::explore;
  if (t_actor < 0) return 0;
  World& w = world();
  switch (point) {
    case ExplorePoint::unlocked:
      w.unlock_gen[g_process_root].fetch_add(1);
      return 0;
    case ExplorePoint::mark_renamed: {
      // "path\ncontent": the new content is in place, not yet durable.
      const std::string t = text ? text : "";
      const std::string path = t.substr(0, t.find('\n'));
      std::string content = t.substr(t.find('\n') + 1);
      while (!content.empty() && content.back() == '\n') content.pop_back();
      int free_slot = -1;
      for (int i = 0; i < kMaxKeys; ++i) {
        if (w.marks[i].used && path == w.marks[i].path) free_slot = i;
        if (!w.marks[i].used && free_slot < 0) free_slot = i;
      }
      if (free_slot >= 0) {
        MarkFile& m = w.marks[free_slot];
        if (!m.used) m.used = true, put(m.path, path.c_str());
        put(m.current, content.c_str());
        m.pending = true;
      }
      break;
    }
    case ExplorePoint::dir_synced: {
      const std::string dir = text ? text : "";
      for (MarkFile& m : w.marks)
        if (m.used && m.pending && std::string(m.path).rfind(dir + "/", 0) == 0 &&
            std::string(m.path).find('/', dir.size() + 1) == std::string::npos) {
          m.durable_exists = true;
          put(m.durable, m.current);
          m.pending = false;
        }
      break;
    }
    default:
      break;
  }
  park(static_cast<Point>(point), text);
  if (point == ExplorePoint::mark_read) return w.fail_next_mark_read.exchange(0);
  return 0;
}
