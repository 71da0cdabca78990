// `idforge gen token`: random tokens for secrets (reset links, API keys), never time-based IDs.
#include <fmt/core.h>

#include <limits>
#include <memory>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/token.hpp"
#include "option_checks.hpp"
#include "output.hpp"

namespace idforge::cli {
namespace {

struct TokenArgs {
  std::uint64_t count = 1;
  unsigned bits = 256;
  std::string encoding = "base62";
};

void run_token(const TokenArgs& a) {
  TokenOptions o;
  o.bits = a.bits;
  o.encoding = parse_token_encoding(a.encoding);
  std::string out;
  for (std::uint64_t i = 0; i < a.count; ++i) out += random_token(o) + "\n";
  print_out("{}", out);
}

}  // namespace

void add_gen_token(CLI::App& gen) {
  auto a = std::make_shared<TokenArgs>();
  CLI::App* cmd = gen.add_subcommand(
      "token",
      "Random tokens for secrets (reset links, API keys): CSPRNG bits only, no time inside");
  cmd->add_option("-n,--count", a->count, "How many tokens")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1'000'000}));
  cmd->add_option("--bits", a->bits,
                  "Random bits in each token (128..4096), rounded up: to whole characters "
                  "(base62, 5.95 bits each) or whole bytes (base64url)")
      // Decimal digits only; the range and its reason come from random_token (128..4096),
      // for any count that fits; a larger one is named with the same rule.
      ->transform(
          whole_number(0, std::numeric_limits<unsigned>::max(), "128 to 4096").description(""))
      ->capture_default_str();
  cmd->add_option("--encoding", a->encoding,
                  "base62 (0-9A-Za-z) or base64url (RFC 4648, no padding)")
      ->capture_default_str();
  cmd->callback([a] { run_token(*a); });
}

}  // namespace idforge::cli
