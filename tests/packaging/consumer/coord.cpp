// idforge::coord alone: a node ID from the static store (no server needed), held and freed.
#include <idforge/coord/lease.hpp>

#include <iostream>

int main() {
  auto store = idforge::coord::open_lease_store("static:7");
  idforge::coord::Lease lease = store->acquire(idforge::presets::twitter());
  std::cout << "coord: node " << lease.node << "\n";
  store->release(lease, idforge::coord::kNoMark);
}
