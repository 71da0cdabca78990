// `idforge gen snowflake`: print IDs, one a line.
#include <fmt/core.h>

#include <memory>
#include <optional>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/int_codec.hpp"
#include "idforge/snowflake_generator.hpp"
#ifdef IDFORGE_HAVE_COORD
#include "lease_start.hpp"
#endif

namespace idforge::cli {
namespace {

struct SnowflakeArgs {
  std::uint64_t count = 1;
  std::string layout = "twitter";
  std::optional<std::string> node;  // a number, or "auto" (lease one from lease_store)
  std::optional<std::uint64_t> datacenter, worker;
  std::string lease_store = "file:.data/leases";
  std::string format = "dec";
};

std::uint64_t node_from(const SnowflakeArgs& a, const Layout& layout) {
  if (a.node) {
    std::size_t used = 0;
    std::uint64_t n = 0;
    try {
      n = std::stoull(*a.node, &used);
    } catch (const std::exception&) {
    }
    if (used == 0 || used != a.node->size() || (*a.node)[0] == '-')
      throw CommandFailure{"--node '" + *a.node + "': expected a node number or 'auto'"};
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

void run_snowflake(const SnowflakeArgs& a) {
  const Layout layout = layout_from_option(a.layout);
  const bool json = a.format == "json";
  const IntEncoding enc = json ? IntEncoding::decimal : parse_int_encoding(a.format);
  std::unique_ptr<SnowflakeGenerator> fixed;
#ifdef IDFORGE_HAVE_COORD
  // A fixed node ID takes the same lease a leased one would (by default a file lock under
  // .data/leases), so the same node ID configured twice is refused instead of issuing twice.
  std::unique_ptr<coord::LeasedSnowflakeGenerator> leased;
  const std::optional<std::uint64_t> fixed_node =
      a.node == "auto" ? std::nullopt : std::optional<std::uint64_t>(node_from(a, layout));
  leased =
      start_leased(a.lease_store, layout, SystemClock::instance(), {"idforge", fixed_node, {}});
#else
  if (a.node == "auto")
    throw CommandFailure{"--node auto needs idforge built with IDFORGE_BUILD_COORD"};
  fixed = std::make_unique<SnowflakeGenerator>(layout, node_from(a, layout));
#endif
  auto batch = [&](std::span<Snowflake> out) {
#ifdef IDFORGE_HAVE_COORD
    if (leased) return leased->next_batch(out);
#endif
    fixed->next_batch(out);
  };
  std::vector<Snowflake> buf(std::min<std::uint64_t>(a.count, 4096));
  std::string out;
  for (std::uint64_t left = a.count; left > 0;) {
    const std::size_t n = std::min<std::uint64_t>(left, buf.size());
    batch(std::span(buf.data(), n));
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
    std::fwrite(out.data(), 1, out.size(), stdout);
    left -= n;
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
  cmd->add_option("-n,--count", args->count, "How many IDs")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{100'000'000}));
  cmd->add_option("--layout", args->layout,
                  "Preset (twitter, discord, sonyflake, instagram, baidu) or spec")
      ->capture_default_str();
  auto* node = cmd->add_option("--node", args->node,
                               "Node ID (datacenter and worker together), or 'auto' to lease one");
  cmd->add_option(
         "--lease-store", args->lease_store,
         "Where the node ID is leased (--node auto) or registered (a fixed node): file:DIR, "
         "redis://HOST:PORT, etcd://HOST:PORT[,...], static:N, ordinal:HOST")
      ->capture_default_str();
  auto* dc = cmd->add_option("--datacenter", args->datacenter,
                             "Datacenter, for layouts that split the node");
  auto* worker = cmd->add_option("--worker", args->worker, "Worker inside the datacenter");
  node->excludes(dc)->excludes(worker);
  cmd->add_option("--format", args->format, "dec, hex, base32, base62 or json")
      ->check(CLI::IsMember({"dec", "hex", "base32", "base62", "json"}))
      ->capture_default_str();
  cmd->callback([args] { run_snowflake(*args); });
}

}  // namespace idforge::cli
