// idforge_mask(), idforge_unmask() and idforge_mask_keys(): round trips in every mode and form,
// rotation, a wrong or unknown key, mistyped public IDs, values out of range, NULL, bytes that
// are not UTF-8, missing and unreadable key files, the environment as the default source, and
// the flags that keep the key out of indexes and untrusted schemas.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "sqlite_test_support.hpp"

namespace idforge::sqlite_test {
namespace {

// Two fixed secrets (test keys, never used elsewhere).
const std::string kSecretA = "6f1c2a9e4b7d3f8a0c5e1b9d7a3f6c2e8b4d0a7f3c9e5b1d8a6f2c4e0b7d9a31";
const std::string kSecretB = "93ab5c7e1f0d2b4a6c8e9f1a3b5d7c9e0f2a4b6c8d0e1f3a5b7c9d1e2f4a6b82";

class MaskFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("idforge_sqlite_mask_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    ::unsetenv("IDFORGE_MASK_KEY_FILE");
    ::unsetenv("IDFORGE_MASK_KEYS");
  }
  void TearDown() override {
    std::filesystem::remove_all(dir_);
    ::unsetenv("IDFORGE_MASK_KEY_FILE");
    ::unsetenv("IDFORGE_MASK_KEYS");
  }
  // A keyring file with text, its path.
  std::string file(const std::string& name, const std::string& text) {
    const auto p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  // A loaded connection: idforge_mask_keys(path of text).
  void load(Db& db, const std::string& text) {
    db.exec("SELECT idforge_mask_keys('" + file("keys" + std::to_string(++files_), text) + "')");
  }
  std::filesystem::path dir_;
  int files_ = 0;
};

std::string sql_text(const std::string& s) {
  return "'" + s + "'";
}

TEST_F(MaskFiles, U63RoundTripsInBothForms) {
  Db db;
  load(db, "1:" + kSecretA);
  db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, pub TEXT, raw INTEGER)");
  db.exec(rows(2000) +
          "INSERT INTO t SELECT x, idforge_mask(x), idforge_mask(x, 'u63', 'raw') FROM c");
  db.exec(
      "INSERT INTO t VALUES (9223372036854775807, idforge_mask(9223372036854775807), "
      "idforge_mask(9223372036854775807, 'auto', 'raw'))");
  EXPECT_EQ(db.integer("SELECT count(*) FROM t WHERE idforge_unmask(pub) = id"), 2001);
  EXPECT_EQ(db.integer("SELECT count(*) FROM t WHERE idforge_unmask(raw) = id"), 2001);
  EXPECT_EQ(db.integer("SELECT count(*) FROM t WHERE length(pub) = 16 AND typeof(raw) = 'integer' "
                       "AND raw > 0"),
            2001);
  EXPECT_EQ(db.integer("SELECT count(DISTINCT raw) FROM t"), 2001);
  // Hidden order: consecutive keys do not give rising masked values.
  EXPECT_LT(db.integer("SELECT count(*) FROM t a JOIN t b ON b.id = a.id + 1 WHERE b.raw > a.raw"),
            1200);
  // Decimal text reads as u63 too, and raw text in gives an integer back.
  EXPECT_EQ(db.text("SELECT idforge_mask('4001')"), db.text("SELECT idforge_mask(4001)"));
  EXPECT_EQ(db.integer("SELECT idforge_unmask(CAST(idforge_mask(4001, 'u63', 'raw') AS TEXT), "
                       "'auto', 'raw')"),
            4001);
  // base62: its own text, the same value back.
  const std::string b62 = db.text("SELECT idforge_mask(4001, 'auto', 'public', 'base62')");
  EXPECT_NE(b62, db.text("SELECT idforge_mask(4001)"));
  EXPECT_EQ(db.integer("SELECT idforge_unmask(" + sql_text(b62) + ", 'auto', 'public', 'base62')"),
            4001);
}

TEST_F(MaskFiles, UuidModesRoundTripAsTextAndBlob) {
  Db db;
  load(db, "1:" + kSecretA);
  db.exec("CREATE TABLE u(t TEXT, b BLOB, v7 TEXT)");
  db.exec(rows(300) + "INSERT INTO u SELECT uuid4(), uuid7_blob(), uuid7() FROM c");
  // auto: a v7 becomes a valid v4 and back; any other UUID goes through u128.
  EXPECT_EQ(db.integer("SELECT count(*) FROM u WHERE idforge_unmask(idforge_mask(t)) = t"), 300);
  EXPECT_EQ(db.integer("SELECT count(*) FROM u WHERE length(idforge_mask(t)) = 27"), 300);
  EXPECT_EQ(db.integer("SELECT count(*) FROM u WHERE length(idforge_mask(v7)) = 26 "
                       "AND idforge_unmask(idforge_mask(v7)) = v7"),
            300);
  EXPECT_EQ(db.integer("SELECT count(*) FROM u WHERE "
                       "json_extract(idforge_inspect(idforge_mask(v7, 'v7', 'raw')), '$.version') "
                       "= 4 AND idforge_unmask(idforge_mask(v7, 'v7', 'raw')) = v7"),
            300);
  // A blob in, a blob out (raw); the public form of a blob reads back as the UUID's text.
  EXPECT_EQ(db.integer("SELECT count(*) FROM u WHERE typeof(idforge_mask(b, 'auto', 'raw')) = "
                       "'blob' AND idforge_unmask(idforge_mask(b, 'auto', 'raw')) = b"),
            300);
  EXPECT_EQ(db.integer("SELECT count(*) FROM u WHERE idforge_unmask(idforge_mask(b)) = "
                       "uuid_str(b)"),
            300);
  // u128 on a v7 (given), read back raw with mode u128 given.
  EXPECT_EQ(db.integer("SELECT count(*) FROM u WHERE idforge_unmask(idforge_mask(v7, 'u128', "
                       "'raw'), 'u128', 'raw') = v7"),
            300);
  EXPECT_EQ(db.integer("SELECT count(*) FROM u WHERE idforge_mask(v7, 'u128', 'raw') <> "
                       "idforge_mask(v7, 'v7', 'raw')"),
            300);
}

TEST_F(MaskFiles, TheSameKeyGivesTheSameIdsAsAnotherConnection) {
  Db a, b;
  load(a, "1:" + kSecretA);
  load(b, "1:" + kSecretA);
  EXPECT_EQ(a.text("SELECT idforge_mask(4001)"), b.text("SELECT idforge_mask(4001)"));
  load(b, "1:" + kSecretB);
  EXPECT_NE(a.text("SELECT idforge_mask(4001)"), b.text("SELECT idforge_mask(4001)"));
}

TEST_F(MaskFiles, AnOldKeyStillUnmasksAfterRotation) {
  Db db;
  load(db, "1:" + kSecretA);
  const std::string old_public = db.text("SELECT idforge_mask(4001)");
  const std::int64_t old_raw = db.integer("SELECT idforge_mask(4001, 'auto', 'raw')");
  load(db, "2:" + kSecretB + "\n1:" + kSecretA + "\n");
  EXPECT_EQ(db.text("SELECT idforge_mask_keys()").find("keys 2, 1") != std::string::npos, true);
  const std::string new_public = db.text("SELECT idforge_mask(4001)");
  EXPECT_NE(new_public, old_public);
  EXPECT_EQ(db.integer("SELECT idforge_unmask(" + sql_text(old_public) + ")"), 4001);
  EXPECT_EQ(db.integer("SELECT idforge_unmask(" + sql_text(new_public) + ")"), 4001);
  // Raw values carry no key ID: the old key is named.
  EXPECT_EQ(db.integer("SELECT idforge_unmask(" + std::to_string(old_raw) +
                       ", 'auto', 'raw', 'base58', 1)"),
            4001);
  EXPECT_NE(db.integer("SELECT idforge_unmask(" + std::to_string(old_raw) + ")"), 4001);
  // Masking with an old key reproduces the ID handed out before.
  EXPECT_EQ(db.text("SELECT idforge_mask(4001, 'auto', 'public', 'base58', 1)"), old_public);
  EXPECT_NE(
      db.error("SELECT idforge_unmask(" + sql_text(old_public) + ", 'auto', 'public', 'base58', 2)")
          .find("was made with mask key 1, not 2"),
      std::string::npos);
  EXPECT_NE(db.error("SELECT idforge_mask(1, 'auto', 'public', 'base58', 7)").find("7"),
            std::string::npos);
  // The old key retired: its IDs are now unknown, named as such.
  load(db, "2:" + kSecretB);
  const std::string e = db.error("SELECT idforge_unmask(" + sql_text(old_public) + ")");
  EXPECT_NE(e.find("idforge_unmask(): public ID '" + old_public + "'"), std::string::npos) << e;
  EXPECT_NE(e.find("mask key 1"), std::string::npos) << e;
}

TEST_F(MaskFiles, AWrongKeyUnderTheSameIdIsNotOurs) {
  Db db;
  load(db, "1:" + kSecretA);
  const std::string pub = db.text("SELECT idforge_mask(4001)");
  load(db, "1:" + kSecretB);
  const std::string e = db.error("SELECT idforge_unmask(" + sql_text(pub) + ")");
  EXPECT_NE(e.find("idforge_unmask(): public ID '" + pub + "' was not made with mask key 1"),
            std::string::npos)
      << e;
  EXPECT_EQ(e.find(kSecretA), std::string::npos);
  EXPECT_EQ(e.find(kSecretB), std::string::npos);
}

TEST_F(MaskFiles, AMistypedPublicIdIsCaught) {
  Db db;
  load(db, "1:" + kSecretA);
  std::string pub = db.text("SELECT idforge_mask(4001)");
  std::swap(pub[3], pub[4]);
  if (pub[3] == pub[4]) std::swap(pub[5], pub[6]);
  std::string e = db.error("SELECT idforge_unmask(" + sql_text(pub) + ")");
  EXPECT_NE(e.find("mistyped"), std::string::npos) << e;
  EXPECT_NE(e.find(pub), std::string::npos) << e;
  e = db.error("SELECT idforge_unmask('abc')");
  EXPECT_NE(e.find("idforge_unmask(): "), std::string::npos) << e;
  EXPECT_NE(e.find("'abc'"), std::string::npos) << e;
  e = db.error("SELECT idforge_unmask('0000000000000000')");  // 0 is not base58
  EXPECT_NE(e.find("position 0"), std::string::npos) << e;
  // A u63 public ID read as mode v7.
  e = db.error("SELECT idforge_unmask(idforge_mask(5), 'v7')");
  EXPECT_NE(e.find("is of mode u63, not v7"), std::string::npos) << e;
}

TEST_F(MaskFiles, ValuesOutOfRangeAndOfTheWrongTypeAreRefused) {
  Db db;
  load(db, "1:" + kSecretA);
  const auto says = [&](const std::string& sql, const std::string& part) {
    const std::string e = db.error(sql);
    EXPECT_NE(e.find(part), std::string::npos) << sql << " -> " << e;
  };
  says("SELECT idforge_mask(0)", "idforge_mask(): cannot mask integer 0: value outside 1..2^63-1");
  says("SELECT idforge_mask(-5, 'u63', 'raw')", "cannot mask integer -5: value outside");
  says("SELECT idforge_unmask(0)", "idforge_unmask(): cannot unmask integer 0: value outside");
  says("SELECT idforge_unmask(-1, 'auto', 'raw')", "cannot unmask integer -1");
  says("SELECT idforge_mask('9223372036854775808')", "9223372036854775808");
  says("SELECT idforge_mask(1.5)", "got real 1.5");
  says("SELECT idforge_mask(x'0011')", "got blob of 2 bytes");
  says("SELECT idforge_mask(5, 'v7')", "mode v7 takes a UUID");
  says("SELECT idforge_mask(uuid7_blob(), 'u63')", "mode u63 takes an integer");
  // The C ABI's words, as in every face: the UUID, its version and what the mode takes.
  says("SELECT idforge_mask(uuid4(), 'v7', 'raw')",
       "is not a UUIDv7 (version 4, variant RFC 9562)");
  says("SELECT idforge_unmask(uuid7(), 'v7', 'raw')",
       "is not a UUIDv4 (version 7, variant RFC 9562)");
  says("SELECT idforge_mask(uuid_blob(uuid4()), 'v7')", "v7 masking takes version 7");
  says("SELECT idforge_unmask(uuid7_blob(), 'v7')", "a v7 masked to v4 has version 4");
  says("SELECT idforge_mask(5, 'u64')", "u64");
  says("SELECT idforge_mask(5, 7)", "mode must be text");
  says("SELECT idforge_mask(5, 'auto', 'short')", "form 'short' is neither public nor raw");
  says("SELECT idforge_mask(5, 'auto', 'public', 'base64')", "base64");
  says("SELECT idforge_mask(5, 'auto', 'public', 'base58', 58)", "key_id must be an integer 0..57");
  says("SELECT idforge_mask(5, 'auto', 'public', 'base58', 'one')", "got text 'one'");
  says("SELECT idforge_mask(5, 'auto', 'public', 'base58', 3)", "3");  // not in the keyring
}

TEST_F(MaskFiles, NullIsAnErrorForEveryArgument) {
  Db db;
  load(db, "1:" + kSecretA);
  const auto says = [&](const std::string& sql, const std::string& part) {
    const std::string e = db.error(sql);
    EXPECT_NE(e.find(part), std::string::npos) << sql << " -> " << e;
  };
  says("SELECT idforge_mask(NULL)", "idforge_mask(): the value must be an integer 1..2^63-1");
  says("SELECT idforge_mask(NULL)", "got NULL");
  says("SELECT idforge_unmask(NULL, 'u63', 'raw')", "idforge_unmask(): the value must be");
  says("SELECT idforge_mask(1, NULL)", "mode must be text: auto, u63, u128 or v7, got NULL");
  says("SELECT idforge_mask(1, 'auto', NULL)", "form must be text: public or raw, got NULL");
  says("SELECT idforge_unmask('abc', 'auto', 'public', NULL)", "alphabet must be text");
  says("SELECT idforge_mask(1, 'auto', 'public', 'base58', NULL)", "key_id must be an integer");
  // The defaults, spelled out, are what the short forms use.
  EXPECT_EQ(db.text("SELECT idforge_mask(4001)"),
            db.text("SELECT idforge_mask(4001, 'auto', 'public', 'base58')"));
}

TEST_F(MaskFiles, BytesThatAreNotUtf8AreShownEscaped) {
  Db db;
  load(db, "1:" + kSecretA);
  std::string e = db.error("SELECT idforge_unmask(CAST(x'41ff42' AS TEXT))");
  EXPECT_NE(e.find("A\\xffB"), std::string::npos) << e;
  e = db.error("SELECT idforge_mask(CAST(x'31ff' AS TEXT))");
  EXPECT_NE(e.find("1\\xff"), std::string::npos) << e;
  e = db.error("SELECT idforge_unmask(CAST(x'6162630064' AS TEXT))");  // a NUL inside
  EXPECT_NE(e.find("\\x00"), std::string::npos) << e;
}

TEST_F(MaskFiles, MissingUnreadableAndMalformedKeyFilesAreNamedAndChangeNothing) {
  Db db;
  load(db, "1:" + kSecretA);
  const std::string before = db.text("SELECT idforge_mask(4001)");
  const std::string missing = (dir_ / "no-such-file").string();
  std::string e = db.error("SELECT idforge_mask_keys(" + sql_text(missing) + ")");
  EXPECT_NE(e.find("idforge_mask_keys(): mask key file '" + missing + "' cannot be read"),
            std::string::npos)
      << e;
  e = db.error("SELECT idforge_mask_keys(" + sql_text(dir_.string()) + ")");  // a folder
  EXPECT_NE(e.find("'" + dir_.string() + "' is not a regular file (a directory)"),
            std::string::npos)
      << e;
  const std::string bad = file("bad", "1:" + kSecretB.substr(0, 62) + "\n");
  e = db.error("SELECT idforge_mask_keys(" + sql_text(bad) + ")");
  EXPECT_NE(e.find("62 characters"), std::string::npos) << e;
  EXPECT_EQ(e.find(kSecretB.substr(0, 62)), std::string::npos) << "the secret leaked: " << e;
  e = db.error("SELECT idforge_mask_keys(CAST(x'2f746d70006b' AS TEXT))");  // "/tmp\0k"
  EXPECT_NE(e.find("the path '/tmp\\x00k' holds a NUL byte"), std::string::npos) << e;
  e = db.error("SELECT idforge_mask_keys(NULL)");
  EXPECT_NE(e.find("path of a keyring file"), std::string::npos) << e;
  // None of them replaced the keyring.
  EXPECT_EQ(db.text("SELECT idforge_mask(4001)"), before);
  if (::geteuid() != 0) {  // root reads any file
    const std::string locked = file("locked", "1:" + kSecretA);
    std::filesystem::permissions(locked, std::filesystem::perms::none);
    e = db.error("SELECT idforge_mask_keys(" + sql_text(locked) + ")");
    EXPECT_NE(e.find("cannot be read"), std::string::npos) << e;
  }
}

TEST_F(MaskFiles, WithoutAKeyEveryCallSaysHowToGiveOne) {
  Db db;
  for (const char* sql :
       {"SELECT idforge_mask(5)", "SELECT idforge_unmask('abc')", "SELECT idforge_mask_keys()"}) {
    const std::string e = db.error(sql);
    EXPECT_NE(e.find("no mask key: run idforge_mask_keys('PATH')"), std::string::npos) << e;
    EXPECT_NE(e.find("IDFORGE_MASK_KEY_FILE"), std::string::npos) << e;
  }
}

TEST_F(MaskFiles, TheEnvironmentIsReadAtFirstUseByEachConnection) {
  const std::string path = file("env", "4:" + kSecretA);
  ::setenv("IDFORGE_MASK_KEY_FILE", path.c_str(), 1);
  Db from_file;
  EXPECT_NE(from_file.text("SELECT idforge_mask_keys()").find("keys 4"), std::string::npos);
  ::unsetenv("IDFORGE_MASK_KEY_FILE");
  ::setenv("IDFORGE_MASK_KEYS", ("4:" + kSecretA).c_str(), 1);
  Db from_entries;
  EXPECT_EQ(from_entries.text("SELECT idforge_mask_keys()"), "IDFORGE_MASK_KEYS: keys 4");
  EXPECT_EQ(from_entries.text("SELECT idforge_mask(77)"),
            from_file.text("SELECT idforge_mask(77)"));
  ::setenv("IDFORGE_MASK_KEY_FILE", (dir_ / "gone").string().c_str(), 1);
  Db broken;
  EXPECT_NE(broken.error("SELECT idforge_mask(77)").find("gone' cannot be read"),
            std::string::npos);
  // A file loaded by SQL wins over the environment; other connections keep theirs.
  broken.exec("SELECT idforge_mask_keys(" + sql_text(path) + ")");
  EXPECT_EQ(broken.text("SELECT idforge_mask(77)"), from_file.text("SELECT idforge_mask(77)"));
}

TEST_F(MaskFiles, FlagsKeepTheKeyOutOfIndexesAndUntrustedSchemas) {
  Db db;
  const std::string path = file("k", "1:" + kSecretA);
  // Loading a file only from the program's own SQL, as idforge_node(N).
  db.exec("CREATE VIEW v AS SELECT idforge_mask_keys(" + sql_text(path) + ") AS k");
  EXPECT_NE(db.error("SELECT * FROM v").find("unsafe use of idforge_mask_keys()"),
            std::string::npos);
  db.exec("SELECT idforge_mask_keys(" + sql_text(path) + ")");
  // Not deterministic: a new key would leave an index or a generated column stale.
  db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY)");
  EXPECT_NE(db.error("CREATE INDEX t_pub ON t(idforge_mask(id))").find("non-deterministic"),
            std::string::npos);
  EXPECT_NE(db.error("CREATE TABLE g(id, p AS (idforge_mask(id)))").find("non-deterministic"),
            std::string::npos);
  // A view of the program's own schema may mask; with trusted_schema=OFF, no view may.
  db.exec("INSERT INTO t VALUES (4001); CREATE VIEW pub AS SELECT idforge_mask(id) AS p FROM t");
  EXPECT_EQ(db.text("SELECT p FROM pub"), db.text("SELECT idforge_mask(4001)"));
  db.exec("PRAGMA trusted_schema = OFF");
  EXPECT_NE(db.error("SELECT p FROM pub").find("unsafe use of idforge_mask()"), std::string::npos);
  EXPECT_EQ(db.integer("SELECT idforge_unmask(idforge_mask(4001))"), 4001);
}

}  // namespace
}  // namespace idforge::sqlite_test
