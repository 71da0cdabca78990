#include "idforge/server/kinds.hpp"

#include "idforge/error.hpp"

namespace idforge::server {

void KindRegistry::add(Kind kind) {
  if (kind.name.empty() || !kind.generate)
    throw Error(errc::invalid_argument, "kind '" + kind.name + "': needs a name and a generator");
  if (find(kind.name))
    throw Error(errc::invalid_argument, "kind '" + kind.name + "': already registered");
  kinds_.push_back(std::move(kind));
}

const Kind* KindRegistry::find(std::string_view name) const noexcept {
  const std::size_t i = index_of(name);
  return i == npos ? nullptr : &kinds_[i];
}

std::size_t KindRegistry::index_of(std::string_view name) const noexcept {
  for (std::size_t i = 0; i < kinds_.size(); ++i)
    if (kinds_[i].name == name) return i;
  return npos;
}

}  // namespace idforge::server
