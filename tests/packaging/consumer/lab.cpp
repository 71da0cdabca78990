// idforge::lab alone: the B+ tree demo (seed 003's Demo 5) with its default keys.
#include <idforge/lab/sim_run.hpp>

#include <iostream>

int main() {
  const auto runs = idforge::lab::run_demo();
  std::cout << "lab: " << runs.size() << " kinds, " << runs.front().stats.inserts
            << " inserts each\n";
}
