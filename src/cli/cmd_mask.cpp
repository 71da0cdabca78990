// `idforge mask VALUE...` and `idforge unmask ID...`: public IDs from internal keys and
// back, with the keys of a keyring (idforge/mask_keyring.hpp) read from --key-file or the
// environment, never from the command line. The rules live in idforge/mask.hpp and
// idforge/public_id.hpp; this file parses options and prints.
#include <fmt/core.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/error.hpp"
#include "idforge/mask_keyring.hpp"
#include "idforge/public_id.hpp"
#include "option_checks.hpp"
#include "secrets.hpp"

namespace idforge::cli {
namespace {

struct MaskArgs {
  std::vector<std::string> values;
  std::string mode = "auto";
  std::string form = "public";
  std::string alphabet = "base58";
  std::string key_file;
  int key_id = -1;
  bool json = false;
  int new_key = -1;
  std::string out;  // --new-key --out FILE
};

// The keyring: --key-file (never empty: its check refuses ""), else the file
// IDFORGE_MASK_KEY_FILE names, else the entries in IDFORGE_MASK_KEYS. A path that is a key
// pasted in its place is refused without being shown; a file others can read is used, with
// a warning.
MaskKeyring load_keys(const MaskArgs& a) {
  if (!a.key_file.empty()) {
    warn_if_readable_by_others(a.key_file);
    return MaskKeyring::load_file(a.key_file);
  }
  if (const char* file = std::getenv(kMaskKeyFileEnv); file && *file) {
    check_key_file(file, kMaskKeyFileEnv);
    return MaskKeyring::load_file(file);
  }
  if (const char* keys = std::getenv(kMaskKeysEnv); !keys || !*keys)
    throw CommandFailure{fmt::format(
        "no mask key: give --key-file PATH, or set {} to a keyring file or {} to ID:SECRET entries "
        "(make a keyring with `idforge mask --new-key ID --out FILE`)",
        kMaskKeyFileEnv, kMaskKeysEnv)};
  return MaskKeyring::from_environment();
}

// A --key-file value: a path, not empty (which would quietly fall back to the environment)
// and not a key put where the path belongs (which must not be echoed).
CLI::Validator key_file_path() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        if (v.empty())
          return fmt::format(
              "is empty; give a keyring file's path, or leave --key-file out to use {} or {}",
              kMaskKeyFileEnv, kMaskKeysEnv);
        return key_file_problem(v);
      },
      "PATH", "key_file_path");
}

// The arguments after the options: "--" ends the options, so a value starting with '-' can
// be given; none at all is left to the caller to judge.
std::vector<std::string> values_of(CLI::App* cmd) {
  try {
    return ids_as_written(cmd);
  } catch (const CLI::RequiredError&) {
    return {};
  }
}

std::optional<MaskMode> mode_option(const std::string& mode) {
  if (mode == "auto") return std::nullopt;
  return parse_mask_mode(mode);
}

bool raw_form(const std::string& form) {
  return form == "raw";
}

// The key of --key-id, else the primary.
const MaskKey& chosen_key(const MaskKeyring& ring, int key_id) {
  return key_id < 0 ? ring.primary() : ring.at(static_cast<unsigned>(key_id));
}

// Runs one line per input; a failing input prints its error and the others go on. One input
// that fails ends with its own message, several with a count.
template <typename Line>
void for_each_input(const std::vector<std::string>& inputs, Line line, const char* verb) {
  int failures = 0;
  std::string last_error;
  for (const auto& text : inputs) {
    try {
      fmt::print("{}\n", line(text));
    } catch (const Error& e) {
      ++failures;
      last_error = e.what();
      if (inputs.size() > 1) {
        std::fflush(stdout);
        fmt::print(stderr, "idforge: {}\n", e.what());
      }
    }
  }
  if (failures == 1 && inputs.size() == 1) throw CommandFailure{last_error};
  if (failures > 0)
    throw CommandFailure{fmt::format("{} of {} IDs did not {}", failures, inputs.size(), verb)};
}

void run_mask(const MaskArgs& a) {
  if (a.new_key >= 0) {
    if (!a.values.empty()) throw CommandFailure{"--new-key makes a key; it takes no values", 2};
    const std::string line = new_mask_key_line(static_cast<unsigned>(a.new_key)) + "\n";
    if (!a.out.empty()) {
      write_new_private_file(a.out, line);
      return;
    }
    // `> mask.keys` makes the file with the shell's umask (0644 as a rule): say so, since
    // the redirect is out of this program's hands.
    warn_if_stdout_readable_by_others(
        "make the keyring with `idforge mask --new-key ID --out FILE` (created 0600)");
    fmt::print("{}", line);
    return;
  }
  if (!a.out.empty()) throw CommandFailure{"--out writes a new key; it needs --new-key ID", 2};
  if (a.values.empty()) throw CommandFailure{"mask needs at least one value (or --new-key ID)", 2};
  const std::optional<MaskMode> mode = mode_option(a.mode);
  const bool raw = raw_form(a.form);
  const PublicAlphabet alphabet = parse_public_alphabet(a.alphabet);
  const MaskKeyring ring = load_keys(a);
  const MaskKey& key = chosen_key(ring, a.key_id);
  for_each_input(
      a.values,
      [&](const std::string& text) -> std::string {
        const MaskInput in = parse_mask_input(text, mode);
        MaskValue masked;
        if (const MaskFault f = key.mask(in.mode, in.value, masked); f != MaskFault::ok)
          throw Error(to_errc(f), "cannot mask '" + text + "': " + to_string(f));
        const std::string masked_text = format_mask_value(in.mode, masked);
        const std::string public_id = to_public_id(key, in.mode, in.value, alphabet);
        if (!a.json) return raw ? masked_text : public_id;
        nlohmann::json j = {{"input", text},
                            {"mode", to_string(in.mode)},
                            {"key_id", key.id()},
                            {"public_id", public_id},
                            {"masked_str", masked_text}};
        if (in.mode == MaskMode::u63)
          j["masked"] = masked.low;
        else
          j["masked"] = masked_text;
        return j.dump();
      },
      "mask");
}

void run_unmask(const MaskArgs& a) {
  const std::optional<MaskMode> mode = mode_option(a.mode);
  const bool raw = raw_form(a.form);
  const PublicAlphabet alphabet = parse_public_alphabet(a.alphabet);
  const MaskKeyring ring = load_keys(a);
  for_each_input(
      a.values,
      [&](const std::string& text) -> std::string {
        MaskMode m;
        unsigned key_id;
        MaskValue value;
        // A UUID is never a public ID (a hyphen or its length rules it out): read it raw.
        if (raw || Uuid::try_parse(text)) {
          const MaskInput in = parse_masked_input(text, mode);
          const MaskKey& key = chosen_key(ring, a.key_id);
          if (const MaskFault f = key.unmask(in.mode, in.value, value); f != MaskFault::ok)
            throw Error(to_errc(f), "cannot unmask '" + text + "': " + to_string(f));
          m = in.mode;
          key_id = key.id();
        } else {
          const PublicIdInfo info = parse_public_id(ring, text, alphabet);
          if (mode && *mode != info.mode)
            throw Error(errc::invalid_argument,
                        fmt::format("public ID '{}' is of mode {}, not {} (--mode)", text,
                                    to_string(info.mode), to_string(*mode)));
          if (a.key_id >= 0 && static_cast<unsigned>(a.key_id) != info.key_id)
            throw Error(errc::key_error,
                        fmt::format("public ID '{}' was made with mask key {}, not {} (--key-id)",
                                    text, info.key_id, a.key_id));
          m = info.mode;
          key_id = info.key_id;
          value = info.value;
        }
        const std::string value_text = format_mask_value(m, value);
        if (!a.json) return value_text;
        nlohmann::json j = {
            {"input", text}, {"mode", to_string(m)}, {"key_id", key_id}, {"id_str", value_text}};
        if (m == MaskMode::u63)
          j["id"] = value.low;
        else
          j["id"] = value_text;
        return j.dump();
      },
      "unmask");
}

void add_common_options(CLI::App* cmd, MaskArgs& a) {
  cmd->add_option("--mode", a.mode,
                  "auto, u63 (BIGINT), u128 (any UUID's bits) or v7 (UUIDv7 <-> v4-shaped)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "u63", "u128", "v7"}));
  cmd->add_option("--form", a.form,
                  "public (short text with key ID and checks) or raw (masked number or UUID)")
      ->capture_default_str()
      ->check(CLI::IsMember({"public", "raw"}));
  cmd->add_option("--alphabet", a.alphabet, "public form: base58 or base62")
      ->capture_default_str()
      ->check(CLI::IsMember({"base58", "base62"}));
  cmd->add_option("--key-file", a.key_file,
                  "Keyring file of ID:SECRET lines, mode 0600 (default: the file "
                  "$IDFORGE_MASK_KEY_FILE, else the entries in $IDFORGE_MASK_KEYS)")
      ->check(key_file_path());
  // Decimal digits only: CLI11 alone would read 0x1 as 1 and 010 as 8.
  cmd->add_option("--key-id", a.key_id,
                  "Use this key of the keyring (default: the first, the primary)")
      ->transform(whole_number(0, MaskKey::kMaxId));
  cmd->add_flag("--json", a.json, "One JSON object per ID");
}

}  // namespace

void add_mask_commands(CLI::App& app) {
  auto margs = std::make_shared<MaskArgs>();
  CLI::App* mask = app.add_subcommand("mask",
                                      "Public IDs that leak nothing: mask integers (u63), UUIDs "
                                      "(u128) and UUIDv7s (as v4) with a key");
  take_ids_as_written(mask, "values to mask: decimal integers 1..2^63-1 or UUIDs");
  add_common_options(mask, *margs);
  mask->add_option("--new-key", margs->new_key,
                   "Print a fresh keyring line ID:SECRET for key ID and exit")
      ->transform(whole_number(0, MaskKey::kMaxId));
  mask->add_option("--out", margs->out,
                   "With --new-key: write the line to FILE, a new file created 0600 (an existing "
                   "one is refused); the way to make a keyring")
      ->type_name("FILE")
      ->check(CLI::Validator(
          [](std::string& v) {
            return v.empty() ? std::string("is empty; give the new keyring file's path")
                             : std::string();
          },
          "FILE", "new_file_path"));
  mask->callback([margs, mask] {
    margs->values = values_of(mask);
    run_mask(*margs);
  });

  auto uargs = std::make_shared<MaskArgs>();
  CLI::App* unmask =
      app.add_subcommand("unmask", "Public IDs (or raw masked values) back to the internal keys");
  take_ids_as_written(unmask, "public IDs, or with --form raw masked numbers; masked UUIDs");
  add_common_options(unmask, *uargs);
  unmask->callback([uargs, unmask] {
    uargs->values = ids_as_written(unmask);
    run_unmask(*uargs);
  });
}

}  // namespace idforge::cli
