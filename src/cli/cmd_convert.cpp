// `idforge convert ID... --to uuid|ulid|typeid[:prefix]|hex|base62`: the same 128 bits in
// another text form, one a line. The rules (what converts, what does not) live in
// idforge/convert.hpp.
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/convert.hpp"
#include "idforge/error.hpp"
#include "output.hpp"

namespace idforge::cli {
namespace {

struct ConvertArgs {
  std::string to;
};

void run_convert(const ConvertArgs& a, const std::vector<std::string>& ids) {
  const Id128Target target = parse_id128_target(a.to);  // a bad target fails before any ID
  int failures = 0;
  std::string last_error;
  for (const auto& id : ids) {
    try {
      print_out("{}\n", write_id128(read_id128(id).bits, target));
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
                         " IDs did not convert"};
}

}  // namespace

void add_convert_command(CLI::App& app) {
  auto args = std::make_shared<ConvertArgs>();
  CLI::App* cmd = app.add_subcommand(
      "convert", "Rewrite 128-bit IDs (UUID, ULID, TypeID, hex, base62) in another form");
  cmd->add_option("--to", args->to, "uuid, ulid, typeid, typeid:PREFIX, hex or base62")->required();
  take_ids_as_written(cmd, "IDs to convert: UUID, ULID, TypeID, 32 hex digits or 22 base62");
  cmd->callback([args, cmd] { run_convert(*args, ids_as_written(cmd)); });
}

}  // namespace idforge::cli
