// `idforge inspect ID...`: what each ID is and what it carries.
#include <fmt/core.h>

#include <memory>
#include <optional>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/clock.hpp"
#include "idforge/error.hpp"
#include "idforge/inspect.hpp"
#include "idforge/inspect_json.hpp"
#include "output.hpp"
#include "printable.hpp"

namespace idforge::cli {
namespace {

struct InspectArgs {
  std::string layout = "twitter";
  std::optional<std::string> encoding;
  bool json = false;
};

void print_text(const Inspection& in) {
  // The input is shown as given but escaped: an argument must not drive the terminal.
  std::string s = fmt::format("{}\n  {:<11}{}\n", printable(in.input), "kind", in.kind);
  for (const auto& f : in.fields) s += fmt::format("  {:<11}{}\n", f.name, printable(f.text));
  if (const auto w = secret_warning(in)) s += fmt::format("  {:<11}{}\n", "warning", *w);
  write_out(s);
}

void run_inspect(const InspectArgs& a, const std::vector<std::string>& ids) {
  InspectOptions opt;
  opt.layout = layout_from_option(a.layout);
  if (a.encoding) opt.encoding = parse_int_encoding(*a.encoding);
  // Read once, so every ID of one call is judged against the same present.
  opt.now_unix_ms = realtime_ms();
  int failures = 0;
  std::string last_error;
  for (const auto& id : ids) {
    try {
      const Inspection in = inspect(id, opt);
      if (a.json) {
        const auto j = inspection_to_json_with_warning(in);
        write_out(json_text(j) + "\n");
      } else {
        print_text(in);
      }
    } catch (const Error& e) {
      ++failures;
      last_error = e.what();
      if (ids.size() > 1) {
        flush_out();
        report_error(e.what());
      }
    }
  }
  if (failures == 1 && ids.size() == 1) throw CommandFailure{last_error};
  if (failures > 0)
    throw CommandFailure{std::to_string(failures) + " of " + std::to_string(ids.size()) +
                         " IDs did not decode"};
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  auto args = std::make_shared<InspectArgs>();
  CLI::App* cmd = app.add_subcommand("inspect", "Decode IDs: kind, time, node, sequence, version");
  cmd->add_option("--layout", args->layout, "Snowflake layout: preset or spec")
      ->capture_default_str();
  cmd->add_option("--encoding", args->encoding,
                  "Snowflake text encoding: dec, hex, base32, base62");
  cmd->add_flag("--json", args->json, "One JSON object per ID");
  take_ids_as_written(cmd, "IDs to decode: UUID, ULID, TypeID, KSUID or Snowflake");
  cmd->callback([args, cmd] { run_inspect(*args, ids_as_written(cmd)); });
}

}  // namespace idforge::cli
