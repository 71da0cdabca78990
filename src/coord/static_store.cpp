// static:N, static:DC/WORKER and ordinal:HOSTNAME: the node ID comes from configuration or
// from a StatefulSet pod name. A node ID configured twice would issue the same IDs twice,
// so the store registers its node where it can, and refuses while another live process
// holds it:
//   state=DIR     the node's lock and mark in DIR, exactly as file:DIR keeps them (put DIR
//                 on the host, or on the pod's persistent volume)
//   register=URL  a lease store (file:, redis://, etcd://) holds the node ID for this
//                 process, with its mark
// With neither, nothing is checked: two processes configured alike both issue, and a
// restart with the clock behind is not caught (docs/LEASES.md: what stays undetectable).
#include <charconv>
#include <optional>

#include "store_support.hpp"

namespace idforge::coord::detail {
namespace {

std::uint64_t parse_number(const LeaseUrl& url, std::string_view text, std::string_view what) {
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
    throw ParseError("lease store URL", url.text, url.scheme.size() + 1,
                     std::string(what) +
                         " must be a non-negative decimal number below 2^64, got '" +
                         std::string(text) + "'");
  return n;
}

class StaticStore final : public LeaseStore {
 public:
  StaticStore(const LeaseUrl& url, Clock& clock) : url_(url.text), clock_(&clock) {
    if (url.scheme == "static") {
      url.allow_only({"ttl", "state", "register"});
      const auto slash = url.body.find('/');
      if (slash == std::string::npos) {
        node_ = parse_number(url, url.body, "node ID");
      } else {
        dc_ = parse_number(url, std::string_view(url.body).substr(0, slash), "datacenter");
        worker_ = parse_number(url, std::string_view(url.body).substr(slash + 1), "worker");
      }
    } else {
      url.allow_only({"ttl", "state", "register", "dc", "offset"});
      const std::string host = url.body.empty() ? host_name() : url.body;
      const std::uint64_t ordinal = parse_ordinal_hostname(host);
      const auto offset =
          static_cast<std::uint64_t>(url.int_param("offset", 0, 0, std::int64_t{1} << 31));
      if (ordinal > std::numeric_limits<std::uint64_t>::max() - offset)
        throw Error(errc::invalid_argument,
                    "lease store URL '" + url.text + "': ordinal " + std::to_string(ordinal) +
                        " + offset " + std::to_string(offset) + " does not fit in 64 bits");
      worker_ = ordinal + offset;
      if (url.param("dc")) dc_ = static_cast<std::uint64_t>(url.int_param("dc", 0, 0, 1 << 30));
    }
    ttl_ms_ = url.int_param("ttl", 3000, 100, 86'400'000);
    const auto state = url.param("state");
    const auto reg = url.param("register");
    if (state && reg)
      throw Error(errc::invalid_argument,
                  "lease store URL '" + url.text +
                      "': give state=DIR or register=URL, not both (state=DIR is "
                      "register=file:DIR)");
    if (state) {
      if (state->empty())
        throw Error(errc::invalid_argument, "lease store URL '" + url.text + "': state= is empty");
      inner_ = make_file_store(
          parse_lease_url("file:" + *state + "?ttl=" + std::to_string(ttl_ms_)), clock);
    } else if (reg) {
      const LeaseUrl inner = parse_lease_url(*reg);
      if (inner.scheme == "static" || inner.scheme == "ordinal")
        throw Error(errc::invalid_argument,
                    "lease store URL '" + url.text + "': register=" + *reg +
                        " must be a store that holds node IDs (file:, redis://, etcd://)");
      inner_ = open_lease_store(*reg, clock);
    }
  }

  const std::string& url() const noexcept override { return url_; }
  std::int64_t ttl_ms() const noexcept override { return inner_ ? inner_->ttl_ms() : ttl_ms_; }

  Lease acquire(const Layout& layout) override {
    const std::uint64_t node = resolve(layout);
    if (inner_) return inner_->acquire_node(layout, node);
    Lease lease;
    set_node(lease, layout, node);
    lease.since_unix_ms = now_ms(*clock_);
    lease.holder = new_holder_id();
    lease.token = "static";
    return lease;
  }

  Lease acquire_node(const Layout& layout, std::uint64_t node) override {
    check(layout, node);
    return acquire(layout);
  }

  void check(const Layout& layout, std::optional<std::uint64_t> node) const override {
    const std::uint64_t configured = resolve(layout);
    if (node && *node != configured)
      throw LeaseError(LeaseFailure::rejected, url_,
                       "node " + std::to_string(*node) +
                           " asked for, but this store is configured for node " +
                           std::to_string(configured));
    if (inner_) inner_->check(layout, configured);
  }

  void renew(Lease& lease, std::int64_t mark) override {
    if (inner_) inner_->renew(lease, mark);
  }

  void release(Lease& lease, std::int64_t mark) override {
    if (inner_) inner_->release(lease, mark);
  }

  bool initialize() override { return inner_ ? inner_->initialize() : false; }

  std::vector<HolderInfo> list(const Layout& layout) override {
    HolderInfo row;
    set_node(row, layout, resolve(layout));
    row.holder = "(configured by " + url_ + ")";
    if (inner_) {
      for (const HolderInfo& held : inner_->list(layout))
        if (held.node == row.node) row = held;
      if (row.high_water_unix_ms == kNoMark && url_.find("state=") != std::string::npos)
        row.high_water_unix_ms = read_mark_file(state_mark_path(row.node), url_);
    }
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
  std::string state_mark_path(std::uint64_t node) const {
    const LeaseUrl u = parse_lease_url(url_);
    return *u.param("state") + "/node-" + std::to_string(node) + ".mark";
  }

  std::string url_;
  Clock* clock_;
  std::optional<std::uint64_t> node_, dc_, worker_;
  std::int64_t ttl_ms_;
  std::unique_ptr<LeaseStore> inner_;  // where the node ID is registered, if anywhere
};

}  // namespace

std::unique_ptr<LeaseStore> make_static_store(const LeaseUrl& url, Clock& clock) {
  return std::make_unique<StaticStore>(url, clock);
}

}  // namespace idforge::coord::detail
