// inspect for the relatives of UUID and ULID: TypeID and KSUID.
#include <cstdio>
#include <string>

#include "idforge/inspect.hpp"
#include "idforge/ksuid.hpp"
#include "idforge/time_format.hpp"
#include "idforge/typeid.hpp"

namespace idforge {

Inspection inspect_typeid(std::string_view input) {
  const TypeId t = TypeId::parse(input);
  // A TypeID is a UUID with a type: what the UUID carries (version, time) is what it carries.
  Inspection u = inspect_uuid(t.uuid().to_string());
  Inspection out;
  out.kind = "typeid";
  out.input = std::string(input);
  out.canonical = t.to_string();
  out.unix_ms = u.unix_ms;
  out.fields.push_back({"prefix", std::string(t.prefix()), std::nullopt});
  out.fields.push_back({"uuid", t.uuid().to_string(), std::nullopt});
  for (auto& f : u.fields)
    if (f.name != "urn") out.fields.push_back(std::move(f));
  return out;
}

Inspection inspect_ksuid(std::string_view input) {
  const Ksuid k = Ksuid::parse(input);
  Inspection out;
  out.kind = "ksuid";
  out.input = std::string(input);
  out.canonical = k.to_string();
  const std::int64_t unix_ms = k.unix_seconds() * 1000;
  out.unix_ms = unix_ms;
  out.fields.push_back({"time", format_iso8601_ms(unix_ms), std::nullopt});
  out.fields.push_back({"unix_ms", std::to_string(unix_ms), static_cast<std::uint64_t>(unix_ms)});
  out.fields.push_back({"timestamp", std::to_string(k.timestamp()), k.timestamp()});
  std::string payload, raw;
  char buf[3];
  for (std::size_t i = 0; i < k.bytes().size(); ++i) {
    std::snprintf(buf, sizeof buf, "%02x", k.bytes()[i]);
    raw += buf;
    if (i >= 4) payload += buf;
  }
  out.fields.push_back({"payload", "0x" + payload, std::nullopt});
  out.fields.push_back({"raw", raw, std::nullopt});
  return out;
}

}  // namespace idforge
