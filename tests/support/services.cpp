#include "services.hpp"

#include <cstdlib>

namespace idforge::test {

bool services_required() {
  const char* v = std::getenv("IDFORGE_REQUIRE_SERVICES");
  return v != nullptr && std::string(v) == "1";
}

std::optional<std::string> service_var(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

}  // namespace idforge::test
