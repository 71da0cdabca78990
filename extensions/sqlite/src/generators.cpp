// uuid7(), uuid7_blob(), uuid4(), ulid(): one generator of each kind for the whole process, so
// every connection on every thread draws from the same increasing sequence (v7 and ULID are
// monotonic in the process) and two connections never share a value. Core makes them safe
// across fork(): the child's CSPRNG reseeds and an inherited generator moves to a later
// millisecond with a fresh seed (uuid_generator.hpp, ulid_generator.hpp).
#include "functions.hpp"
#include "idforge/ulid_generator.hpp"
#include "idforge/uuid_generator.hpp"

namespace idforge::sqlite {
namespace {

// Never destroyed: a connection on another thread may still call them while static
// destructors run at exit.
SharedUuidV7Generator& process_v7() {
  static auto* gen = new SharedUuidV7Generator();
  return *gen;
}

SharedUlidGenerator& process_ulid() {
  static auto* gen = new SharedUlidGenerator();
  return *gen;
}

void result_uuid_text(sqlite3_context* ctx, const Uuid& u) {
  char text[Uuid::kTextSize];
  u.to_chars(text);
  sqlite3_result_text(ctx, text, sizeof text, SQLITE_TRANSIENT);
}

}  // namespace

void uuid7_text(sqlite3_context* ctx, int, sqlite3_value**) noexcept {
  guard(ctx, "uuid7", [&] { result_uuid_text(ctx, process_v7().next()); });
}

void uuid7_blob(sqlite3_context* ctx, int, sqlite3_value**) noexcept {
  guard(ctx, "uuid7_blob", [&] {
    const Uuid u = process_v7().next();
    sqlite3_result_blob(ctx, u.bytes().data(), static_cast<int>(u.bytes().size()),
                        SQLITE_TRANSIENT);
  });
}

void uuid4_text(sqlite3_context* ctx, int, sqlite3_value**) noexcept {
  guard(ctx, "uuid4", [&] { result_uuid_text(ctx, new_uuid_v4()); });
}

void ulid_text(sqlite3_context* ctx, int, sqlite3_value**) noexcept {
  guard(ctx, "ulid", [&] {
    char text[Ulid::kTextSize];
    process_ulid().next().to_chars(text);
    sqlite3_result_text(ctx, text, sizeof text, SQLITE_TRANSIENT);
  });
}

}  // namespace idforge::sqlite
