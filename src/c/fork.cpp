// The after-fork hook for runtimes that have one (see idforge_reseed in idforge.h).
#include "c_support.hpp"
#include "idforge/random.hpp"

extern "C" {

idforge_status idforge_reseed(void) {
  idforge::random_reseed();
  return IDFORGE_OK;
}

}  // extern "C"
