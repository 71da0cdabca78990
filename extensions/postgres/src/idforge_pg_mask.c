/* idforge_mask() and its family for PostgreSQL: public IDs from bigint and uuid keys and
 * back (docs/PUBLIC-IDS.md, docs/DATABASE.md), through the C++ shim idforge_pg_mask_shim.h.
 *
 * Keys never travel as SQL arguments (they would land in logs, pg_stat_statements and
 * history): the keyring comes from the file named by idforge.mask_key_file, or, when that
 * is empty, from the postmaster's environment (IDFORGE_MASK_KEY_FILE, IDFORGE_MASK_KEYS).
 * Each backend reads it at its first masking call and keeps it; a configuration reload
 * bumps a generation number, and the next call reads the file again, so a rotated keyring
 * takes effect with pg_reload_conf(), without a restart.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/uuid.h"

#include "idforge_pg_mask.h"
#include "idforge_pg_mask_shim.h"
#include "idforge_pg_shim.h"

static char* mask_key_file_setting = NULL;
/* Bumped each time the setting is assigned: at start, at every reload that carries it
 * (PostgreSQL assigns the file's settings again on each SIGHUP, changed or not), and by a
 * changed value; the shim reads the keyring again when it differs. */
static uint64 mask_key_generation = 0;

static void mask_key_file_assign(const char* newval, void* extra) {
  mask_key_generation++;
}

void idforge_mask_define_settings(void) {
  /* PGC_SIGHUP, not a restart: rotating keys (a new primary first in the file) must not
   * need downtime, and a reload is enough to make every backend read the file again.
   * SIGHUP also means it is set only in postgresql.conf or with ALTER SYSTEM, never with
   * SET in a session, so no role can point a session at another file (where an error
   * message could show a line of it). The path is no secret (the file's permissions guard
   * the keys, and idforge_mask_keys() names it), so it is not hidden from other roles. The
   * server's user reads the file: a relative path is relative to the data directory. */
  DefineCustomStringVariable(
      "idforge.mask_key_file",
      "Keyring file of idforge_mask() (ID:SECRET lines; empty: the server's environment).",
      "The first entry masks, every entry unmasks. Empty: IDFORGE_MASK_KEY_FILE or "
      "IDFORGE_MASK_KEYS in the postmaster's environment. Relative to the data directory.",
      &mask_key_file_setting, "", PGC_SIGHUP, 0, NULL, mask_key_file_assign, NULL);
}

/* The SQLSTATE of a shim status; bad values of bigint functions are out of range. */
static int sqlstate_of(int status, bool bigint) {
  switch (status) {
    case IDF_MASK_NO_KEY:
      return ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE;
    case IDF_MASK_BAD_TEXT:
      return ERRCODE_INVALID_TEXT_REPRESENTATION;
    case IDF_MASK_WRONG_KIND:
      return ERRCODE_DATATYPE_MISMATCH;
    case IDF_MASK_BAD_VALUE:
      return bigint ? ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE : ERRCODE_INVALID_PARAMETER_VALUE;
    default:
      return ERRCODE_INVALID_PARAMETER_VALUE;
  }
}

static void fail(const char* function, int status, bool bigint, const char* err) {
  if (status == IDF_MASK_WRONG_KIND)
    ereport(ERROR, (errcode(sqlstate_of(status, bigint)), errmsg("%s(): %s", function, err),
                    errhint("idforge_unmask() reads public IDs of bigints, idforge_unmask_uuid() "
                            "those of UUIDs.")));
  ereport(ERROR, (errcode(sqlstate_of(status, bigint)), errmsg("%s(): %s", function, err)));
}

/* Loads the backend's keyring when the setting's generation moved; errors name the source. */
static void use_keys(const char* function) {
  char err[IDF_ERR_SIZE];
  int status = idf_mask_load(mask_key_file_setting, mask_key_generation, err);

  if (status == IDF_MASK_OK) return;
  if (status == IDF_MASK_NO_KEY)
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE), errmsg("%s(): %s", function, err),
             errhint("Set idforge.mask_key_file in postgresql.conf (or with ALTER SYSTEM) to a "
                     "keyring file the server can read, then SELECT pg_reload_conf(); make a "
                     "key with `idforge mask --new-key ID` (docs/DATABASE.md).")));
  ereport(ERROR,
          (errcode(ERRCODE_CONFIG_FILE_ERROR),
           errmsg("%s(): idforge.mask_key_file = '%s': %s", function, mask_key_file_setting, err),
           errhint("The server's user must be able to read the file; each line ID:SECRET "
                   "with 64 hex digits (docs/PUBLIC-IDS.md).")));
}

PG_FUNCTION_INFO_V1(idforge_mask_keys);
Datum idforge_mask_keys(PG_FUNCTION_ARGS) {
  char out[IDF_ERR_SIZE];
  char err[IDF_ERR_SIZE];
  int status;

  use_keys("idforge_mask_keys");
  status = idf_mask_describe(out, sizeof(out), err);
  if (status != IDF_MASK_OK) fail("idforge_mask_keys", status, false, err);
  PG_RETURN_TEXT_P(cstring_to_text(out));
}

PG_FUNCTION_INFO_V1(idforge_mask_bigint);
Datum idforge_mask_bigint(PG_FUNCTION_ARGS) {
  int64 value = PG_GETARG_INT64(0);
  char* alphabet = text_to_cstring(PG_GETARG_TEXT_PP(1));
  int32 key_id = PG_GETARG_INT32(2);
  char out[IDF_PUBLIC_ID_SIZE];
  char err[IDF_ERR_SIZE];
  int status;

  use_keys("idforge_mask");
  status = idf_mask_bigint_public(value, alphabet, key_id, out, err);
  if (status != IDF_MASK_OK) fail("idforge_mask", status, true, err);
  PG_RETURN_TEXT_P(cstring_to_text(out));
}

PG_FUNCTION_INFO_V1(idforge_mask_uuid);
Datum idforge_mask_uuid(PG_FUNCTION_ARGS) {
  pg_uuid_t* value = PG_GETARG_UUID_P(0);
  char* mode = text_to_cstring(PG_GETARG_TEXT_PP(1));
  char* alphabet = text_to_cstring(PG_GETARG_TEXT_PP(2));
  int32 key_id = PG_GETARG_INT32(3);
  char out[IDF_PUBLIC_ID_SIZE];
  char err[IDF_ERR_SIZE];
  int status;

  use_keys("idforge_mask");
  status = idf_mask_uuid_public(value->data, mode, alphabet, key_id, out, err);
  if (status != IDF_MASK_OK) fail("idforge_mask", status, false, err);
  PG_RETURN_TEXT_P(cstring_to_text(out));
}

PG_FUNCTION_INFO_V1(idforge_unmask_bigint);
Datum idforge_unmask_bigint(PG_FUNCTION_ARGS) {
  text* id = PG_GETARG_TEXT_PP(0);
  char* alphabet = text_to_cstring(PG_GETARG_TEXT_PP(1));
  int64 out = 0;
  char err[IDF_ERR_SIZE];
  int status;

  use_keys("idforge_unmask");
  status = idf_unmask_public(VARDATA_ANY(id), VARSIZE_ANY_EXHDR(id), alphabet, 0, &out, NULL, err);
  if (status != IDF_MASK_OK) fail("idforge_unmask", status, false, err);
  PG_RETURN_INT64(out);
}

PG_FUNCTION_INFO_V1(idforge_unmask_uuid);
Datum idforge_unmask_uuid(PG_FUNCTION_ARGS) {
  text* id = PG_GETARG_TEXT_PP(0);
  char* alphabet = text_to_cstring(PG_GETARG_TEXT_PP(1));
  pg_uuid_t* out = palloc(UUID_LEN);
  char err[IDF_ERR_SIZE];
  int status;

  use_keys("idforge_unmask_uuid");
  status =
      idf_unmask_public(VARDATA_ANY(id), VARSIZE_ANY_EXHDR(id), alphabet, 1, NULL, out->data, err);
  if (status != IDF_MASK_OK) fail("idforge_unmask_uuid", status, false, err);
  PG_RETURN_UUID_P(out);
}

static Datum bigint_raw(FunctionCallInfo fcinfo, const char* function, int unmask) {
  int64 value = PG_GETARG_INT64(0);
  int32 key_id = PG_GETARG_INT32(1);
  int64 out = 0;
  char err[IDF_ERR_SIZE];
  int status;

  use_keys(function);
  status = idf_mask_bigint_raw(value, key_id, unmask, &out, err);
  if (status != IDF_MASK_OK) fail(function, status, true, err);
  PG_RETURN_INT64(out);
}

static Datum uuid_raw(FunctionCallInfo fcinfo, const char* function, int unmask) {
  pg_uuid_t* value = PG_GETARG_UUID_P(0);
  char* mode = text_to_cstring(PG_GETARG_TEXT_PP(1));
  int32 key_id = PG_GETARG_INT32(2);
  pg_uuid_t* out = palloc(UUID_LEN);
  char err[IDF_ERR_SIZE];
  int status;

  use_keys(function);
  status = idf_mask_uuid_raw(value->data, mode, key_id, unmask, out->data, err);
  if (status != IDF_MASK_OK) fail(function, status, false, err);
  PG_RETURN_UUID_P(out);
}

PG_FUNCTION_INFO_V1(idforge_mask_raw_bigint);
Datum idforge_mask_raw_bigint(PG_FUNCTION_ARGS) {
  return bigint_raw(fcinfo, "idforge_mask_raw", 0);
}

PG_FUNCTION_INFO_V1(idforge_unmask_raw_bigint);
Datum idforge_unmask_raw_bigint(PG_FUNCTION_ARGS) {
  return bigint_raw(fcinfo, "idforge_unmask_raw", 1);
}

PG_FUNCTION_INFO_V1(idforge_mask_raw_uuid);
Datum idforge_mask_raw_uuid(PG_FUNCTION_ARGS) {
  return uuid_raw(fcinfo, "idforge_mask_raw", 0);
}

PG_FUNCTION_INFO_V1(idforge_unmask_raw_uuid);
Datum idforge_unmask_raw_uuid(PG_FUNCTION_ARGS) {
  return uuid_raw(fcinfo, "idforge_unmask_raw", 1);
}
