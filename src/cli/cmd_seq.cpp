// `idforge seq next|create|stats`: segment (hi/lo) sequences in SQLite or PostgreSQL.
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/error.hpp"
#include "idforge/ticket/segment_client.hpp"
#include "idforge/ticket/segment_store.hpp"
#include "idforge/ticket/store_url.hpp"
#include "option_checks.hpp"
#include "output.hpp"
#include "printable.hpp"
#include "sequence_names.hpp"
#include "stop_signals.hpp"

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
  cmd->add_option("--store", a.store,
                  "sqlite:PATH (relative to the working folder) or postgres://USER@HOST:PORT/DB")
      ->capture_default_str();
}

void run_next(const SeqArgs& a) {
  check_name_option(a.name);
  ticket::StoreOptions so;
  so.create = false;  // only `seq create` makes a store
  auto store = ticket::open_segment_store(a.store, so);
  // One block of exactly n values: a command that exits right away would lose any surplus.
  ticket::SegmentOptions opts;
  opts.initial_step = a.count;
  opts.background = false;
  opts.prefetch_at = 1.0;
  ticket::SegmentClient client(*store, a.name, opts);
  g_stop_signal = 0;
  const StopSignals signals;
  // Values count as handed out once their whole line is written; whatever was taken and not
  // written is reported to the store's abandoned counter, whatever stops the loop. A store
  // that fails part-way: the values taken before it are written, then its error.
  std::int64_t taken = 0, written = 0;
  int write_errno = 0;
  std::exception_ptr failure;
  std::string buf;
  std::vector<std::size_t> ends;  // where each line ends in buf
  while (written < a.count && g_stop_signal == 0 && write_errno == 0 && !failure) {
    buf.clear();
    ends.clear();
    try {
      while (taken < a.count && buf.size() < (1 << 16)) {
        buf += std::to_string(client.next());
        buf += '\n';
        ++taken;
        ends.push_back(buf.size());
      }
    } catch (...) {
      failure = std::current_exception();
    }
    std::size_t off = 0;
    while (off < buf.size()) {
      const ssize_t n = ::write(STDOUT_FILENO, buf.data() + off, buf.size() - off);
      if (n > 0) {
        off += static_cast<std::size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR && g_stop_signal == 0) continue;
      if (n < 0 && errno == EINTR) {
        // Stopping: complete the line in progress, so no reader sees a cut number.
        const auto line = std::lower_bound(ends.begin(), ends.end(), off);
        const std::size_t to = line == ends.end() ? off : *line;
        while (off < to) {
          const ssize_t m = ::write(STDOUT_FILENO, buf.data() + off, to - off);
          if (m > 0)
            off += static_cast<std::size_t>(m);
          else if (m < 0 && errno != EINTR)
            break;
        }
        break;
      }
      write_errno = n < 0 ? errno : EIO;
      break;
    }
    written += std::upper_bound(ends.begin(), ends.end(), off) - ends.begin();
  }
  if (failure && written == taken) std::rethrow_exception(failure);
  if (written == a.count) {
    client.close();
    return;
  }
  // Stopped early: the rest of the block and the values taken but not written are lost.
  const std::int64_t lost = client.close() + (taken - written);
  if (taken > written) {
    try {
      store->report_abandoned(a.name, taken - written);
    } catch (const Error&) {
      // Best effort, like close(): the values are gone either way.
    }
  }
  const std::string what =
      fmt::format("{} of {} values written, {} reported abandoned", written, a.count, lost);
  if (write_errno != 0)
    throw CommandFailure{"cannot write to standard output: " +
                         std::string(std::strerror(write_errno)) + " (" + what + ")"};
  throw CommandFailure{"stopped by signal " + std::to_string(g_stop_signal) + ": " + what,
                       128 + g_stop_signal};
}

void run_create(const SeqArgs& a) {
  check_name_option(a.name);
  auto store = ticket::open_segment_store(a.store);
  store->create(a.name, a.start, a.step);
  print_out("created sequence '{}' in {}: first value {}, step {}\n", a.name, store->describe(),
            a.start, a.step);
  const auto u = ticket::parse_store_url(a.store);
  if (u.kind == ticket::StoreKind::sqlite && !u.path.empty() && u.path.front() != '/')
    note(fmt::format(
        "idforge: note: the store path '{}' is relative: it resolved against the working "
        "folder, so run every `seq` command from there or give an absolute path",
        printable(u.path)));
}

void run_stats(const SeqArgs& a) {
  ticket::StoreOptions so;
  so.create = false;
  auto store = ticket::open_segment_store(a.store, so);
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
      ->transform(signed_number(1, ticket::kMaxSegmentStep))
      ->capture_default_str();
  add_store_option(next, *next_args);
  next->callback([next_args] { run_next(*next_args); });

  auto create_args = std::make_shared<SeqArgs>();
  CLI::App* create = seq->add_subcommand("create", "Create a sequence (and the store if missing)");
  create->add_option("name", create_args->name, "Sequence name (a-z, 0-9, _; starts with a letter)")
      ->required();
  create->add_option("--start", create_args->start, "First value")
      ->transform(signed_number(0, std::numeric_limits<std::int64_t>::max()))
      ->capture_default_str();
  create->add_option("--step", create_args->step, "Default block size")
      ->transform(signed_number(1, ticket::kMaxSegmentStep))
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
