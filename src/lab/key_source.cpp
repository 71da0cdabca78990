#include "idforge/lab/key_source.hpp"

#include <string>

#include "idforge/clock.hpp"
#include "idforge/error.hpp"
#include "idforge/snowflake_generator.hpp"
#include "idforge/snowflake_layout.hpp"
#include "lab_random.hpp"

namespace idforge::lab {
namespace {

// Distinct streams per kind, so uuid7 and uuid4 with the same seed do not share bits.
std::uint64_t stream_seed(std::uint64_t seed, KeyKind kind) noexcept {
  return seed * 0x9e3779b97f4a7c15ULL + static_cast<std::uint64_t>(kind) + 1;
}

// Counts keys and moves the model's millisecond on every keys_per_ms keys.
class MsTicker {
 public:
  MsTicker(std::int64_t start_ms, std::uint32_t per_ms) : ms_(start_ms), per_ms_(per_ms) {}
  /// True when this key starts a new millisecond (the first key does too).
  bool tick() noexcept {
    if (left_ == 0) {
      if (started_) ++ms_;
      started_ = true;
      left_ = per_ms_;
    }
    --left_;
    return left_ + 1 == per_ms_;
  }
  std::uint64_t ms() const noexcept { return static_cast<std::uint64_t>(ms_); }

 private:
  std::int64_t ms_;
  std::uint32_t per_ms_;
  std::uint32_t left_ = 0;
  bool started_ = false;
};

class SnowflakeSource final : public KeySource {
 public:
  explicit SnowflakeSource(const KeySourceOptions& o)
      : clock_(o.start_unix_ms * 1'000'000),
        gen_(presets::twitter(), o.snowflake_node, clock_),
        per_ms_(o.keys_per_ms) {}
  Key128 next() override {
    if (issued_ > 0 && issued_ % per_ms_ == 0) clock_.advance_ms(1);
    ++issued_;
    return {gen_.next().value(), 0};
  }
  KeyKind kind() const noexcept override { return KeyKind::snowflake; }

 private:
  ManualClock clock_;
  SharedSnowflakeGenerator gen_;
  std::uint32_t per_ms_;
  std::uint64_t issued_ = 0;
};

// v7-shaped: ms(48) | ver 7 (4) | rand_a (12) || variant 10 (2) | rand_b (62).
class Uuid7Model final : public KeySource {
 public:
  explicit Uuid7Model(const KeySourceOptions& o)
      : rng_(stream_seed(o.seed, KeyKind::uuid7)), ticker_(o.start_unix_ms, o.keys_per_ms) {}
  Key128 next() override {
    if (ticker_.tick()) {
      rand_a_ = rng_() & 0xfff;
      rand_b_ = rng_() & kMask62;
    } else if (++rand_b_ > kMask62) {  // carry into rand_a; never wraps in practice
      rand_b_ = 0;
      rand_a_ = (rand_a_ + 1) & 0xfff;
    }
    return {(ticker_.ms() << 16) | 0x7000 | rand_a_, (std::uint64_t{2} << 62) | rand_b_};
  }
  KeyKind kind() const noexcept override { return KeyKind::uuid7; }

 private:
  static constexpr std::uint64_t kMask62 = (std::uint64_t{1} << 62) - 1;
  detail::Xoshiro256 rng_;
  MsTicker ticker_;
  std::uint64_t rand_a_ = 0, rand_b_ = 0;
};

// ULID-shaped: ms(48) | random(80), the random part +1 within a millisecond.
class UlidModel final : public KeySource {
 public:
  explicit UlidModel(const KeySourceOptions& o)
      : rng_(stream_seed(o.seed, KeyKind::ulid)), ticker_(o.start_unix_ms, o.keys_per_ms) {}
  Key128 next() override {
    if (ticker_.tick()) {
      rand_hi_ = rng_() & 0xffff;
      rand_lo_ = rng_();
    } else if (++rand_lo_ == 0) {
      rand_hi_ = (rand_hi_ + 1) & 0xffff;
    }
    return {(ticker_.ms() << 16) | rand_hi_, rand_lo_};
  }
  KeyKind kind() const noexcept override { return KeyKind::ulid; }

 private:
  detail::Xoshiro256 rng_;
  MsTicker ticker_;
  std::uint64_t rand_hi_ = 0, rand_lo_ = 0;
};

// v4-shaped: 122 random bits, version 4, variant 10. The text kind sorts the same way.
class Uuid4Model final : public KeySource {
 public:
  Uuid4Model(const KeySourceOptions& o, KeyKind kind)
      : rng_(stream_seed(o.seed, kind)), kind_(kind) {}
  Key128 next() override {
    const std::uint64_t a = rng_(), b = rng_();
    return {(a & ~std::uint64_t{0xf000}) | 0x4000, (b >> 2) | (std::uint64_t{2} << 62)};
  }
  void fill(std::span<Key128> out) override {
    for (Key128& k : out) k = Uuid4Model::next();
  }
  KeyKind kind() const noexcept override { return kind_; }

 private:
  detail::Xoshiro256 rng_;
  KeyKind kind_;
};

}  // namespace

std::unique_ptr<KeySource> make_model_key_source(KeyKind kind, const KeySourceOptions& options) {
  if (options.keys_per_ms == 0)
    throw Error(errc::invalid_argument, "keys per millisecond is 0: must be at least 1");
  switch (kind) {
    case KeyKind::snowflake:
      return std::make_unique<SnowflakeSource>(options);
    case KeyKind::uuid7:
      return std::make_unique<Uuid7Model>(options);
    case KeyKind::ulid:
      return std::make_unique<UlidModel>(options);
    case KeyKind::uuid4:
    case KeyKind::uuid4_text:
      return std::make_unique<Uuid4Model>(options, kind);
  }
  throw Error(errc::invalid_argument, "unknown key kind " + std::to_string(static_cast<int>(kind)));
}

}  // namespace idforge::lab
