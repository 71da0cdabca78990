// static:N, static:DC/WORKER and ordinal:HOSTNAME: the node ID comes from configuration
// or from a StatefulSet pod name, so nothing is coordinated: two processes configured alike
// collide. With state=DIR the high-water mark survives restarts in DIR/node-N.mark (put DIR
// on the pod's persistent volume); without it a restart with a clock behind is not caught.
#include <charconv>
#include <mutex>
#include <optional>

#include "store_support.hpp"

namespace idforge::coord::detail {
namespace {

std::uint64_t parse_number(const LeaseUrl& url, std::string_view text, std::string_view what) {
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
    throw ParseError("lease store URL", url.text, url.scheme.size() + 1,
                     std::string(what) + " must be a non-negative decimal number, got '" +
                         std::string(text) + "'");
  return n;
}

class StaticStore final : public LeaseStore {
 public:
  StaticStore(const LeaseUrl& url, Clock& clock) : url_(url.text), clock_(&clock) {
    if (url.scheme == "static") {
      url.allow_only({"ttl", "state"});
      const auto slash = url.body.find('/');
      if (slash == std::string::npos) {
        node_ = parse_number(url, url.body, "node ID");
      } else {
        dc_ = parse_number(url, std::string_view(url.body).substr(0, slash), "datacenter");
        worker_ = parse_number(url, std::string_view(url.body).substr(slash + 1), "worker");
      }
    } else {
      url.allow_only({"ttl", "state", "dc", "offset"});
      const std::string host = url.body.empty() ? host_name() : url.body;
      worker_ = parse_ordinal_hostname(host) +
                static_cast<std::uint64_t>(url.int_param("offset", 0, 0, std::int64_t{1} << 31));
      if (const auto dc = url.param("dc")) dc_ = static_cast<std::uint64_t>(url.int_param("dc", 0, 0, 1 << 30));
    }
    ttl_ms_ = url.int_param("ttl", 3000, 100, 86'400'000);
    if (const auto s = url.param("state")) state_dir_ = *s;
  }

  const std::string& url() const noexcept override { return url_; }
  std::int64_t ttl_ms() const noexcept override { return ttl_ms_; }

  Lease acquire(const Layout& layout) override {
    Lease lease;
    set_node(lease, layout, resolve(layout));
    lease.since_unix_ms = now_ms(*clock_);
    lease.holder = new_holder_id();
    lease.token = "static";
    if (!state_dir_.empty()) {
      make_dirs(state_dir_, url_);
      lease.high_water_unix_ms = read_mark_file(mark_path(lease.node), url_);
    }
    std::lock_guard lock(mu_);
    stored_ = lease.high_water_unix_ms;
    return lease;
  }

  void renew(Lease& lease, std::int64_t mark) override { store(lease.node, mark, false); }

  void release(Lease& lease, std::int64_t mark) override { store(lease.node, mark, true); }

  std::vector<HolderInfo> list(const Layout& layout) override {
    HolderInfo row;
    set_node(row, layout, resolve(layout));
    row.holder = "(configured by " + url_ + ")";
    if (!state_dir_.empty()) row.high_water_unix_ms = read_mark_file(mark_path(row.node), url_);
    return {row};
  }

 private:
  std::uint64_t resolve(const Layout& layout) const {
    try {
      if (node_) return layout.check_node(*node_);
      if (dc_ && layout.datacenter_bits() == 0)
        throw Error(errc::node_out_of_range, "layout '" + layout.name() +
                                                 "' has no datacenter bits, but a datacenter (" +
                                                 std::to_string(*dc_) + ") was given");
      return layout.node_of(dc_.value_or(0), *worker_);
    } catch (const Error& e) {
      throw LeaseError(LeaseFailure::rejected, url_, e.what());
    }
  }
  std::string mark_path(std::uint64_t node) const {
    return state_dir_ + "/node-" + std::to_string(node) + ".mark";
  }
  // Renewals only raise the mark; release stores the exact last issued time.
  void store(std::uint64_t node, std::int64_t mark, bool exact) {
    if (state_dir_.empty() || mark == kNoMark) return;
    std::lock_guard lock(mu_);
    if (!exact && mark <= stored_) return;
    write_mark_file(mark_path(node), mark, url_);
    stored_ = mark;
  }

  std::string url_;
  Clock* clock_;
  std::optional<std::uint64_t> node_, dc_, worker_;
  std::int64_t ttl_ms_;
  std::string state_dir_;
  std::mutex mu_;
  std::int64_t stored_ = kNoMark;
};

}  // namespace

std::unique_ptr<LeaseStore> make_static_store(const LeaseUrl& url, Clock& clock) {
  return std::make_unique<StaticStore>(url, clock);
}

}  // namespace idforge::coord::detail
