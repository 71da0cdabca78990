// Embedding idforge: one generator per process, IDs with no network call.
#include <idforge/snowflake_generator.hpp>
#include <idforge/time_format.hpp>
#include <idforge/uuid_generator.hpp>

#include <iostream>

int main() {
  idforge::SharedSnowflakeGenerator gen(idforge::presets::twitter(), /*node=*/42);
  const idforge::Snowflake id = gen.next();
  const idforge::SnowflakeParts p = idforge::decompose(gen.layout(), id);
  std::cout << id.value() << " at " << idforge::format_iso8601_ms(p.unix_ms) << " node " << p.node
            << " sequence " << p.sequence << "\n";
  // UUIDv7 draws on the CSPRNG, so this line also proves libsodium reaches the link.
  idforge::UuidV7Generator v7;
  std::cout << "uuid7 " << v7.next().to_string() << "\n";
}
