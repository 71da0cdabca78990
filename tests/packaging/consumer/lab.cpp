// idforge::lab alone: the B+ tree demo (seed 003's Demo 5) with its default keys, and the
// web page's simulation (its layouts as JSON).
#include <idforge/lab/page_sim.hpp>
#include <idforge/lab/sim_run.hpp>

#include <iostream>

int main() {
  const auto runs = idforge::lab::run_demo();
  if (idforge::lab::sim_layouts_json().find("\"layouts\"") == std::string::npos) return 1;
  std::cout << "lab: " << runs.size() << " kinds, " << runs.front().stats.inserts
            << " inserts each, page layouts\n";
}
