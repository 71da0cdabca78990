#include "idforge/coord/lease.hpp"
#include "idforge/coord/coord_errc.hpp"

#include "store_support.hpp"

namespace idforge::coord {
namespace {

std::error_code code_of(LeaseFailure reason) noexcept {
  switch (reason) {
    case LeaseFailure::unreachable:
      return coord_errc::store_unreachable;
    case LeaseFailure::fenced:
      return errc::fenced;
    default:
      return coord_errc::lease_error;
  }
}

}  // namespace

const char* to_string(LeaseFailure reason) noexcept {
  switch (reason) {
    case LeaseFailure::unreachable:
      return "store unreachable";
    case LeaseFailure::space_full:
      return "node-ID space full";
    case LeaseFailure::lost:
      return "lease lost";
    case LeaseFailure::fenced:
      return "lease not renewed";
    case LeaseFailure::rejected:
      return "store refused";
    case LeaseFailure::held:
      return "node ID held";
    case LeaseFailure::cancelled:
      return "start-up cancelled";
  }
  return "lease error";
}

LeaseError::LeaseError(LeaseFailure reason, std::string store, const std::string& detail)
    : Error(code_of(reason), std::string(to_string(reason)) + " (" + store + "): " + detail),
      reason_(reason),
      store_(std::move(store)) {}

std::unique_ptr<LeaseStore> open_lease_store(std::string_view url, Clock& clock) {
  const LeaseUrl u = parse_lease_url(url);
  if (u.scheme == "static" || u.scheme == "ordinal") return detail::make_static_store(u, clock);
  if (u.scheme == "file") return detail::make_file_store(u, clock);
  if (u.scheme == "redis") return detail::make_redis_store(u, clock);
  return detail::make_etcd_store(u, clock);
}

}  // namespace idforge::coord
