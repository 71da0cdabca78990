#include "sqlite_test_support.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>

namespace idforge::sqlite_test {
namespace {

using Statement = std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)>;

Statement prepare(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) {
    sqlite3_finalize(s);
    throw std::runtime_error("prepare '" + sql + "': " + sqlite3_errmsg(db));
  }
  return Statement(s, &sqlite3_finalize);
}

// Steps to the first row; throws if there is none or the step fails.
Statement first_row(sqlite3* db, const std::string& sql) {
  Statement s = prepare(db, sql);
  const int rc = sqlite3_step(s.get());
  if (rc == SQLITE_ROW) return s;
  if (rc == SQLITE_DONE) throw std::runtime_error("'" + sql + "' returned no row");
  throw std::runtime_error("'" + sql + "': " + sqlite3_errmsg(db));
}

std::string text_of(sqlite3_stmt* s) {
  if (sqlite3_column_type(s, 0) == SQLITE_NULL) return "NULL";
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  return std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(s, 0)));
}

// This process's folder of test databases, removed at exit (a forked child leaves by _exit()).
const std::filesystem::path& process_folder() {
  static const std::filesystem::path* dir = [] {
    auto* d = new std::filesystem::path(std::filesystem::temp_directory_path() /
                                        ("idforge-sqlite-tests-" + std::to_string(getpid())));
    std::filesystem::remove_all(*d);
    std::filesystem::create_directories(*d);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(process_folder(), ignored);
    });
    return d;
  }();
  return *dir;
}

}  // namespace

std::string test_database() {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = test ? std::string(test->test_suite_name()) + "." + test->name() : "main";
  for (char& c : name)
    if (c == '/') c = '_';  // parameterized tests: Suite/Name/0
  return (process_folder() / (name + ".db")).string();
}

Db::Db(const std::string& path) {
  if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) {
    const std::string m = sqlite3_errmsg(db_);
    sqlite3_close(db_);
    throw std::runtime_error("open " + path + ": " + m);
  }
  sqlite3_enable_load_extension(db_, 1);
  char* message = nullptr;
  if (sqlite3_load_extension(db_, IDFORGE_SQLITE_EXTENSION_PATH, nullptr, &message) != SQLITE_OK) {
    const std::string m = message ? message : "unknown error";
    sqlite3_free(message);
    sqlite3_close(db_);
    throw std::runtime_error("load " IDFORGE_SQLITE_EXTENSION_PATH ": " + m);
  }
}

Db::~Db() {
  sqlite3_close(db_);
}

void Db::exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string m = message ? message : "unknown error";
    sqlite3_free(message);
    throw std::runtime_error("'" + sql + "': " + m);
  }
}

std::vector<std::string> Db::column(const std::string& sql) {
  Statement s = prepare(db_, sql);
  std::vector<std::string> out;
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) out.push_back(text_of(s.get()));
  if (rc != SQLITE_DONE) throw std::runtime_error("'" + sql + "': " + sqlite3_errmsg(db_));
  return out;
}

std::vector<std::string> Db::row(const std::string& sql) {
  Statement s = first_row(db_, sql);
  std::vector<std::string> out;
  for (int i = 0; i < sqlite3_column_count(s.get()); ++i) {
    if (sqlite3_column_type(s.get(), i) == SQLITE_NULL) {
      out.emplace_back("NULL");
      continue;
    }
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s.get(), i));
    out.emplace_back(p, static_cast<std::size_t>(sqlite3_column_bytes(s.get(), i)));
  }
  return out;
}

std::string Db::text(const std::string& sql) {
  return text_of(first_row(db_, sql).get());
}

std::int64_t Db::integer(const std::string& sql) {
  return sqlite3_column_int64(first_row(db_, sql).get(), 0);
}

std::vector<unsigned char> Db::blob(const std::string& sql) {
  Statement s = first_row(db_, sql);
  const auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(s.get(), 0));
  return std::vector<unsigned char>(p, p + sqlite3_column_bytes(s.get(), 0));
}

int Db::type(const std::string& sql) {
  return sqlite3_column_type(first_row(db_, sql).get(), 0);
}

std::string Db::error(const std::string& sql) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) {
    sqlite3_finalize(raw);
    return sqlite3_errmsg(db_);
  }
  Statement s(raw, &sqlite3_finalize);
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
  }
  return rc == SQLITE_DONE ? "" : sqlite3_errmsg(db_);
}

std::string rows(int n) {
  return "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < " +
         std::to_string(n) + ") ";
}

}  // namespace idforge::sqlite_test
