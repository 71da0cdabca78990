// A process of its own on one database, for the tests that need two: opens argv[2], loads the
// extension argv[1], then runs one SQL statement per line of stdin, answering with column 0 of
// each row on a line (or "error: MESSAGE") and a line "." when the statement is done. At the end
// of stdin it closes the database (freeing what the connection holds) and exits.
#include <sqlite3.h>

#include <cstdio>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s EXTENSION DATABASE\n", argv[0]);
    return 2;
  }
  sqlite3* db = nullptr;
  if (sqlite3_open(argv[2], &db) != SQLITE_OK) {
    std::fprintf(stderr, "open %s: %s\n", argv[2], sqlite3_errmsg(db));
    return 1;
  }
  sqlite3_enable_load_extension(db, 1);
  char* message = nullptr;
  if (sqlite3_load_extension(db, argv[1], nullptr, &message) != SQLITE_OK) {
    std::fprintf(stderr, "load %s: %s\n", argv[1], message ? message : "unknown error");
    return 1;
  }
  std::string sql;
  while (std::getline(std::cin, sql)) {
    sqlite3_stmt* s = nullptr;
    int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr);
    if (rc == SQLITE_OK) {
      while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
        std::cout << (text ? text : "NULL") << '\n';
      }
    }
    if (rc != SQLITE_DONE) std::cout << "error: " << sqlite3_errmsg(db) << '\n';
    sqlite3_finalize(s);
    std::cout << "." << std::endl;
  }
  return sqlite3_close(db) == SQLITE_OK ? 0 : 1;
}
