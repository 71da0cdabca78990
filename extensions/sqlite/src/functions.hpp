// The SQL functions, as SQLite calls them; registered in extension.cpp with their flags.
#pragma once

#include "boundary.hpp"

namespace idforge::sqlite {

// generators.cpp: process-wide generators, shared by every connection and thread.
void uuid7_text(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept;
void uuid7_blob(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept;
void uuid4_text(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept;
void ulid_text(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept;

// conversions.cpp: pure functions of their arguments.
void uuid_str(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept;
void uuid_blob(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept;
void inspect_json(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept;

// snowflake.cpp: the node a connection issues Snowflake IDs with. Their user data is a
// heap-allocated std::shared_ptr<Connection> (new_connection / free_connection).
struct Connection;
void* new_connection_ref(void* shared_connection);
void* new_connection();
void free_connection_ref(void* ref) noexcept;
void set_node(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept;
void snowflake(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept;

// mask.cpp: public IDs with the connection's keyring. Their user data is a heap-allocated
// std::shared_ptr<MaskState> (new_mask_state / free_mask_state_ref), as the node's above.
struct MaskState;
void* new_mask_state();
void* new_mask_state_ref(void* shared_state);
void free_mask_state_ref(void* ref) noexcept;
void mask_keys(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept;
void mask(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept;
void unmask(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept;

}  // namespace idforge::sqlite
