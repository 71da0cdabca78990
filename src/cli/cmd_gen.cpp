// `idforge gen snowflake`: print IDs, one a line.
#include <fmt/core.h>

#include <charconv>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/int_codec.hpp"
#include "idforge/snowflake_generator.hpp"
#include "idforge/time_format.hpp"
#include "option_checks.hpp"
#include "output.hpp"
#ifdef IDFORGE_HAVE_COORD
#include "idforge/coord/lease_url.hpp"
#include "lease_start.hpp"
#endif

namespace idforge::cli {
namespace {

constexpr const char* kDefaultLeaseFolder = ".data/leases";

struct SnowflakeArgs {
  std::uint64_t count = 1;
  std::string layout = "twitter";
  std::optional<std::string> node;  // a number, or "auto" (lease one from lease_store)
  std::optional<std::uint64_t> datacenter, worker;
  std::string lease_store = std::string("file:") + kDefaultLeaseFolder;
  bool lease_store_given = false;
  std::string format = "dec";
};

std::uint64_t node_from(const SnowflakeArgs& a, const Layout& layout) {
  if (a.node) {
    if (a.node->empty() || a.node->find_first_not_of("0123456789") != std::string::npos)
      throw CommandFailure{"--node '" + *a.node + "': expected a node number or 'auto'",
                           kExitUsage};
    std::uint64_t n = 0;
    const char* end = a.node->data() + a.node->size();
    const auto [p, ec] = std::from_chars(a.node->data(), end, n);
    if (ec != std::errc{} || p != end)
      throw CommandFailure{"--node '" + *a.node + "': out of range for layout '" + layout.name() +
                               "' (0.." + std::to_string(layout.node_count() - 1) + ")",
                           kExitUsage};
    return layout.check_node(n);
  }
  if (a.datacenter || a.worker) {
    if (layout.datacenter_bits() == 0 && a.datacenter)
      throw CommandFailure{"layout '" + layout.name() + "' has no datacenter bits; use --node"};
    return layout.node_of(a.datacenter.value_or(0), a.worker.value_or(0));
  }
  throw CommandFailure{"no node ID: pass --node N, or --datacenter D --worker W (0.." +
                       std::to_string(layout.node_count() - 1) + " for layout '" + layout.name() +
                       "')"};
}

// --lease-store names where the node ID is leased (--node auto) or registered (a fixed node):
// a malformed URL is named before anything else happens.
void check_lease_store(const SnowflakeArgs& a) {
  if (!a.lease_store_given) return;
#ifdef IDFORGE_HAVE_COORD
  (void)coord::parse_lease_url(a.lease_store);
#else
  throw CommandFailure{
      "--lease-store '" + a.lease_store +
      "': this build has no lease support (IDFORGE_BUILD_COORD); use a fixed --node"};
#endif
}

void run_snowflake(const SnowflakeArgs& a) {
  check_lease_store(a);
  const Layout layout = layout_from_option(a.layout);
  const bool json = a.format == "json";
  const IntEncoding enc = json ? IntEncoding::decimal : parse_int_encoding(a.format);
  std::unique_ptr<SharedSnowflakeGenerator> fixed;
#ifdef IDFORGE_HAVE_COORD
  // A fixed node ID takes the same lease a leased one would (by default a file lock under
  // .data/leases), so the same node ID configured twice is refused instead of issuing twice.
  std::unique_ptr<coord::SharedLeasedSnowflakeGenerator> leased;
  // static:N and ordinal:HOST name the node themselves: no --node needed beside them.
  const std::string scheme = coord::parse_lease_url(a.lease_store).scheme;
  const bool store_names_node = a.lease_store_given && !a.node && !a.datacenter && !a.worker &&
                                (scheme == "static" || scheme == "ordinal");
  const std::optional<std::uint64_t> fixed_node =
      a.node == "auto" || store_names_node ? std::nullopt
                                           : std::optional<std::uint64_t>(node_from(a, layout));
  // static:/ordinal: keep their lock and mark where the default file store does, unless the
  // URL says where (state=, register=): a restart with the clock behind must not reissue.
  leased = start_leased(with_local_state(a.lease_store, kDefaultLeaseFolder), layout,
                        SystemClock::instance(), {"idforge", fixed_node, {}});
#else
  if (a.node == "auto")
    throw CommandFailure{"--node auto needs idforge built with IDFORGE_BUILD_COORD"};
  fixed = std::make_unique<SharedSnowflakeGenerator>(layout, node_from(a, layout));
#endif
  auto batch = [&](std::span<Snowflake> out) {
#ifdef IDFORGE_HAVE_COORD
    if (leased) return leased->next_batch(out);
#endif
    fixed->next_batch(out);
  };
  auto batch_counted = [&](std::span<Snowflake> out, std::error_code& ec) {
#ifdef IDFORGE_HAVE_COORD
    if (leased) return leased->next_batch(out, ec);
#endif
    return fixed->next_batch(out, ec);
  };
  // Fills out as far as the time field reaches: the IDs issued before it ran out are
  // printed, and the error says how many there were. Any other error goes the throwing way
  // (a fence named by its lease, ...), which fills the rest or names the reason.
  std::uint64_t issued = 0;
  auto fill = [&](std::span<Snowflake> out) {
    std::error_code ec;
    const std::size_t done = batch_counted(out, ec);
    if (ec && ec != errc::time_exhausted) {
      batch(out.subspan(done));
      return out.size();
    }
    return done;
  };
  std::vector<Snowflake> buf(std::min<std::uint64_t>(a.count, 4096));
  std::string out;
  for (std::uint64_t left = a.count; left > 0;) {
    const std::size_t want = std::min<std::uint64_t>(left, buf.size());
    const std::size_t n = fill(std::span(buf.data(), want));
    out.clear();
    for (std::size_t i = 0; i < n; ++i) {
      if (json) {
        const std::string s = std::to_string(buf[i].value());
        out += R"({"id":)" + s + R"(,"id_str":")" + s + "\"}\n";
      } else {
        out += encode_u64(buf[i].value(), enc);
        out += '\n';
      }
    }
    write_out(out);
    left -= n;
    issued += n;
    if (n < want)
      throw CommandFailure{fmt::format(
          "layout '{}': its {}-bit time field ran out at {} after {} ID{} of the {} asked for "
          "{} issued (all printed); it can issue no more",
          layout.name(), layout.time_bits(), format_iso8601_ms(describe(layout).time_runs_out_ms),
          issued, issued == 1 ? "" : "s", a.count, issued == 1 ? "was" : "were")};
  }
}

}  // namespace

CLI::App* add_gen_command(CLI::App& app) {
  CLI::App* gen = app.add_subcommand("gen", "Generate IDs, one a line");
  gen->require_subcommand(1);
  return gen;
}

void add_gen_snowflake(CLI::App& gen) {
  auto args = std::make_shared<SnowflakeArgs>();
  CLI::App* cmd = gen.add_subcommand("snowflake", "64-bit time-ordered IDs for one node");
  cmd->add_option("-n,--count", args->count, "How many IDs")->transform(whole_number(1, kMaxCount));
  cmd->add_option("--layout", args->layout,
                  "Preset (twitter, discord, sonyflake, instagram, baidu) or spec")
      ->capture_default_str();
  auto* node = cmd->add_option("--node", args->node,
                               "Node ID (datacenter and worker together), or 'auto' to lease one");
  cmd->add_option_function<std::string>(
         "--lease-store",
         [args](const std::string& v) {
           args->lease_store = v;
           args->lease_store_given = true;
         },
         "Where the node ID is leased (--node auto) or registered (a fixed node): file:DIR, "
         "redis://HOST:PORT, etcd://HOST:PORT[,...], static:N, ordinal:HOST (these two keep "
         "their lock and high-water mark in .data/leases unless given state= or register=)")
      ->default_str(args->lease_store);
  auto* dc = cmd->add_option("--datacenter", args->datacenter,
                             "Datacenter, for layouts that split the node")
                 ->transform(whole_number(0, std::numeric_limits<std::uint32_t>::max()));
  auto* worker = cmd->add_option("--worker", args->worker, "Worker inside the datacenter")
                     ->transform(whole_number(0, std::numeric_limits<std::uint32_t>::max()));
  node->excludes(dc)->excludes(worker);
  cmd->add_option("--format", args->format, "dec, hex, base32, base62 or json")
      ->check(CLI::IsMember({"dec", "hex", "base32", "base62", "json"}))
      ->capture_default_str();
  cmd->callback([args] { run_snowflake(*args); });
}

}  // namespace idforge::cli
