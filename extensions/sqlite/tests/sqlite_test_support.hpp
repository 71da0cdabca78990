// A database with the extension loaded the way a program loads it
// (sqlite3_enable_load_extension + sqlite3_load_extension of the built .so), and small readers.
// By default every Db of a test opens the same file, that test's own (idforge_node(N) locks N
// beside a database file, so the connections of a test share one database, as an
// application's do).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <vector>

namespace idforge::sqlite_test {

/// The database file of the running test: TEST_SUITE.TEST_NAME.db in a folder of this process
/// (made at first use, inherited by a forked child, removed at exit). Its lease folder sits
/// beside it (TEST_SUITE.TEST_NAME.db-idforge).
std::string test_database();

class Db {
 public:
  /// Opens path (default: test_database()) and loads the extension; throws
  /// std::runtime_error with SQLite's message if either fails.
  explicit Db(const std::string& path = test_database());
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  sqlite3* get() const noexcept { return db_; }
  /// Runs sql (any number of statements); throws with SQLite's message on an error.
  void exec(const std::string& sql);
  /// Column 0 of every row, as text ("NULL" for NULL); throws on an error.
  std::vector<std::string> column(const std::string& sql);
  /// Every column of the first row, as text; throws on an error or no row.
  std::vector<std::string> row(const std::string& sql);
  /// Column 0 of the first row as text; throws on an error or no row.
  std::string text(const std::string& sql);
  /// Column 0 of the first row as an integer; throws on an error or no row.
  std::int64_t integer(const std::string& sql);
  /// Column 0 of the first row as bytes; throws on an error or no row.
  std::vector<unsigned char> blob(const std::string& sql);
  /// The storage class of column 0 of the first row (SQLITE_TEXT, ...).
  int type(const std::string& sql);
  /// The message sql fails with, or "" if it succeeds (every row stepped).
  std::string error(const std::string& sql);

 private:
  sqlite3* db_ = nullptr;
};

/// A recursive CTE of n rows, column x = 1..n, to put in front of a SELECT (the library has no
/// generate_series; the sqlite3 shell adds it).
std::string rows(int n);

}  // namespace idforge::sqlite_test
