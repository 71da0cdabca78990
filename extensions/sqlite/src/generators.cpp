// uuid7(), uuid7_blob(), uuid4(), ulid(): the C ABI's process-wide generators (idforge.h:
// idforge_make_uuid7, _ulid, _uuid4), shared by every connection and thread, so every
// connection draws from the same increasing sequence (v7 and ULID are monotonic in the
// process) and two connections never share a value. They are safe across fork(): the child's
// CSPRNG reseeds and an inherited generator moves to a later millisecond with a fresh seed.
#include "functions.hpp"

namespace idforge::sqlite {
namespace {

void result_uuid_text(sqlite3_context* ctx, const idforge_uuid& u) {
  char text[IDFORGE_UUID_TEXT_SIZE];
  ok(idforge_uuid_format(&u, text, sizeof text));
  sqlite3_result_text(ctx, text, IDFORGE_UUID_TEXT_SIZE - 1, SQLITE_TRANSIENT);
}

}  // namespace

void uuid7_text(sqlite3_context* ctx, int, sqlite3_value**) noexcept {
  guard(ctx, "uuid7", [&] {
    idforge_uuid u;
    ok(idforge_make_uuid7(&u));
    result_uuid_text(ctx, u);
  });
}

void uuid7_blob(sqlite3_context* ctx, int, sqlite3_value**) noexcept {
  guard(ctx, "uuid7_blob", [&] {
    idforge_uuid u;
    ok(idforge_make_uuid7(&u));
    sqlite3_result_blob(ctx, u.bytes, sizeof u.bytes, SQLITE_TRANSIENT);
  });
}

void uuid4_text(sqlite3_context* ctx, int, sqlite3_value**) noexcept {
  guard(ctx, "uuid4", [&] {
    idforge_uuid u;
    ok(idforge_make_uuid4(&u));
    result_uuid_text(ctx, u);
  });
}

void ulid_text(sqlite3_context* ctx, int, sqlite3_value**) noexcept {
  guard(ctx, "ulid", [&] {
    idforge_ulid u;
    ok(idforge_make_ulid(&u));
    char text[IDFORGE_ULID_TEXT_SIZE];
    ok(idforge_ulid_format(&u, text, sizeof text));
    sqlite3_result_text(ctx, text, IDFORGE_ULID_TEXT_SIZE - 1, SQLITE_TRANSIENT);
  });
}

}  // namespace idforge::sqlite
