// Sharp edges of the CLI, each as a user meets it: a key pasted where its file's path belongs,
// secrets on the command line or in files others can read, a layout key given twice, numbers
// that are not decimal, an empty path, a huge name, every ticket server down, and "--".
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "one_line_error.hpp"
#include "process.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

namespace idforge {
namespace {

namespace fs = std::filesystem;

using test::expect_one_line_error;
using test::run_idforge;
using test::ScratchDir;

// Neither key variable from the environment the tests run in reaches the binary.
const std::vector<std::string> kNoEnvKeys = {"IDFORGE_MASK_KEYS=", "IDFORGE_MASK_KEY_FILE="};

// A fresh keyring line "ID:<64 hex>", as `idforge mask --new-key ID` prints it to a pipe.
std::string new_key_line(int id) {
  const auto r = run_idforge({"mask", "--new-key", std::to_string(id)}, kNoEnvKeys);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.lines().empty() ? std::string() : r.lines()[0];
}

// A keyring file made as the messages advise: `mask --new-key ID --out FILE` (mode 0600).
std::string new_keyring(const ScratchDir& dir, const std::string& name, int id) {
  const std::string path = dir / name;
  const auto r = run_idforge({"mask", "--new-key", std::to_string(id), "--out", path}, kNoEnvKeys);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return path;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::perms mode_of(const std::string& path) {
  return fs::status(path).permissions() & fs::perms::mask;
}

constexpr fs::perms k0600 = fs::perms::owner_read | fs::perms::owner_write;
constexpr fs::perms k0644 = k0600 | fs::perms::group_read | fs::perms::others_read;

// A key pasted where the path of its file belongs (an option, or the variable that names the
// file) is refused as a key, and the message never shows it: a "file not found: <secret>"
// would print the secret to the terminal, logs and CI output.
TEST(CliSharpEdges, AKeyWhereAKeyFilePathBelongsIsRefusedWithoutShowingIt) {
  const std::string line = new_key_line(1);
  ASSERT_EQ(line.size(), 2u + 64u);
  const std::string hex = line.substr(2);
  constexpr const char* kLooksLikeAKey = "the value looks like a key, not a file path (not shown)";
  struct Case {
    std::vector<std::string> args, env;
    int exit_code;
  };
  const Case cases[] = {
      {{"mask", "5", "--key-file", hex}, kNoEnvKeys, 2},
      {{"mask", "5", "--key-file", line}, kNoEnvKeys, 2},
      {{"mask", "5", "--key-file=" + hex}, kNoEnvKeys, 2},
      {{"unmask", "9YRPzzuWiMSE7HJB", "--key-file", hex}, kNoEnvKeys, 2},
      {{"mask", "5"}, {"IDFORGE_MASK_KEYS=", "IDFORGE_MASK_KEY_FILE=" + hex}, 1},
      {{"mask", "5"}, {"IDFORGE_MASK_KEYS=", "IDFORGE_MASK_KEY_FILE=" + line}, 1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.args) + " " + c.env.back().substr(0, 22));
    const auto r = run_idforge(c.args, c.env);
    expect_one_line_error(r, c.exit_code, kLooksLikeAKey);
    EXPECT_NE(r.err.find("--new-key ID --out FILE"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    // Not the secret, nor any long piece of it.
    EXPECT_EQ(r.err.find(hex.substr(0, 16)), std::string::npos) << "secret echoed";
    EXPECT_EQ(r.err.find(hex.substr(40, 16)), std::string::npos) << "secret echoed";
  }
  const auto env =
      run_idforge({"mask", "5"}, {"IDFORGE_MASK_KEYS=", "IDFORGE_MASK_KEY_FILE=" + hex});
  EXPECT_TRUE(env.err.starts_with("idforge: IDFORGE_MASK_KEY_FILE: ")) << env.err;

  // A file whose name is hex (a hash-named file) is a file, and is read.
  ScratchDir dir;
  const std::string hex_named = new_keyring(dir, hex, 1);
  const auto file = run_idforge({"mask", "5", "--key-file", hex_named}, kNoEnvKeys);
  EXPECT_EQ(file.exit_code, 0) << file.err;
  EXPECT_EQ(file.lines().size(), 1u) << file.out;
}

#ifdef IDFORGE_TEST_HAVE_SERVER
// --token is a secret in `ps` and shell history. The warning comes before the other settings
// are judged, so a bad layout ends the run here and no server is left listening.
TEST(CliSharpEdges, ServeWarnsThatATokenOnTheCommandLineIsSeenByOthers) {
  ScratchDir dir;
  const std::string token = "s3cret-token-value";
  const std::vector<std::string> rest = {"--bind", "127.0.0.1",         "--port",   "0",
                                         "--data", dir.path().string(), "--layout", "nonsense"};
  constexpr const char* kWarning =
      "idforge: warning: --token on the command line can be read by other users of this machine "
      "(ps, /proc/PID/cmdline, shell history); set IDFORGE_TOKEN or token= in the --config file "
      "instead\n";
  constexpr const char* kLayout = "invalid layout spec 'nonsense'";
  for (const std::vector<std::string>& given :
       {std::vector<std::string>{"--token", token}, std::vector<std::string>{"--token=" + token}}) {
    SCOPED_TRACE(given.back());
    std::vector<std::string> args{"serve"};
    args.insert(args.end(), given.begin(), given.end());
    args.insert(args.end(), rest.begin(), rest.end());
    // (Not "IDFORGE_TOKEN=": serve refuses an empty token setting.)
    const auto r = run_idforge(args, {}, test::StdoutTo::pipe, std::chrono::seconds(20));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_TRUE(r.err.starts_with(kWarning)) << r.err;
    EXPECT_NE(r.err.find(kLayout), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find(token), std::string::npos) << "token echoed: " << r.err;
  }
  // From the environment, no warning.
  std::vector<std::string> args{"serve"};
  args.insert(args.end(), rest.begin(), rest.end());
  const auto env =
      run_idforge(args, {"IDFORGE_TOKEN=" + token}, test::StdoutTo::pipe, std::chrono::seconds(20));
  expect_one_line_error(env, 1, kLayout);
  EXPECT_EQ(env.err.find("warning"), std::string::npos) << env.err;
}
#endif

// A keyring the group or others can read is still used (refusing would break a running
// setup), with one warning line naming the file and the fix.
TEST(CliSharpEdges, AKeyringOthersCanReadIsUsedWithAChmodWarning) {
  ScratchDir dir;
  const std::string keys = new_keyring(dir, "mask.keys", 1);
  ASSERT_EQ(mode_of(keys), k0600);
  const auto quiet = run_idforge({"mask", "5", "--key-file", keys}, kNoEnvKeys);
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");

  fs::permissions(keys, k0644, fs::perm_options::replace);
  const std::string warning = "idforge: warning: mask key file '" + keys +
                              "' can be read by group or others (mode 0644): run `chmod 600 '" +
                              keys + "'`\n";
  const auto opt = run_idforge({"mask", "5", "--key-file", keys}, kNoEnvKeys);
  EXPECT_EQ(opt.exit_code, 0) << opt.err;
  EXPECT_EQ(opt.err, warning);
  EXPECT_EQ(opt.out, quiet.out);
  const auto env =
      run_idforge({"mask", "5"}, {"IDFORGE_MASK_KEYS=", "IDFORGE_MASK_KEY_FILE=" + keys});
  EXPECT_EQ(env.exit_code, 0) << env.err;
  EXPECT_EQ(env.err, warning);
  EXPECT_EQ(env.out, quiet.out);

  fs::permissions(keys, k0600 | fs::perms::group_read, fs::perm_options::replace);
  const auto group = run_idforge({"mask", "5", "--key-file", keys}, kNoEnvKeys);
  EXPECT_EQ(group.exit_code, 0) << group.err;
  EXPECT_NE(group.err.find("(mode 0640)"), std::string::npos) << group.err;
}

// --new-key --out FILE makes a keyring as it should be made: a new file, mode 0600 from the
// start, never one that exists. A shell redirect makes it 0644 as a rule; that gets a warning.
TEST(CliSharpEdges, NewKeyOutMakesAPrivateNewFileAndARedirectIsWarnedOf) {
  ScratchDir dir;
  const std::string keys = dir / "mask.keys";
  const auto made = run_idforge({"mask", "--new-key", "1", "--out", keys}, kNoEnvKeys);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  EXPECT_EQ(made.out, "");
  EXPECT_EQ(made.err, "");
  EXPECT_EQ(mode_of(keys), k0600);
  const std::string text = read_text(keys);
  ASSERT_EQ(text.size(), 2u + 64u + 1u) << text;
  EXPECT_TRUE(text.starts_with("1:")) << text;
  EXPECT_EQ(text.find_first_not_of("0123456789abcdef", 2), text.size() - 1) << text;
  EXPECT_EQ(text.back(), '\n');

  // An existing file is refused, and left as it was.
  const auto again = run_idforge({"mask", "--new-key", "2", "--out", keys}, kNoEnvKeys);
  expect_one_line_error(again, 1,
                        "--out '" + keys + "': the file exists; a keyring is never overwritten");
  EXPECT_EQ(read_text(keys), text);

  // --out belongs to --new-key.
  const std::string stray = dir / "stray.keys";
  expect_one_line_error(run_idforge({"mask", "5", "--out", stray}, kNoEnvKeys), 2,
                        "--out writes a new key; it needs --new-key ID");
  EXPECT_FALSE(fs::exists(stray));

  // `idforge mask --new-key 1 > file`, the file made 0644 by the shell: written, and warned of.
  const std::string redirected = dir / "redirected.keys";
  std::ofstream(redirected).close();
  fs::permissions(redirected, k0644, fs::perm_options::replace);
  test::SpawnOptions o;
  o.out = test::Sink::file;
  o.out_file = redirected;
  o.err = test::Sink::pipe;
  o.extra_env = kNoEnvKeys;
  const auto r = test::run({IDFORGE_BINARY, "mask", "--new-key", "1"}, o);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.starts_with("idforge: warning: standard output ('" +
                                fs::canonical(redirected).string() +
                                "') is a file that group or others can read (mode 0644)"))
      << r.err;
  EXPECT_NE(r.err.find("`idforge mask --new-key ID --out FILE` (created 0600)"), std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(read_text(redirected).starts_with("1:"));

  // A redirect to a file only its owner can read is fine.
  fs::permissions(redirected, k0600, fs::perm_options::replace);
  const auto private_file = test::run({IDFORGE_BINARY, "mask", "--new-key", "1"}, o);
  EXPECT_EQ(private_file.exit_code, 0) << private_file.err;
  EXPECT_EQ(private_file.err, "");
}

// A layout key given twice ("time=41,time=40", a paste or a bad merge) is named, not settled
// by the last one silently winning; so are two spellings of one key, and the node given
// whole beside a part of it.
TEST(CliSharpEdges, ALayoutKeyGivenTwiceIsRefusedByName) {
  const std::pair<const char*, const char*> cases[] = {
      {"time=41,time=40", "at position 8: key 'time' is given twice; give it once"},
      {"twitter,time=41,time=40", "at position 16: key 'time' is given twice; give it once"},
      {"time=41,seq=12,sequence=10",
       "at position 15: key 'seq' is given twice (as 'seq' and 'sequence'); give it once"},
      {"datacenter=5,dc=5",
       "key 'datacenter' is given twice (as 'datacenter' and 'dc'); give it once"},
      {"signed,unsigned", "key 'signed' is given twice (as 'signed' and 'unsigned'); give it once"},
      {"node=10,dc=5",
       "at position 8: 'node' and 'dc' both set the node bits; give 'node', or 'dc' and 'worker'"},
      {"dc=5,node=10", "'dc' and 'node' both set the node bits"},
      {"worker=5,node=10", "'worker' and 'node' both set the node bits"},
  };
  for (const auto& [spec, says] : cases) {
    SCOPED_TRACE(spec);
    const std::string named = std::string("invalid layout spec '") + spec + "' ";
    const auto gen = run_idforge({"gen", "snowflake", "--node", "1", "--layout", spec});
    expect_one_line_error(gen, 1, says);
    EXPECT_NE(gen.err.find(named), std::string::npos) << gen.err;
    EXPECT_TRUE(gen.out.empty()) << gen.out;
    expect_one_line_error(run_idforge({"layout", spec}), 1, says);
  }
  // Each key once is still a layout.
  EXPECT_EQ(run_idforge({"layout", "time=41,dc=5,worker=5,seq=12"}).exit_code, 0);
}

// Key IDs are decimal digits: CLI11 alone read 0x1 as 1 and 010 as 8 (octal).
TEST(CliSharpEdges, KeyIdsAreDecimalDigitsOnly) {
  const std::string k8 = new_key_line(8), k10 = new_key_line(10);
  const std::vector<std::string> env = {"IDFORGE_MASK_KEYS=" + k8 + "," + k10,
                                        "IDFORGE_MASK_KEY_FILE="};
  for (const char* bad : {"0x1", "-1", "1e0", " 3"}) {
    SCOPED_TRACE(bad);
    expect_one_line_error(
        run_idforge({"mask", "5", "--key-id", bad}, env), 2,
        "--key-id: '" + std::string(bad) + "' is not a whole number (expected 0 to 57)");
  }
  expect_one_line_error(run_idforge({"mask", "5", "--key-id", "99999999999"}, env), 2,
                        "--key-id: '99999999999' is out of range (expected 0 to 57)");
  expect_one_line_error(run_idforge({"mask", "--new-key", "0x1"}, kNoEnvKeys), 2,
                        "--new-key: '0x1' is not a whole number (expected 0 to 57)");

  // 010 is key 10, not key 8.
  const auto ten = run_idforge({"mask", "5", "--key-id", "10"}, env);
  const auto eight = run_idforge({"mask", "5", "--key-id", "8"}, env);
  const auto leading_zero = run_idforge({"mask", "5", "--key-id", "010"}, env);
  ASSERT_EQ(ten.exit_code, 0) << ten.err;
  ASSERT_EQ(eight.exit_code, 0) << eight.err;
  ASSERT_EQ(leading_zero.exit_code, 0) << leading_zero.err;
  EXPECT_EQ(leading_zero.out, ten.out);
  EXPECT_NE(leading_zero.out, eight.out);
  const auto new_key = run_idforge({"mask", "--new-key", "010"}, kNoEnvKeys);
  ASSERT_EQ(new_key.exit_code, 0) << new_key.err;
  EXPECT_TRUE(new_key.out.starts_with("10:")) << new_key.out;
}

// --key-file "" (an unset shell variable: --key-file "$KEYS") is refused; it used to mean
// "no option", and the keys came from the environment instead, unnoticed.
TEST(CliSharpEdges, AnEmptyKeyFileIsRefusedNotReplacedByTheEnvironment) {
  const std::vector<std::string> env = {"IDFORGE_MASK_KEYS=" + new_key_line(1),
                                        "IDFORGE_MASK_KEY_FILE="};
  ASSERT_EQ(run_idforge({"mask", "5"}, env).exit_code, 0);
  constexpr const char* kEmpty =
      "--key-file: is empty; give a keyring file's path, or leave --key-file out to use "
      "IDFORGE_MASK_KEY_FILE or IDFORGE_MASK_KEYS";
  const auto mask = run_idforge({"mask", "5", "--key-file", ""}, env);
  expect_one_line_error(mask, 2, kEmpty);
  EXPECT_TRUE(mask.out.empty()) << mask.out;
  const auto unmask = run_idforge({"unmask", "9YRPzzuWiMSE7HJB", "--key-file", ""}, env);
  expect_one_line_error(unmask, 2, kEmpty);
  EXPECT_TRUE(unmask.out.empty()) << unmask.out;
  // "--key-file=" is CLI11's "missing value", refused all the same.
  const auto eq = run_idforge({"mask", "5", "--key-file="}, env);
  expect_one_line_error(eq, 2, "--key-file");
  EXPECT_TRUE(eq.out.empty()) << eq.out;
  expect_one_line_error(run_idforge({"mask", "--new-key", "1", "--out", ""}, kNoEnvKeys), 2,
                        "--out: is empty; give the new keyring file's path");
}

#ifdef IDFORGE_TEST_HAVE_TICKET
// A name of 100,000 characters is named by its ends and its length, in a message of at most
// 240 bytes, and refused before the store is opened (so none is created).
TEST(CliSharpEdges, AHugeSequenceNameGetsAShortMessageAndNoStore) {
  constexpr std::size_t kMaxNameMessage = 240;  // src/cli/sequence_names.hpp
  ScratchDir dir;
  const std::string db = dir / "x.db";
  const std::string name(100'000, 'a');
  for (const char* cmd : {"create", "next"}) {
    SCOPED_TRACE(cmd);
    const auto r = run_idforge({"seq", cmd, name, "--store", "sqlite:" + db});
    expect_one_line_error(r, 1, "is invalid: it has 100000 characters (rule: 1-40 characters");
    EXPECT_TRUE(r.err.starts_with("idforge: sequence name 'aaaa")) << r.err.substr(0, 300);
    EXPECT_LE(r.err.size(), std::string("idforge: ").size() + kMaxNameMessage + 1)
        << r.err.substr(0, 300);
    EXPECT_TRUE(r.out.empty());
    EXPECT_FALSE(fs::exists(db));
  }
}

// `ticket status` with every server down printed a report and exited 0, so a script checking
// the exit code took "all down" for healthy. Port 1 on loopback refuses at once.
TEST(CliSharpEdges, TicketStatusFailsWhenNoListedServerAnswers) {
  const std::string a = "postgres://postgres@127.0.0.1:1/postgres";
  const std::string b = "mysql://root@127.0.0.1:1/x";
  const std::pair<std::string, const char*> cases[] = {
      {a, "idforge: the listed server did not answer; the set's state is unknown\n"},
      {a + "," + b, "idforge: none of the 2 listed servers answered; the set's state is unknown\n"},
  };
  for (const auto& [servers, says] : cases) {
    SCOPED_TRACE(servers);
    const auto r = run_idforge({"ticket", "status", "--servers", servers, "--timeout-ms", "1000"},
                               {}, test::StdoutTo::pipe, std::chrono::seconds(30));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(r.err, says);
    // The report still says which server failed and why.
    EXPECT_NE(r.out.find("server 1 " + a + ": unreachable"), std::string::npos) << r.out;
  }
}
#endif

// --bits past 4096 names the rule, 128 to 4096, however large the number: it used to say
// "0 to 1000000" for a count that did not fit, a range wider than the rule.
TEST(CliSharpEdges, TokenBitsTooLargeNameTheRange128To4096) {
  const auto over = run_idforge({"gen", "token", "--bits", "5000"});
  expect_one_line_error(over, 1, "token bits 5000: must be 128..4096");
  EXPECT_TRUE(over.out.empty()) << over.out;
  for (const char* huge : {"99999999999", "4294967296"}) {
    SCOPED_TRACE(huge);
    const auto r = run_idforge({"gen", "token", "--bits", huge});
    expect_one_line_error(
        r, 2, "--bits: '" + std::string(huge) + "' is out of range (expected 128 to 4096)");
    EXPECT_EQ(r.err.find("1000000"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

// "--" ends the options of mask and unmask as of every command; what follows is a value,
// even one that starts with '-'.
TEST(CliSharpEdges, MaskAndUnmaskAcceptDoubleDash) {
  const std::vector<std::string> env = {"IDFORGE_MASK_KEYS=" + new_key_line(1),
                                        "IDFORGE_MASK_KEY_FILE="};
  const auto plain = run_idforge({"mask", "5"}, env);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(plain.lines().size(), 1u);
  const std::string id = plain.lines()[0];

  const auto masked = run_idforge({"mask", "--", "5"}, env);
  EXPECT_EQ(masked.exit_code, 0) << masked.err;
  EXPECT_EQ(masked.out, plain.out);
  const auto both = run_idforge({"mask", "5", "--", "6"}, env);
  EXPECT_EQ(both.exit_code, 0) << both.err;
  EXPECT_EQ(both.lines().size(), 2u) << both.out;
  const auto back = run_idforge({"unmask", "--", id}, env);
  EXPECT_EQ(back.exit_code, 0) << back.err;
  EXPECT_EQ(back.out, "5\n");

  // With the key from a file given before "--".
  ScratchDir dir;
  const std::string keys = new_keyring(dir, "mask.keys", 1);
  const auto from_file = run_idforge({"mask", "--key-file", keys, "--", "5"}, kNoEnvKeys);
  EXPECT_EQ(from_file.exit_code, 0) << from_file.err;
  EXPECT_EQ(from_file.lines().size(), 1u) << from_file.out;
  const auto file_back =
      run_idforge({"unmask", "--key-file", keys, "--", from_file.out.substr(0, 16)}, kNoEnvKeys);
  EXPECT_EQ(file_back.exit_code, 0) << file_back.err;
  EXPECT_EQ(file_back.out, "5\n");

  // After "--", "-5" is a value to judge (exit 1), not an unknown option (exit 2).
  expect_one_line_error(run_idforge({"mask", "--", "-5"}, env), 1, "invalid value to mask '-5'");
  expect_one_line_error(run_idforge({"unmask", "--", "-" + id}, env), 1,
                        "invalid public ID '-" + id + "'");
  // "--" and nothing after it is still no value.
  expect_one_line_error(run_idforge({"mask", "--"}, env), 2,
                        "mask needs at least one value (or --new-key ID)");
  expect_one_line_error(run_idforge({"unmask", "--"}, env), 2, "an ID is required");
}

}  // namespace
}  // namespace idforge
