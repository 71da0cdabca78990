// LeaseBinding: serves Snowflakes from a leased node ID. It registers the `snowflake` kind
// on the leased generator, makes the server's readiness follow the lease (ready while held
// and not fenced: /readyz answers 503 and IDs stop while renewals fail or the lease is lost,
// and come back when a renewal succeeds; also while the clock lies so far behind the last
// issued ID that every request would be refused), and adds the lease's series to /metrics.
// Built only with idforge::coord (IDFORGE_SERVER_HAVE_LEASE).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "idforge/coord/leased_generator.hpp"
#include "idforge/server/server.hpp"

namespace idforge::server {

class LeaseBinding {
 public:
  /// Registers kind "snowflake" on server (before bind()) and starts watching gen's keeper
  /// every poll. gen must outlive the binding; the binding must outlive server.run().
  /// Whether the lease's fence has passed is read on clock: the server's clock here, and
  /// in the overload below any clock (the generator's, to drive both with one ManualClock).
  LeaseBinding(Server& server, coord::LeasedSnowflakeGenerator& gen,
               std::chrono::milliseconds poll = std::chrono::milliseconds(50));
  LeaseBinding(Server& server, coord::LeasedSnowflakeGenerator& gen, Clock& clock,
               std::chrono::milliseconds poll = std::chrono::milliseconds(50));
  /// Stops watching (the lease itself is released by its generator).
  ~LeaseBinding();
  LeaseBinding(const LeaseBinding&) = delete;
  LeaseBinding& operator=(const LeaseBinding&) = delete;

  /// Reads the keeper's state and the clock once and sets readiness from them.
  void refresh();

 private:
  std::int64_t clock_behind_ms(std::int64_t now_ms) const noexcept;

  Server& server_;
  coord::LeasedSnowflakeGenerator& gen_;
  Clock& clock_;
  std::chrono::milliseconds poll_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace idforge::server
