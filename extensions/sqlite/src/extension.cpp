// The entry point SQLite looks for in libidforge_sqlite.so (`.load ./libidforge_sqlite`,
// sqlite3_load_extension), and the table of functions with their flags.
//
// Flags, and why:
//  - Generators (uuid7, uuid7_blob, uuid4, ulid, snowflake): not SQLITE_DETERMINISTIC, so SQLite
//    calls them once per use and per row and never folds two calls into one value. They are
//    SQLITE_INNOCUOUS: they read and write nothing of the database or the machine, and the
//    worst a hostile schema can do with them is spend IDs, so they work in a column's DEFAULT
//    (id TEXT PRIMARY KEY DEFAULT (uuid7())) even with PRAGMA trusted_schema=OFF.
//  - Conversions (uuid_str, uuid_blob, idforge_inspect): SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
//    pure functions of their arguments, usable in indexes, CHECK and generated columns.
//  - idforge_node(N | URL [, layout] [, store URL]): SQLITE_DIRECTONLY. It changes the
//    connection's state and opens files (the lease folder beside the database, or a store's)
//    or connects to a store: only the SQL a program runs itself may do that, never a trigger or
//    a view of a database file someone else wrote.
//  - idforge_mask, idforge_unmask: neither DETERMINISTIC nor INNOCUOUS. Their result depends on
//    the connection's keyring, which idforge_mask_keys() or a rotation changes, so an index,
//    CHECK or generated column on them would go stale (SQLite would call the index corrupt).
//    And they compute with a secret: in a view or trigger of an untrusted database file they
//    would make the key an oracle for whoever wrote the file, so with PRAGMA
//    trusted_schema=OFF only the program's own SQL may call them (with the default ON, the
//    program's own views may).
//  - idforge_mask_keys(PATH): SQLITE_DIRECTONLY, as idforge_node(N): it opens a file the SQL
//    names and changes the connection's keyring. Without an argument it only reports the
//    keyring (source and key IDs, never a secret), harmless anywhere but kept off untrusted
//    schemas like the functions that use it.
#include <iterator>

#include "functions.hpp"

SQLITE_EXTENSION_INIT1

namespace idforge::sqlite {
namespace {

constexpr int kGenerator = SQLITE_UTF8 | SQLITE_INNOCUOUS;
constexpr int kConversion = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
constexpr int kSetter = SQLITE_UTF8 | SQLITE_DIRECTONLY;
constexpr int kKeyed = SQLITE_UTF8;

using Function = void (*)(sqlite3_context*, int, sqlite3_value**) noexcept;

struct Entry {
  const char* name;
  int args;
  int flags;
  Function function;
};

// Functions without per-connection state.
constexpr Entry kPure[] = {
    {"uuid7", 0, kGenerator, uuid7_text},
    {"uuid7_blob", 0, kGenerator, uuid7_blob},
    {"uuid4", 0, kGenerator, uuid4_text},
    {"ulid", 0, kGenerator, ulid_text},
    {"uuid_str", 1, kConversion, uuid_str},
    {"uuid_blob", 1, kConversion, uuid_blob},
    {"idforge_inspect", 1, kConversion, inspect_json},
    {"idforge_inspect", 2, kConversion, inspect_json},
};

// Functions that share the connection's node; each holds its own reference to it, released by
// SQLite when the connection closes or the function is replaced.
constexpr Entry kStateful[] = {
    {"idforge_node", 0, kGenerator, set_node},  // reads the node: harmless anywhere
    {"idforge_node", 1, kSetter, set_node},    {"idforge_node", 2, kSetter, set_node},
    {"idforge_node", 3, kSetter, set_node},    {"snowflake", 0, kGenerator, snowflake},
};

// Functions that share the connection's masking keyring: the value, then optional mode, form,
// alphabet and key ID.
constexpr Entry kMasking[] = {
    {"idforge_mask_keys", 0, kKeyed, mask_keys}, {"idforge_mask_keys", 1, kSetter, mask_keys},
    {"idforge_mask", 1, kKeyed, mask},           {"idforge_mask", 2, kKeyed, mask},
    {"idforge_mask", 3, kKeyed, mask},           {"idforge_mask", 4, kKeyed, mask},
    {"idforge_mask", 5, kKeyed, mask},           {"idforge_unmask", 1, kKeyed, unmask},
    {"idforge_unmask", 2, kKeyed, unmask},       {"idforge_unmask", 3, kKeyed, unmask},
    {"idforge_unmask", 4, kKeyed, unmask},       {"idforge_unmask", 5, kKeyed, unmask},
};

// Registers table's functions, each with its own reference to one shared state, released by
// SQLite when the connection closes or the function is replaced.
int register_shared(sqlite3* db, const Entry* begin, const Entry* end, void* (*make)(),
                    void* (*ref_of)(void*), void (*release)(void*) noexcept) noexcept {
  void* state = nullptr;
  try {
    state = make();
  } catch (...) {
    return SQLITE_NOMEM;
  }
  int rc = SQLITE_OK;
  for (const Entry* f = begin; f != end; ++f) {
    void* ref = nullptr;
    try {
      ref = ref_of(state);
    } catch (...) {
      rc = SQLITE_NOMEM;
      break;
    }
    // On failure SQLite calls the destructor itself, so ref is never leaked nor freed twice.
    rc = sqlite3_create_function_v2(db, f->name, f->args, f->flags, ref, f->function, nullptr,
                                    nullptr, release);
    if (rc != SQLITE_OK) break;
  }
  release(state);
  return rc;
}

int register_all(sqlite3* db) noexcept {
  for (const Entry& f : kPure) {
    const int rc = sqlite3_create_function_v2(db, f.name, f.args, f.flags, nullptr, f.function,
                                              nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) return rc;
  }
  const int rc = register_shared(db, std::begin(kStateful), std::end(kStateful), new_connection,
                                 new_connection_ref, free_connection_ref);
  if (rc != SQLITE_OK) return rc;
  return register_shared(db, std::begin(kMasking), std::end(kMasking), new_mask_state,
                         new_mask_state_ref, free_mask_state_ref);
}

}  // namespace
}  // namespace idforge::sqlite

extern "C" {

__attribute__((visibility("default"))) int sqlite3_idforge_sqlite_init(
    sqlite3* db, char** error, const sqlite3_api_routines* api) {
  SQLITE_EXTENSION_INIT2(api);
  const int rc = idforge::sqlite::register_all(db);
  if (rc != SQLITE_OK && error)
    *error =
        sqlite3_mprintf("idforge: registering the SQL functions failed: %s", sqlite3_errstr(rc));
  return rc;
}

// The name SQLite derives from the file when no entry point is given: "sqlite3_" + the letters
// of the file name after "lib" up to the first dot, lowercased, so the underscore of
// libidforge_sqlite.so is dropped. With it, `.load ./libidforge_sqlite` needs no entry point.
__attribute__((visibility("default"))) int sqlite3_idforgesqlite_init(
    sqlite3* db, char** error, const sqlite3_api_routines* api) {
  return sqlite3_idforge_sqlite_init(db, error, api);
}

}  // extern "C"
