// `idforge layout PRESET|SPEC`: what a Snowflake layout can do.
#include <fmt/core.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/time_format.hpp"
#include "output.hpp"
#include "printable.hpp"

namespace idforge::cli {
namespace {

struct LayoutArgs {
  std::string spec;
  bool json = false;
};

std::string when(std::int64_t unix_ms) {
  return unix_ms > 253402300799999 ? std::string("after 9999-12-31") : format_iso8601_ms(unix_ms);
}

std::string field_line(const Layout& l) {
  std::string s = l.is_signed() ? "sign 1 | " : "";
  s += fmt::format("time {} ({} ms ticks)", l.time_bits(), l.tick_ms());
  const std::string node =
      l.datacenter_bits() > 0
          ? fmt::format("datacenter {} | worker {}", l.datacenter_bits(), l.worker_bits())
          : fmt::format("node {}", l.worker_bits());
  const std::string seq = fmt::format("sequence {}", l.sequence_bits());
  s += l.order() == FieldOrder::time_node_sequence ? " | " + node + " | " + seq
                                                   : " | " + seq + " | " + node;
  return s;
}

void run_layout(const LayoutArgs& a) {
  const Layout l = layout_from_option(a.spec);
  const LayoutFacts f = describe(l);
  if (a.json) {
    nlohmann::ordered_json j;
    j["name"] = l.name();
    j["spec"] = l.to_spec();
    j["time_bits"] = l.time_bits();
    j["datacenter_bits"] = l.datacenter_bits();
    j["worker_bits"] = l.worker_bits();
    j["sequence_bits"] = l.sequence_bits();
    j["tick_ms"] = l.tick_ms();
    j["epoch_ms"] = l.epoch_ms();
    j["signed"] = l.is_signed();
    j["nodes"] = f.nodes;
    j["ids_per_tick"] = f.ids_per_tick;
    j["max_ids_per_second"] = f.max_ids_per_second;
    j["time_runs_out"] = when(f.time_runs_out_ms);
    j["years"] = f.years_of_time;
    j["js_safe_until"] = when(f.js_safe_until_ms);
    print_out("{}\n", json_text(j));
    return;
  }
  print_out("layout      {}\n", printable(l.name()));
  print_out("spec        {}\n", printable(l.to_spec()));
  print_out("fields      {}\n", field_line(l));
  print_out("epoch       {}\n", format_iso8601_ms(l.epoch_ms()));
  print_out("nodes       {}\n", f.nodes);
  print_out("per tick    {} IDs per node\n", f.ids_per_tick);
  print_out("max rate    {:.0f} IDs/s per node, {:.0f} IDs/s over all nodes\n",
            f.max_ids_per_second, f.max_ids_per_second * static_cast<double>(f.nodes));
  print_out("time ends   {} ({:.1f} years after the epoch)\n", when(f.time_runs_out_ms),
            f.years_of_time);
  print_out("JS-safe     until {} (IDs stay below 2^53 until then)\n", when(f.js_safe_until_ms));
}

}  // namespace

void add_layout_command(CLI::App& app) {
  auto args = std::make_shared<LayoutArgs>();
  CLI::App* cmd = app.add_subcommand("layout", "What a Snowflake layout can do");
  cmd->add_option("layout", args->spec,
                  "Preset (twitter, discord, sonyflake, instagram, baidu) or spec such as "
                  "time=41,dc=5,worker=5,seq=12,epoch=2020-01-01T00:00:00Z")
      ->required();
  cmd->add_flag("--json", args->json, "Print as JSON");
  cmd->callback([args] { run_layout(*args); });
}

}  // namespace idforge::cli
