#include "cli_support.hpp"

namespace idforge::cli {

Layout layout_from_option(const std::string& spec) {
  return parse_layout(spec);
}

void take_ids_as_written(CLI::App* cmd, const std::string& what) {
  // Arguments no option claims stay in cmd->remaining() with their text untouched.
  cmd->allow_extras();
  cmd->footer("ID...: " + what + ". Each argument is one ID, taken exactly as written.");
}

std::vector<std::string> ids_as_written(CLI::App* cmd) {
  std::vector<std::string> ids = cmd->remaining();
  for (const std::string& id : ids)
    if (id.starts_with('-')) throw CLI::ExtrasError({id});
  if (ids.empty()) throw CLI::RequiredError("an ID");
  return ids;
}

}  // namespace idforge::cli
