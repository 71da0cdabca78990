// `idforge gen typeid|ksuid`: print TypeIDs and KSUIDs, one a line.
//   text  the ID's own text: prefix_ + 26 base32 for TypeID, 27 base62 for KSUID
//   hex   lowercase hex of the bits: the UUID's 32 digits for TypeID, 40 for KSUID's 20 bytes
//   json  {"id":"<text>","hex":"<hex>","unix_ms":<time>} (KSUID time is whole seconds)
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/ksuid.hpp"
#include "idforge/typeid.hpp"
#include "option_checks.hpp"
#include "output.hpp"

namespace idforge::cli {
namespace {

struct GenArgs {
  std::uint64_t count = 1;
  std::string format = "text";
  std::string prefix;
};

// Lines gathered before one write.
constexpr std::uint64_t kChunk = 4096;

void append(std::string& out, std::string_view text, std::string_view hex,
            const std::string& format, std::int64_t unix_ms) {
  if (format == "text")
    out += text;
  else if (format == "hex")
    out += hex;
  else
    out += fmt::format(R"({{"id":"{}","hex":"{}","unix_ms":{}}})", text, hex, unix_ms);
  out += '\n';
}

template <typename MakeLine>
void emit(std::uint64_t count, MakeLine make_line) {
  std::string out;
  for (std::uint64_t i = 0; i < count; ++i) {
    make_line(out);
    if ((i + 1) % kChunk == 0 || i + 1 == count) {
      write_out(out);
      out.clear();
    }
  }
}

void run_typeid(const GenArgs& a) {
  TypeIdGenerator gen(a.prefix);  // checks the prefix before anything is printed
  emit(a.count, [&](std::string& out) {
    const TypeId t = gen.next();
    char text[TypeId::kMaxTextSize];
    char hex[Uuid::kHexSize];
    t.uuid().to_hex_chars(hex);
    append(out, {text, static_cast<std::size_t>(t.to_chars(text) - text)}, {hex, sizeof hex},
           a.format, static_cast<std::int64_t>(t.uuid().high() >> 16));
  });
}

void run_ksuid(const GenArgs& a) {
  emit(a.count, [&](std::string& out) {
    const Ksuid k = new_ksuid();
    char text[Ksuid::kTextSize];
    k.to_chars(text);
    std::string hex;
    for (auto b : k.bytes()) hex += fmt::format("{:02x}", b);
    append(out, {text, sizeof text}, hex, a.format, k.unix_seconds() * 1000);
  });
}

CLI::App* add(CLI::App& gen, const char* name, const char* help, std::shared_ptr<GenArgs> args) {
  CLI::App* cmd = gen.add_subcommand(name, help);
  cmd->add_option("-n,--count", args->count, "How many IDs")->transform(whole_number(1, kMaxCount));
  cmd->add_option("--format", args->format, "text, hex or json")
      ->check(CLI::IsMember({"text", "hex", "json"}))
      ->capture_default_str();
  return cmd;
}

}  // namespace

void add_gen_relatives(CLI::App& gen) {
  auto t = std::make_shared<GenArgs>();
  CLI::App* cmd = add(gen, "typeid", "TypeID: prefix_ + UUIDv7 in base32 (strictly increasing)", t);
  cmd->add_option("--prefix", t->prefix,
                  "Type prefix: up to 63 of a-z and '_', not at either end (empty: none)");
  cmd->callback([t] { run_typeid(*t); });
  auto k = std::make_shared<GenArgs>();
  add(gen, "ksuid", "KSUID: 32-bit seconds since 2014-05-13 + 128 random bits, base62", k)
      ->callback([k] { run_ksuid(*k); });
}

}  // namespace idforge::cli
