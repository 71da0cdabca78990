// `idforge lab`: the parent of `lab btree`, `lab db` and `lab cost`.
#include "commands.hpp"

namespace idforge::cli {

CLI::App* add_lab_command(CLI::App& app) {
  CLI::App* lab = app.add_subcommand(
      "lab", "Index lab: what an ID format does to a B+ tree and to real databases");
  lab->require_subcommand(1);
  add_lab_btree(*lab);
  add_lab_db(*lab);
  add_lab_cost(*lab);
  return lab;
}

}  // namespace idforge::cli
