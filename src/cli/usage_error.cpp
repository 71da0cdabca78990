#include "usage_error.hpp"

namespace idforge::cli {
namespace {

// The last command the arguments reached: `idforge lab cost` for "idforge lab cost --x 1".
CLI::App* deepest(CLI::App& root) {
  CLI::App* a = &root;
  for (auto subs = a->get_subcommands(); !subs.empty(); subs = a->get_subcommands())
    a = subs.front();
  return a;
}

std::string path_of(const CLI::App* a) {
  std::string path = a->get_name();
  for (const CLI::App* p = a->get_parent(); p != nullptr; p = p->get_parent())
    path = p->get_name() + " " + path;
  return path;
}

std::string choices(CLI::App* a) {
  std::string s;
  const auto subs = a->get_subcommands([](CLI::App*) { return true; });
  for (std::size_t i = 0; i < subs.size(); ++i)
    s += (i == 0 ? "" : i + 1 == subs.size() ? " or " : ", ") + subs[i]->get_name();
  return s;
}

}  // namespace

std::string usage_message(CLI::App& root, const CLI::ParseError& e) {
  CLI::App* at = deepest(root);
  const std::string path = path_of(at);
  if (at->get_require_subcommand_min() > 0 && at->get_subcommands().empty()) {
    for (const std::string& arg : root.remaining(true))
      if (!arg.empty() && arg.front() != '-')
        return "'" + arg + "' is not a command of '" + path + "': expected " + choices(at);
    return "'" + path + "' needs a command: " + choices(at) + "; see '" + path + " --help'";
  }
  // The root's own name is already the prefix of every error line ("idforge: ...").
  const std::string where =
      at == &root ? std::string() : path.substr(root.get_name().size() + 1) + ": ";
  std::string what = e.what();
  if (what.starts_with(at->get_name() + ": ")) what.erase(0, at->get_name().size() + 2);
  return where + what + "; see '" + path + " --help'";
}

}  // namespace idforge::cli
