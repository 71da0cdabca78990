// `idforge seq next|create|stats`: segment (hi/lo) sequences in SQLite or PostgreSQL.
#include <fmt/core.h>

#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/ticket/segment_client.hpp"
#include "idforge/ticket/segment_store.hpp"
#include "idforge/ticket/store_url.hpp"
#include "option_checks.hpp"
#include "output.hpp"
#include "printable.hpp"

namespace idforge::cli {
namespace {

struct SeqArgs {
  std::string name;
  std::string store{ticket::kDefaultStore};
  std::int64_t count = 1;
  std::int64_t start = 1;
  std::int64_t step = 1000;
  bool json = false;
};

void add_store_option(CLI::App* cmd, SeqArgs& a) {
  cmd->add_option("--store", a.store, "sqlite:PATH or postgres://USER@HOST:PORT/DB")
      ->capture_default_str();
}

void run_next(const SeqArgs& a) {
  auto store = ticket::open_segment_store(a.store);
  // One block of exactly n values: a command that exits right away would lose any surplus.
  ticket::SegmentOptions opts;
  opts.initial_step = a.count;
  opts.background = false;
  opts.prefetch_at = 1.0;
  ticket::SegmentClient client(*store, a.name, opts);
  std::string out;
  try {
    for (std::int64_t i = 0; i < a.count; ++i) {
      out += std::to_string(client.next());
      out += '\n';
      if (out.size() > (1 << 16)) {
        write_out(out);
        out.clear();
      }
    }
  } catch (const OutputError&) {
    throw;
  } catch (...) {
    write_out(out);  // the values taken before the failure are handed out, then the error
    throw;
  }
  write_out(out);
  client.close();
}

void run_create(const SeqArgs& a) {
  auto store = ticket::open_segment_store(a.store);
  store->create(a.name, a.start, a.step);
  print_out("created sequence '{}' in {}: first value {}, step {}\n", a.name, store->describe(),
            a.start, a.step);
}

void run_stats(const SeqArgs& a) {
  auto store = ticket::open_segment_store(a.store);
  const auto rows = store->stats();
  if (a.json) {
    // Built as JSON, not formatted text: a name in the store is not trusted to need no escaping.
    for (const auto& r : rows) {
      nlohmann::ordered_json j{{"name", r.name},
                               {"next_value", r.next_value},
                               {"next_value_str", std::to_string(r.next_value)},
                               {"step", r.step},
                               {"blocks", r.blocks},
                               {"abandoned", r.abandoned}};
      print_out("{}\n", json_text(j));
    }
    return;
  }
  print_out("{:<24} {:>20} {:>12} {:>10} {:>14}\n", "name", "next_value", "step", "blocks",
            "abandoned");
  for (const auto& r : rows)
    print_out("{:<24} {:>20} {:>12} {:>10} {:>14}\n", printable(r.name), r.next_value, r.step,
              r.blocks, r.abandoned);
}

}  // namespace

void add_seq_command(CLI::App& app) {
  CLI::App* seq = app.add_subcommand(
      "seq", "Segment (hi/lo) sequences: dense integers from SQLite or PostgreSQL");
  seq->require_subcommand(1);

  auto next_args = std::make_shared<SeqArgs>();
  CLI::App* next = seq->add_subcommand("next", "Print the next N values of a sequence, one a line");
  next->add_option("name", next_args->name, "Sequence name")->required();
  next->add_option("-n,--count", next_args->count, "How many values")
      ->transform(signed_number(1, ticket::kMaxSegmentStep));
  add_store_option(next, *next_args);
  next->callback([next_args] { run_next(*next_args); });

  auto create_args = std::make_shared<SeqArgs>();
  CLI::App* create = seq->add_subcommand("create", "Create a sequence");
  create->add_option("name", create_args->name, "Sequence name (a-z, 0-9, _; starts with a letter)")
      ->required();
  create->add_option("--start", create_args->start, "First value")
      ->transform(signed_number(std::numeric_limits<std::int64_t>::min(),
                                std::numeric_limits<std::int64_t>::max()))
      ->capture_default_str();
  create->add_option("--step", create_args->step, "Default block size")
      ->transform(signed_number(std::numeric_limits<std::int64_t>::min(),
                                std::numeric_limits<std::int64_t>::max()))
      ->capture_default_str();
  add_store_option(create, *create_args);
  create->callback([create_args] { run_create(*create_args); });

  auto stats_args = std::make_shared<SeqArgs>();
  CLI::App* stats = seq->add_subcommand(
      "stats", "Show every sequence: next value, step, blocks, abandoned values");
  add_store_option(stats, *stats_args);
  stats->add_flag("--json", stats_args->json, "One JSON object a line");
  stats->callback([stats_args] { run_stats(*stats_args); });
}

}  // namespace idforge::cli
