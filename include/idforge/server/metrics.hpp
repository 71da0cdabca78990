// Metrics: the counters behind GET /metrics, in Prometheus text format (exposition 0.0.4).
// Recording is a few relaxed atomic adds, no lock and no allocation: routes, kinds and the
// status codes worth a series are fixed when the table is built. Other parts (the Snowflake
// generator's slow paths, the lease) add their own lines through add_source().
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace idforge::server {

class Metrics {
 public:
  /// Upper bounds of the latency histogram buckets, in seconds (+Inf is added).
  static constexpr std::array<double, 13> kBuckets = {
      0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1.0};
  /// Status codes with their own series; others count as "other".
  static constexpr std::array<int, 13> kStatuses = {200, 206, 304, 400, 401, 404, 405,
                                                    408, 413, 414, 429, 500, 503};

  /// routes: labels of the routes (index = route number); kinds: ID kinds by index.
  Metrics(std::vector<std::string> routes, std::vector<std::string> kinds);

  /// Counts one finished request on route (an index into routes) with its latency.
  void record_request(std::size_t route, int status, std::int64_t duration_ns) noexcept;
  /// Counts n IDs issued of kind (an index into kinds).
  void add_ids(std::size_t kind, std::uint64_t n) noexcept;
  /// A connection was accepted and is being served.
  void connection_opened() noexcept { open_.fetch_add(1, std::memory_order_relaxed); }
  /// A served connection closed.
  void connection_closed() noexcept { open_.fetch_sub(1, std::memory_order_relaxed); }
  /// A connection was turned away with 503 because max-connections were open.
  void connection_rejected() noexcept { rejected_.fetch_add(1, std::memory_order_relaxed); }
  /// A connection still waiting for its request closed to make room for a new one.
  void connection_shed() noexcept { shed_.fetch_add(1, std::memory_order_relaxed); }
  /// Connections open now.
  std::int64_t open_connections() const noexcept { return open_.load(std::memory_order_relaxed); }

  /// Adds a function that appends its own exposition lines to render()'s output.
  void add_source(std::function<void(std::string& out)> source);
  /// The whole exposition text.
  std::string render() const;

 private:
  struct RouteCounters {
    std::array<std::atomic<std::uint64_t>, kStatuses.size() + 1> by_status{};
    std::array<std::atomic<std::uint64_t>, kBuckets.size() + 1> buckets{};
    std::atomic<std::uint64_t> sum_ns{0};
  };
  std::vector<std::string> routes_, kinds_;
  std::unique_ptr<RouteCounters[]> per_route_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> ids_;
  std::atomic<std::int64_t> open_{0};
  std::atomic<std::uint64_t> rejected_{0};
  std::atomic<std::uint64_t> shed_{0};
  std::vector<std::function<void(std::string&)>> sources_;
};

}  // namespace idforge::server
