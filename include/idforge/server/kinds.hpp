// KindRegistry: the ID kinds GET /v1/ids/{kind} can issue, as data. A kind is a name and a
// function that writes N IDs; the router never names a kind, so a new one plugs in with
// one add() call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "idforge/server/readiness.hpp"

namespace idforge::server {

/// Where a kind writes a batch. 64-bit kinds append to numbers (the service adds the
/// decimal string for JavaScript). Text kinds whose texts all have one width (UUID, ULID)
/// write them back to back into packed, with one batch call and no string per ID
/// (set packed_width); other text kinds append to texts. A batch uses one of the three.
struct IdBatch {
  std::vector<std::uint64_t> numbers;
  std::vector<std::string> texts;
  std::string packed;
  std::size_t packed_width = 0;

  /// How many texts the batch holds (packed or not).
  std::size_t text_count() const noexcept {
    return packed_width != 0 ? packed.size() / packed_width : texts.size();
  }
  /// Text i (packed or not).
  std::string_view text(std::size_t i) const noexcept {
    return packed_width != 0 ? std::string_view(packed).substr(i * packed_width, packed_width)
                             : std::string_view(texts[i]);
  }
  void clear() noexcept {
    numbers.clear();
    texts.clear();
    packed.clear();
    packed_width = 0;
  }
};

/// One kind of ID.
struct Kind {
  std::string name;         ///< path segment: /v1/ids/<name>
  std::string description;  ///< shown on the index page
  /// Appends exactly count IDs to out, or throws (idforge::Error) having issued none it
  /// reports. Called from many threads at once.
  std::function<void(std::size_t count, IdBatch& out)> generate;
  /// Set when the kind needs a held node ID: while it is not ready the service answers 503.
  std::shared_ptr<Readiness> needs;
};

/// Name -> Kind. Fill before the server starts; read-only while it serves.
class KindRegistry {
 public:
  /// Adds a kind; throws Error(errc::invalid_argument) on a duplicate or empty name.
  void add(Kind kind);
  /// The kind called name, or nullptr.
  const Kind* find(std::string_view name) const noexcept;
  /// Position of a kind in kinds() (for per-kind counters), or npos.
  std::size_t index_of(std::string_view name) const noexcept;
  /// All kinds, in the order added.
  const std::vector<Kind>& kinds() const noexcept { return kinds_; }
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  std::vector<Kind> kinds_;
};

}  // namespace idforge::server
