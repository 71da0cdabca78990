// Key sources backed by core's production generators on the system clock.
#include "idforge/clock.hpp"
#include "idforge/lab/key_source.hpp"
#include "idforge/snowflake_generator.hpp"
#include "idforge/ulid.hpp"
#include "idforge/ulid_generator.hpp"
#include "idforge/uuid.hpp"
#include "idforge/uuid_generator.hpp"

namespace idforge::lab {
namespace {

class RealSource final : public KeySource {
 public:
  RealSource(KeyKind kind, std::uint64_t node)
      : kind_(kind), snowflake_(presets::twitter(), node, SystemClock::instance()) {}
  Key128 next() override {
    switch (kind_) {
      case KeyKind::snowflake:
        return {snowflake_.next().value(), 0};
      case KeyKind::uuid7: {
        const Uuid u = v7_.next();
        return {u.high(), u.low()};
      }
      case KeyKind::ulid: {
        const Uuid u(ulid_.next().bytes());  // same 16 bytes, same order
        return {u.high(), u.low()};
      }
      case KeyKind::uuid4:
      case KeyKind::uuid4_text: {
        const Uuid u = new_uuid_v4();
        return {u.high(), u.low()};
      }
    }
    return {};
  }
  KeyKind kind() const noexcept override { return kind_; }

 private:
  KeyKind kind_;
  SharedSnowflakeGenerator snowflake_;
  UuidV7Generator v7_;
  UlidGenerator ulid_;
};

}  // namespace

std::unique_ptr<KeySource> make_real_key_source(KeyKind kind, const KeySourceOptions& options) {
  return std::make_unique<RealSource>(kind, options.snowflake_node);
}

}  // namespace idforge::lab
