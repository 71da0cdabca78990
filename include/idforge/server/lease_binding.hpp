// LeaseBinding: serves Snowflakes from a leased node ID. It registers the `snowflake` kind
// on the leased generator, makes the server's readiness follow the lease (ready while held
// and not fenced: /readyz answers 503 and IDs stop while renewals fail or the lease is lost,
// and come back when a renewal succeeds; also while the clock lies so far behind the last
// issued ID that every request would be refused), and adds the lease's series to /metrics.
// Given an EventLog, it writes each lease event there as it sees it (acquired, renewal
// failed with the reason and the time left before issuing stops, fenced, lost, taken
// again, renewed after failures, clock behind the mark and caught up, released).
// Built only with idforge::coord (IDFORGE_SERVER_HAVE_LEASE).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "idforge/coord/leased_generator.hpp"
#include "idforge/server/event_log.hpp"
#include "idforge/server/server.hpp"

namespace idforge::server {

class LeaseBinding {
 public:
  /// Registers kind "snowflake" on server (before bind()) and starts watching gen's keeper
  /// every poll. gen must outlive the binding; the binding must outlive server.run().
  /// Whether the lease's fence has passed is read on clock: the server's clock here, and
  /// in the overload below any clock (the generator's, to drive both with one ManualClock).
  LeaseBinding(Server& server, coord::SharedLeasedSnowflakeGenerator& gen,
               std::chrono::milliseconds poll = std::chrono::milliseconds(50));
  LeaseBinding(Server& server, coord::SharedLeasedSnowflakeGenerator& gen, Clock& clock,
               std::chrono::milliseconds poll = std::chrono::milliseconds(50));
  /// For a start-up that serves before it holds a node ID: registers kind "snowflake" for
  /// layout now (before bind()) and leaves readiness down until attach(gen), so /healthz
  /// answers while start-up takes the node and waits for the clock.
  LeaseBinding(Server& server, const Layout& layout, Clock& clock,
               std::chrono::milliseconds poll = std::chrono::milliseconds(50));
  /// Starts serving from gen (once; gen's layout must be the constructor's) and watching
  /// its keeper. gen must outlive the binding.
  void attach(coord::SharedLeasedSnowflakeGenerator& gen);
  /// Before attach(): says on /readyz what start-up waits for (cause, and the words).
  void waiting(std::string cause, std::string reason);

  /// A generator on another node ID, and what must live as long as it (a data-folder lock).
  struct Replacement {
    std::unique_ptr<coord::SharedLeasedSnowflakeGenerator> gen;
    std::shared_ptr<void> keep;
  };
  /// Once the lease has stayed lost for one TTL (another live holder has its node ID, as
  /// after a store lost its state and a newcomer took it), calls make on a thread of its
  /// own for a generator on another node ID of the same store, serves from it and releases
  /// the lost one. For a leased node, not a fixed one (a fixed node ID cannot move). make
  /// throws to say it could not; it is tried again one TTL later. The generators it made
  /// live until the binding ends, which releases them.
  void replace_lost_node_with(std::function<Replacement()> make);
  /// Stops watching (the lease itself is released by its generator).
  ~LeaseBinding();
  LeaseBinding(const LeaseBinding&) = delete;
  LeaseBinding& operator=(const LeaseBinding&) = delete;

  /// Reads the keeper's state and the clock once and sets readiness from them (and writes
  /// the events since the last call to the event log, if any).
  void refresh();
  /// Writes lease events to log from now on, starting with "lease_acquired"; log must
  /// outlive the binding.
  void log_events_to(EventLog& log);

 private:
  // What readiness says, by cause: an event is written when it changes.
  enum class State { ready, released, lost, fenced, clock_behind, exhausted, before_epoch };
  // The word /readyz and /metrics give for a state (Readiness::cause()).
  static const char* cause_of(State state) noexcept;

  std::int64_t clock_behind_ms(std::int64_t now_ms) const noexcept;
  void log_changes(const coord::KeeperStatus& s, State state, std::int64_t now_ms,
                   const std::string& reason);

  coord::SharedLeasedSnowflakeGenerator& gen() const noexcept { return *gen_ptr_.load(); }
  // Wakes the poll thread for a refresh now (a request saw the generator refuse).
  void refresh_soon();
  // refresh_mu_ held: starts a replacement when the lease has stayed lost long enough.
  void maybe_replace(const coord::KeeperStatus& s, std::int64_t now_ms);
  void run_replacement(coord::SharedLeasedSnowflakeGenerator* lost);

  Server& server_;
  std::atomic<coord::SharedLeasedSnowflakeGenerator*> gen_ptr_{nullptr};  // set once, by attach()
  Clock& clock_;
  std::chrono::milliseconds poll_;
  std::int64_t runs_out_ms_;  // Unix ms from which the layout's time field holds no tick
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool refresh_now_ = false;                 // mu_
  std::atomic<bool> exhausted_seen_{false};  // a request was refused: time field used up
  std::mutex refresh_mu_;  // one refresh() at a time: the poll thread's and a caller's
  std::atomic<EventLog*> log_{nullptr};
  State state_ = State::ready;
  std::uint64_t failures_seen_ = 0;
  std::uint64_t reacquired_seen_ = 0;
  std::function<Replacement()> make_replacement_;
  std::atomic<bool> replacing_busy_{false};
  std::int64_t next_replace_ms_ = 0;  // refresh_mu_
  std::mutex owned_mu_;
  std::vector<Replacement> owned_;  // owned_mu_
  std::thread replacing_;
  std::thread thread_;
};

}  // namespace idforge::server
