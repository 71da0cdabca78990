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
  // "-5" is a number a user wants decoded (and told why it is not an ID), not an option;
  // anything else that starts with '-' is an option this command does not have.
  for (const std::string& id : ids)
    if (id.starts_with('-') && !(id.size() > 1 && id[1] >= '0' && id[1] <= '9'))
      throw CLI::ExtrasError({id});
  if (ids.empty()) throw CLI::RequiredError("an ID");
  return ids;
}

}  // namespace idforge::cli
