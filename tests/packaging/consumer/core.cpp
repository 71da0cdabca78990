// idforge::core alone: a Snowflake and a UUIDv7 (the CSPRNG: libsodium reaches the link).
#include <idforge/snowflake_generator.hpp>
#include <idforge/uuid_generator.hpp>

#include <iostream>

int main() {
  idforge::SharedSnowflakeGenerator gen(idforge::presets::twitter(), /*node=*/42);
  const auto parts = idforge::decompose(gen.layout(), gen.next());
  idforge::UuidV7Generator v7;
  std::cout << "core: node " << parts.node << ", uuid7 " << v7.next().to_string() << "\n";
}
