// `idforge mask` and `idforge unmask`, driven as a user would: keys from a file or the
// environment (never the command line), rotation, a wrong key, mistyped IDs, raw forms.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "idforge/uuid.hpp"
#include "run_command.hpp"

namespace idforge {
namespace {

using test::run_idforge;

// Neither key variable from the environment the tests run in reaches the binary.
const std::vector<std::string> kNoEnvKeys = {"IDFORGE_MASK_KEYS=", "IDFORGE_MASK_KEY_FILE="};

class CliMask : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/idforge-mask-cli-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    key1_ = new_key(1);
    key2_ = new_key(2);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static std::string new_key(int id) {
    const auto r = run_idforge({"mask", "--new-key", std::to_string(id)});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.lines().empty() ? std::string() : r.lines()[0];
  }
  std::string write_keys(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  // Runs with the keyring file path and no key variables.
  test::CommandResult with_file(const std::string& path, std::vector<std::string> args) {
    args.push_back("--key-file");
    args.push_back(path);
    return run_idforge(args, kNoEnvKeys);
  }

  std::string dir_, key1_, key2_;
};

TEST_F(CliMask, NewKeyPrintsAnIdAndSixtyFourHexDigits) {
  ASSERT_EQ(key1_.size(), 2u + 64u);
  EXPECT_EQ(key1_.substr(0, 2), "1:");
  EXPECT_EQ(key1_.find_first_not_of("0123456789abcdef", 2), std::string::npos);
  EXPECT_NE(key1_.substr(2), key2_.substr(2));
}

TEST_F(CliMask, KeyFromAFileMasksAndUnmasksBack) {
  const std::string keys = write_keys("keys", "# test keys\n" + key1_ + "\n");
  std::vector<std::string> args = {"mask"};
  for (int i = 1; i <= 200; ++i) args.push_back(std::to_string(i));
  const auto m = with_file(keys, args);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  const auto ids = m.lines();
  ASSERT_EQ(ids.size(), 200u);
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), 200u);
  for (const auto& id : ids) EXPECT_EQ(id.size(), 16u) << id;
  std::vector<std::string> back_args = {"unmask"};
  back_args.insert(back_args.end(), ids.begin(), ids.end());
  const auto u = with_file(keys, back_args);
  ASSERT_EQ(u.exit_code, 0) << u.err;
  for (int i = 1; i <= 200; ++i) EXPECT_EQ(u.lines()[i - 1], std::to_string(i));
}

TEST_F(CliMask, KeysFromTheEnvironmentMaskTheSameAsTheFile) {
  const std::string keys = write_keys("keys", key1_ + "\n");
  const auto from_file = with_file(keys, {"mask", "4001"});
  const auto from_keys =
      run_idforge({"mask", "4001"}, {"IDFORGE_MASK_KEYS=" + key1_, "IDFORGE_MASK_KEY_FILE="});
  const auto from_path =
      run_idforge({"mask", "4001"}, {"IDFORGE_MASK_KEYS=", "IDFORGE_MASK_KEY_FILE=" + keys});
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  ASSERT_EQ(from_keys.exit_code, 0) << from_keys.err;
  ASSERT_EQ(from_path.exit_code, 0) << from_path.err;
  EXPECT_EQ(from_keys.out, from_file.out);
  EXPECT_EQ(from_path.out, from_file.out);
}

TEST_F(CliMask, NoKeySaysWhereOneComesFrom) {
  const auto r = run_idforge({"mask", "5"}, kNoEnvKeys);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("--key-file"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("IDFORGE_MASK_KEYS"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("IDFORGE_MASK_KEY_FILE"), std::string::npos) << r.err;
}

TEST_F(CliMask, AKeyCannotBeGivenOnTheCommandLine) {
  const std::string secret = key1_.substr(2);
  for (const auto& opt : {"--key", "--secret", "--mask-key"}) {
    const auto r = run_idforge({"mask", "5", opt, key1_}, kNoEnvKeys);
    EXPECT_EQ(r.exit_code, 2) << opt << ": " << r.out;
  }
}

TEST_F(CliMask, MissingOrMalformedKeyFilesNameTheFileNotTheSecret) {
  const auto missing = with_file(dir_ + "/nope", {"mask", "5"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find(dir_ + "/nope"), std::string::npos) << missing.err;
  const std::string bad = write_keys("bad", key1_.substr(0, 60) + "\n");
  const auto r = with_file(bad, {"mask", "5"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("64 hex digits"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(key1_.substr(10, 30)), std::string::npos) << "secret echoed: " << r.err;
}

TEST_F(CliMask, RotationKeepsOldPublicIdsResolving) {
  const std::string old_ring = write_keys("old", key1_ + "\n");
  const std::string new_ring = write_keys("new", key2_ + "\n" + key1_ + "\n");
  const auto old_id = with_file(old_ring, {"mask", "4001"});
  const auto new_id = with_file(new_ring, {"mask", "4001"});
  ASSERT_EQ(old_id.exit_code, 0) << old_id.err;
  ASSERT_EQ(new_id.exit_code, 0) << new_id.err;
  EXPECT_NE(old_id.lines()[0], new_id.lines()[0]);
  const auto back = with_file(new_ring, {"unmask", old_id.lines()[0], new_id.lines()[0], "--json"});
  ASSERT_EQ(back.exit_code, 0) << back.err;
  const auto a = nlohmann::json::parse(back.lines()[0]), b = nlohmann::json::parse(back.lines()[1]);
  EXPECT_EQ(a["id"], 4001);
  EXPECT_EQ(a["key_id"], 1);
  EXPECT_EQ(b["id_str"], "4001");
  EXPECT_EQ(b["key_id"], 2);
  // --key-id masks with an older key of the ring: the old ID again.
  const auto again = with_file(new_ring, {"mask", "4001", "--key-id", "1"});
  EXPECT_EQ(again.lines(), old_id.lines());
  // Once key 1 is retired, its IDs say so.
  const std::string retired = write_keys("retired", key2_ + "\n");
  const auto gone = with_file(retired, {"unmask", old_id.lines()[0]});
  EXPECT_EQ(gone.exit_code, 1);
  EXPECT_NE(gone.err.find("mask key 1"), std::string::npos) << gone.err;
  EXPECT_NE(gone.err.find("does not hold"), std::string::npos) << gone.err;
}

TEST_F(CliMask, AWrongKeyUnderTheSameIdIsNotOurs) {
  const std::string right = write_keys("right", key1_ + "\n");
  std::string other = new_key(1);
  const std::string wrong = write_keys("wrong", other + "\n");
  const auto id = with_file(right, {"mask", "77"});
  ASSERT_EQ(id.exit_code, 0);
  const auto r = with_file(wrong, {"unmask", id.lines()[0]});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("not made with mask key 1"), std::string::npos) << r.err;
}

TEST_F(CliMask, MistypedIdsAreCaughtWithThePosition) {
  const std::string keys = write_keys("keys", key1_ + "\n");
  const std::string id = with_file(keys, {"mask", "4001"}).lines().at(0);
  std::string typo = id;
  typo[5] = typo[5] == 'x' ? 'y' : 'x';
  std::string swap = id;
  for (std::size_t i = 0; i + 1 < swap.size(); ++i)
    if (swap[i] != swap[i + 1]) {
      std::swap(swap[i], swap[i + 1]);
      break;
    }
  for (const auto& bad : {typo, swap}) {
    const auto r = with_file(keys, {"unmask", bad});
    EXPECT_EQ(r.exit_code, 1) << bad;
    EXPECT_NE(r.err.find("'" + bad + "' at position 15"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("mistyped"), std::string::npos) << r.err;
  }
  const auto wrong_char = with_file(keys, {"unmask", "0" + id.substr(1)});
  EXPECT_EQ(wrong_char.exit_code, 1);
  EXPECT_NE(wrong_char.err.find("'0' is not a base58 character"), std::string::npos)
      << wrong_char.err;
}

TEST_F(CliMask, RawFormsRoundTripNumbersAndUuids) {
  const std::string keys = write_keys("keys", key1_ + "\n");
  const auto n = with_file(keys, {"mask", "--form", "raw", "4001", "9223372036854775807"});
  ASSERT_EQ(n.exit_code, 0) << n.err;
  for (const auto& l : n.lines()) {
    const auto v = std::stoull(l);
    EXPECT_GE(v, 1u);
    EXPECT_LE(v, 9223372036854775807ull);
  }
  const auto nb = with_file(keys, {"unmask", "--form", "raw", n.lines()[0], n.lines()[1]});
  EXPECT_EQ(nb.lines(), (std::vector<std::string>{"4001", "9223372036854775807"}));

  const std::string v7 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
  const auto v4 = with_file(keys, {"mask", "--form", "raw", v7});
  ASSERT_EQ(v4.exit_code, 0) << v4.err;
  const Uuid u = Uuid::parse(v4.lines()[0]);
  EXPECT_EQ(u.version(), 4);
  EXPECT_EQ(u.variant(), UuidVariant::rfc9562);
  EXPECT_EQ(with_file(keys, {"unmask", v4.lines()[0]}).lines()[0], v7) << "a UUID is read raw";
  const auto pub = with_file(keys, {"mask", v7});
  EXPECT_EQ(pub.lines()[0].size(), 26u);
  EXPECT_EQ(with_file(keys, {"unmask", pub.lines()[0]}).lines()[0], v7);

  // u128: any UUID; read back raw it needs --mode u128 (1 in 64 look like a v4).
  const std::string v4in = "919108f7-52d1-4320-9bac-f847db4148a8";
  const auto m = with_file(keys, {"mask", "--form", "raw", v4in});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_EQ(with_file(keys, {"unmask", "--mode", "u128", m.lines()[0]}).lines()[0], v4in);
  const auto p128 = with_file(keys, {"mask", v4in});
  EXPECT_EQ(p128.lines()[0].size(), 27u);
  EXPECT_EQ(with_file(keys, {"unmask", p128.lines()[0]}).lines()[0], v4in);
}

TEST_F(CliMask, Base62RoundTripsAndJsonCarriesEveryForm) {
  const std::string keys = write_keys("keys", key2_ + "\n");
  const auto m = with_file(keys, {"mask", "--alphabet", "base62", "--json", "12345"});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  const auto j = nlohmann::json::parse(m.lines()[0]);
  EXPECT_EQ(j["input"], "12345");
  EXPECT_EQ(j["mode"], "u63");
  EXPECT_EQ(j["key_id"], 2);
  EXPECT_EQ(std::to_string(j["masked"].get<std::uint64_t>()), j["masked_str"].get<std::string>());
  const std::string pub = j["public_id"];
  EXPECT_EQ(with_file(keys, {"unmask", "--alphabet", "base62", pub}).lines()[0], "12345");
  EXPECT_EQ(with_file(keys, {"unmask", "--form", "raw", j["masked_str"]}).lines()[0], "12345");
}

TEST_F(CliMask, BadValuesFailAloneAndTheRestArePrinted) {
  const std::string keys = write_keys("keys", key1_ + "\n");
  const auto one = with_file(keys, {"mask", "0"});
  EXPECT_EQ(one.exit_code, 1);
  EXPECT_NE(one.err.find("'0'"), std::string::npos) << one.err;
  EXPECT_NE(one.err.find("9223372036854775807"), std::string::npos) << one.err;
  const auto many = with_file(keys, {"mask", "5", "not-an-id", "6"});
  EXPECT_EQ(many.exit_code, 1);
  EXPECT_EQ(many.lines().size(), 2u);
  EXPECT_NE(many.err.find("'not-an-id'"), std::string::npos) << many.err;
  EXPECT_NE(many.err.find("1 of 3 IDs did not mask"), std::string::npos) << many.err;
  const auto v7_only =
      with_file(keys, {"mask", "--mode", "v7", "919108f7-52d1-4320-9bac-f847db4148a8"});
  EXPECT_EQ(v7_only.exit_code, 1);
  EXPECT_NE(v7_only.err.find("version 7"), std::string::npos) << v7_only.err;
}

TEST_F(CliMask, UsageErrorsExitTwo) {
  const std::string keys = write_keys("keys", key1_ + "\n");
  EXPECT_EQ(with_file(keys, {"mask", "5", "--mode", "u64"}).exit_code, 2);
  EXPECT_EQ(with_file(keys, {"mask", "5", "--alphabet", "base64"}).exit_code, 2);
  EXPECT_EQ(with_file(keys, {"mask", "5", "--form", "hex"}).exit_code, 2);
  EXPECT_EQ(with_file(keys, {"mask", "5", "--key-id", "58"}).exit_code, 2);
  EXPECT_EQ(run_idforge({"mask", "--new-key", "58"}).exit_code, 2);
  EXPECT_EQ(run_idforge({"mask", "--new-key", "3", "5"}).exit_code, 2);
  EXPECT_EQ(with_file(keys, {"mask"}).exit_code, 2);
  EXPECT_EQ(with_file(keys, {"unmask"}).exit_code, 2);
  const auto absent = with_file(keys, {"mask", "5", "--key-id", "7"});
  EXPECT_EQ(absent.exit_code, 1);
  EXPECT_NE(absent.err.find("mask key 7"), std::string::npos) << absent.err;
}

}  // namespace
}  // namespace idforge
