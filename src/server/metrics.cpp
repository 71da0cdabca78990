#include "idforge/server/metrics.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace idforge::server {
namespace {

// fmt::format_to into a string, keeping the compile-time check of the format.
template <typename... T>
void append(std::string& out, fmt::format_string<T...> format, T&&... args) {
  fmt::format_to(std::back_inserter(out), format, std::forward<T>(args)...);
}
}  // namespace

Metrics::Metrics(std::vector<std::string> routes, std::vector<std::string> kinds)
    : routes_(std::move(routes)),
      kinds_(std::move(kinds)),
      per_route_(new RouteCounters[routes_.size()]),
      ids_(new std::atomic<std::uint64_t>[kinds_.size()]) {
  for (std::size_t i = 0; i < kinds_.size(); ++i) ids_[i].store(0, std::memory_order_relaxed);
}

void Metrics::record_request(std::size_t route, int status, std::int64_t duration_ns) noexcept {
  if (route >= routes_.size()) return;
  RouteCounters& c = per_route_[route];
  const auto s = std::find(kStatuses.begin(), kStatuses.end(), status);
  c.by_status[static_cast<std::size_t>(s - kStatuses.begin())].fetch_add(1,
                                                                         std::memory_order_relaxed);
  const double secs = static_cast<double>(duration_ns) * 1e-9;
  const auto b = std::lower_bound(kBuckets.begin(), kBuckets.end(), secs);
  c.buckets[static_cast<std::size_t>(b - kBuckets.begin())].fetch_add(1, std::memory_order_relaxed);
  c.sum_ns.fetch_add(static_cast<std::uint64_t>(std::max<std::int64_t>(0, duration_ns)),
                     std::memory_order_relaxed);
}

void Metrics::add_ids(std::size_t kind, std::uint64_t n) noexcept {
  if (kind < kinds_.size()) ids_[kind].fetch_add(n, std::memory_order_relaxed);
}

void Metrics::add_source(std::function<void(std::string&)> source) {
  sources_.push_back(std::move(source));
}

std::string Metrics::render() const {
  std::string out;
  out +=
      "# HELP idforge_ids_issued_total IDs issued, by kind.\n# TYPE idforge_ids_issued_total "
      "counter\n";
  for (std::size_t i = 0; i < kinds_.size(); ++i)
    append(out, "idforge_ids_issued_total{{kind=\"{}\"}} {}\n", kinds_[i],
           ids_[i].load(std::memory_order_relaxed));

  out +=
      "# HELP idforge_http_requests_total HTTP requests answered, by route and status.\n"
      "# TYPE idforge_http_requests_total counter\n";
  for (std::size_t r = 0; r < routes_.size(); ++r)
    for (std::size_t s = 0; s <= kStatuses.size(); ++s) {
      const auto n = per_route_[r].by_status[s].load(std::memory_order_relaxed);
      if (n == 0) continue;
      const std::string status = s < kStatuses.size() ? std::to_string(kStatuses[s]) : "other";
      append(out, "idforge_http_requests_total{{route=\"{}\",status=\"{}\"}} {}\n", routes_[r],
             status, n);
    }

  out +=
      "# HELP idforge_http_request_duration_seconds Time from request start to response written.\n"
      "# TYPE idforge_http_request_duration_seconds histogram\n";
  for (std::size_t r = 0; r < routes_.size(); ++r) {
    const RouteCounters& c = per_route_[r];
    std::uint64_t cumulative = 0;
    for (std::size_t b = 0; b <= kBuckets.size(); ++b) {
      cumulative += c.buckets[b].load(std::memory_order_relaxed);
      if (b < kBuckets.size())
        append(out, "idforge_http_request_duration_seconds_bucket{{route=\"{}\",le=\"{}\"}} {}\n",
               routes_[r], kBuckets[b], cumulative);
      else
        append(out, "idforge_http_request_duration_seconds_bucket{{route=\"{}\",le=\"+Inf\"}} {}\n",
               routes_[r], cumulative);
    }
    append(out, "idforge_http_request_duration_seconds_sum{{route=\"{}\"}} {:.9f}\n", routes_[r],
           static_cast<double>(c.sum_ns.load(std::memory_order_relaxed)) * 1e-9);
    append(out, "idforge_http_request_duration_seconds_count{{route=\"{}\"}} {}\n", routes_[r],
           cumulative);
  }

  out +=
      "# HELP idforge_http_connections_open Connections being served now.\n"
      "# TYPE idforge_http_connections_open gauge\n";
  append(out, "idforge_http_connections_open {}\n", open_.load(std::memory_order_relaxed));
  out +=
      "# HELP idforge_http_connections_rejected_total Connections turned away with 503 "
      "(max-connections).\n"
      "# TYPE idforge_http_connections_rejected_total counter\n";
  append(out, "idforge_http_connections_rejected_total {}\n",
         rejected_.load(std::memory_order_relaxed));
  out +=
      "# HELP idforge_http_connections_shed_total Connections still waiting for their request "
      "(the slowest first) closed to make room at max-connections.\n"
      "# TYPE idforge_http_connections_shed_total counter\n";
  append(out, "idforge_http_connections_shed_total {}\n", shed_.load(std::memory_order_relaxed));
  for (const auto& s : sources_) s(out);
  return out;
}

}  // namespace idforge::server
