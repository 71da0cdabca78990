// MaskKeyring: parsing entries, loading from a file or the environment, the errors (which
// name the source and the entry but never the secret), and fresh key lines.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "expect_errc.hpp"
#include "idforge/mask_keyring.hpp"
#include "mask_support.hpp"

namespace idforge {
namespace {

using test::counting_line;
using test::descending_line;

const std::string kCountingHex = counting_line(0).substr(2);

TEST(MaskKeyring, TheFirstEntryIsThePrimaryAndEveryEntryIsFound) {
  const auto ring = MaskKeyring::parse(descending_line(2) + "\n" + counting_line(1) + "\n", "test");
  EXPECT_EQ(ring.primary().id(), 2u);
  EXPECT_EQ(ring.ids(), (std::vector<unsigned>{2, 1}));
  EXPECT_EQ(ring.ids_text(), "2, 1");
  ASSERT_NE(ring.find(1), nullptr);
  EXPECT_EQ(ring.find(1)->mask_u63(7), MaskKey(1, test::kCountingSecret).mask_u63(7));
  EXPECT_EQ(ring.find(3), nullptr);
  EXPECT_EQ(ring.source(), "test");
}

TEST(MaskKeyring, CommentsCommasBlanksAndUppercaseHexAreAccepted) {
  std::string upper = counting_line(1);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const auto ring = MaskKeyring::parse("# keys\r\n  " + descending_line(9) + " # newest\n" + upper +
                                           "," + counting_line(4) + "\t\n#end",
                                       "test");
  EXPECT_EQ(ring.ids(), (std::vector<unsigned>{9, 1, 4}));
  EXPECT_EQ(ring.at(1).mask_u63(5), ring.at(4).mask_u63(5));
}

TEST(MaskKeyring, MalformedEntriesAreRefusedNamingSourceAndEntryButNotTheSecret) {
  const std::string secret_hex = kCountingHex;
  const std::map<std::string, std::string> cases = {
      {"", "no key"},
      {"# only a comment\n", "no key"},
      {secret_hex, "entry 1: expected ID:SECRET"},
      {"x:" + secret_hex, "the key ID must be a number"},
      {"58:" + secret_hex, "the key ID must be a number from 0 to 57"},
      {"123:" + secret_hex, "the key ID must be a number"},
      {":" + secret_hex, "the key ID must be a number"},
      {"1:" + secret_hex.substr(2), "62 characters"},
      {"1:" + secret_hex + "00", "66 characters"},
      {"1:" + secret_hex.substr(0, 63) + "g", "not a hex digit at position 63"},
      {"1:" + std::string(64, '0'), "all zero bytes"},
      {counting_line(1) + "\n" + descending_line(1),
       "entry 2 (key ID '1'): this key ID is given twice"},
  };
  for (const auto& [text, want] : cases) {
    try {
      MaskKeyring::parse(text, "file 'k.txt'");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_EQ(e.code(), errc::key_error) << m;
      EXPECT_NE(m.find(want), std::string::npos) << m;
      EXPECT_NE(m.find("file 'k.txt'"), std::string::npos) << m;
      EXPECT_EQ(m.find(secret_hex.substr(10, 20)), std::string::npos) << "secret leaked: " << m;
    }
  }
}

struct TempFile {
  std::filesystem::path path;
  explicit TempFile(const std::string& text) {
    path = std::filesystem::temp_directory_path() /
           ("idforge-mask-keys-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::ofstream(path) << text;
  }
  ~TempFile() { std::filesystem::remove(path); }
  static inline int counter = 0;
};

TEST(MaskKeyring, LoadsAFileAndNamesItInErrors) {
  const TempFile f(counting_line(3) + "\n");
  const auto ring = MaskKeyring::load_file(f.path.string());
  EXPECT_EQ(ring.primary().id(), 3u);
  EXPECT_NE(ring.source().find(f.path.string()), std::string::npos);

  EXPECT_ERRC(MaskKeyring::load_file("/nonexistent/idforge-keys"), errc::key_error,
              "/nonexistent/idforge-keys");
  const TempFile big(std::string(70 * 1024, '#'));
  try {
    MaskKeyring::load_file(big.path.string());
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("64 KiB"), std::string::npos) << e.what();
  }
}

// An entry written the wrong way round (SECRET:ID) used to be quoted whole as its "key
// ID", which printed the secret; a NUL or a 60,000-byte ID went into the message as well.
TEST(MaskKeyring, AKeyIdThatCannotBeOneIsNotShownForItMayBeTheSecret) {
  const std::string secret_hex = kCountingHex;
  for (const std::string& id : {secret_hex, std::string(60'000, 'a'), std::string("\x1b[2J\0AB", 7),
                                std::string("\xff\xfe")}) {
    try {
      MaskKeyring::parse(id + ":1", "IDFORGE_MASK_KEYS");
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.find(secret_hex.substr(0, 16)), std::string::npos) << "secret shown: " << m;
      EXPECT_NE(m.find("a key ID of " + std::to_string(id.size()) + " bytes, not shown"),
                std::string::npos)
          << m;
      EXPECT_LT(m.size(), 300u) << m;
      EXPECT_EQ(m.find('\0'), std::string::npos);
    }
  }
}

// A FIFO as the key file hung whoever read it (a starting server, with SIGTERM not yet
// handled); a directory or a device is no keyring either. Each is refused unread.
TEST(MaskKeyring, AFileThatIsNotARegularFileIsRefusedUnread) {
  const auto fifo =
      std::filesystem::temp_directory_path() / ("idforge-mask-fifo-" + std::to_string(::getpid()));
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_ERRC(MaskKeyring::load_file(fifo.string()), errc::key_error, "is not a regular file",
              "a FIFO");
  std::filesystem::remove(fifo);
  EXPECT_ERRC(MaskKeyring::load_file(std::filesystem::temp_directory_path().string()),
              errc::key_error, "a directory");
  EXPECT_ERRC(MaskKeyring::load_file("/dev/zero"), errc::key_error, "a device");
}

// A key entry given where a path belongs is not echoed back as "the path".
TEST(MaskKeyring, APathThatLooksLikeAKeyEntryIsNotShown) {
  const std::string entry = "1:" + kCountingHex;
  try {
    MaskKeyring::load_file(entry);
    ADD_FAILURE();
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find(kCountingHex.substr(0, 16)), std::string::npos) << "secret shown: " << m;
    EXPECT_NE(m.find("looks like ID:SECRET, not shown"), std::string::npos) << m;
  }
}

TEST(MaskKeyring, EnvironmentTakesAFileFirstThenKeysThenSaysHowToGiveOne) {
  const TempFile f(counting_line(5));
  std::map<std::string, std::string> env;
  const auto lookup = [&env](const char* name) -> std::optional<std::string> {
    const auto it = env.find(name);
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  EXPECT_ERRC(MaskKeyring::from_environment(lookup), errc::key_error, "IDFORGE_MASK_KEYS",
              "IDFORGE_MASK_KEY_FILE");
  env["IDFORGE_MASK_KEYS"] = descending_line(6) + "," + counting_line(5);
  const auto ring = MaskKeyring::from_environment(lookup);
  EXPECT_EQ(ring.ids(), (std::vector<unsigned>{6, 5}));
  EXPECT_EQ(ring.source(), "IDFORGE_MASK_KEYS");
  env["IDFORGE_MASK_KEY_FILE"] = f.path.string();  // a file wins, as the service's setting does
  EXPECT_EQ(MaskKeyring::from_environment(lookup).ids(), (std::vector<unsigned>{5}));
  env["IDFORGE_MASK_KEY_FILE"] = "";  // empty counts as unset
  EXPECT_EQ(MaskKeyring::from_environment(lookup).primary().id(), 6u);
}

TEST(MaskKeyring, AtNamesAMissingKeyAndTheKeysHeld) {
  const auto ring =
      MaskKeyring::parse(counting_line(2) + " " + descending_line(7), "IDFORGE_MASK_KEYS");
  EXPECT_EQ(ring.at(7).id(), 7u);
  EXPECT_ERRC(ring.at(4), errc::key_error, "mask key 4", "2, 7");
}

TEST(MaskKeyring, NewKeyLinesParseBackAndNeverRepeat) {
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    const std::string line = new_mask_key_line(12);
    ASSERT_EQ(line.size(), 3u + 64u);
    ASSERT_EQ(line.substr(0, 3), "12:");
    ASSERT_TRUE(seen.insert(line).second);
    EXPECT_EQ(MaskKeyring::parse(line, "new").primary().id(), 12u);
  }
  EXPECT_THROW(new_mask_key_line(58), Error);
}

}  // namespace
}  // namespace idforge
