#include "cli_support.hpp"

#include <algorithm>
#include <set>
#include <string_view>

namespace idforge::cli {

Layout layout_from_option(const std::string& spec) {
  return parse_layout(spec);
}

namespace {

// The commands that take IDs, and the arguments after "--" of this process's command line.
std::set<const CLI::App*>& id_commands() {
  static std::set<const CLI::App*> commands;
  return commands;
}
std::vector<std::string> g_after_marker;

}  // namespace

void take_ids_as_written(CLI::App* cmd, const std::string& what) {
  // Arguments no option claims stay in cmd->remaining() with their text untouched.
  cmd->allow_extras();
  id_commands().insert(cmd);
  cmd->footer("ID...: " + what + ". Each argument is one ID, taken exactly as written.");
}

std::vector<std::string> ids_as_written(CLI::App* cmd) {
  std::vector<std::string> ids = cmd->remaining();
  // "-5" is a number a user wants decoded (and told why it is not an ID), not an option;
  // anything else that starts with '-' is an option this command does not have, named
  // without what follows '=' ("--key=1:<hex>" may carry a secret that must not be echoed).
  for (const std::string& id : ids)
    if (id.starts_with('-') && !(id.size() > 1 && id[1] >= '0' && id[1] <= '9'))
      throw CLI::ExtrasError({id.substr(0, id.find('='))});
  ids.insert(ids.end(), g_after_marker.begin(), g_after_marker.end());
  if (ids.empty()) throw CLI::RequiredError("an ID");
  return ids;
}

void parse_with_ids_after_marker(CLI::App& app, int argc, char** argv) {
  int marker = 1;
  while (marker < argc && std::string_view(argv[marker]) != "--") ++marker;
  g_after_marker.assign(argv + std::min(marker + 1, argc), argv + argc);
  if (!g_after_marker.empty())
    // After parsing, before any command runs: the command chosen must take IDs.
    app.parse_complete_callback([&app] {
      const CLI::App* leaf = &app;
      for (bool deeper = true; deeper;) {
        deeper = false;
        for (const CLI::App* sub : leaf->get_subcommands()) {
          leaf = sub;
          deeper = true;
          break;
        }
      }
      if (!id_commands().contains(leaf)) throw CLI::ExtrasError(g_after_marker);
    });
  app.parse(marker, argv);
}

}  // namespace idforge::cli
