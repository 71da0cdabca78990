/* idforge_mask() and its family for PostgreSQL: public IDs from bigint and uuid keys and
 * back (docs/PUBLIC-IDS.md, docs/DATABASE.md), on the C ABI's keyrings and masking (idforge.h).
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

#include <stdlib.h>

#include "idforge/idforge.h"
#include "idforge_pg_mask.h"

static char* mask_key_file_setting = NULL;
/* Bumped each time the setting is assigned: at start, at every reload that carries it
 * (PostgreSQL assigns the file's settings again on each SIGHUP, changed or not), and by a
 * changed value; use_keys() reads the keyring again when it differs. */
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

/* The backend's keyring and the generation it was read under. A backend is one process with
 * one thread: no lock. */
static idforge_mask_keyring* keyring = NULL;
static uint64 keyring_generation = 0;

/* The SQLSTATE of a C ABI status; bad values of bigint functions are out of range. */
static int sqlstate_of(idforge_status status, bool bigint) {
  switch (status) {
    case IDFORGE_E_PARSE_ERROR:
      return ERRCODE_INVALID_TEXT_REPRESENTATION;
    case IDFORGE_E_INVALID_ARGUMENT:
      return bigint ? ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE : ERRCODE_INVALID_PARAMETER_VALUE;
    default:
      return ERRCODE_INVALID_PARAMETER_VALUE;
  }
}

/* Raises the calling thread's last idforge message for a failed call. */
static void fail(const char* function, idforge_status status, bool bigint) {
  ereport(ERROR, (errcode(sqlstate_of(status, bigint)),
                  errmsg("%s(): %s", function, idforge_last_error())));
}

static bool env_set(const char* name) {
  const char* v = getenv(name);
  return v != NULL && v[0] != '\0';
}

/* Loads the backend's keyring when the setting's generation moved; errors name the source. A
 * failed load keeps nothing, so the next call tries again. */
static const idforge_mask_keyring* use_keys(const char* function) {
  const bool from_file = mask_key_file_setting != NULL && mask_key_file_setting[0] != '\0';
  idforge_status status;

  if (keyring != NULL && keyring_generation == mask_key_generation) return keyring;
  idforge_mask_keyring_free(keyring);
  keyring = NULL;
  if (!from_file && !env_set("IDFORGE_MASK_KEY_FILE") && !env_set("IDFORGE_MASK_KEYS"))
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("%s(): no mask key: idforge.mask_key_file is empty and the server's "
                    "environment sets neither IDFORGE_MASK_KEY_FILE nor IDFORGE_MASK_KEYS",
                    function),
             errhint("Set idforge.mask_key_file in postgresql.conf (or with ALTER SYSTEM) to a "
                     "keyring file the server can read, then SELECT pg_reload_conf(); make a "
                     "key with `idforge mask --new-key ID` (docs/DATABASE.md).")));
  status = from_file ? idforge_mask_keyring_from_file(mask_key_file_setting, &keyring)
                     : idforge_mask_keyring_from_environment(&keyring);
  if (status != IDFORGE_OK)
    ereport(ERROR, (errcode(ERRCODE_CONFIG_FILE_ERROR),
                    errmsg("%s(): idforge.mask_key_file = '%s': %s", function,
                           from_file ? mask_key_file_setting : "", idforge_last_error()),
                    errhint("The server's user must be able to read the file; each line ID:SECRET "
                            "with 64 hex digits (docs/PUBLIC-IDS.md).")));
  keyring_generation = mask_key_generation;
  return keyring;
}

static idforge_public_alphabet alphabet_arg(const char* function, text* name) {
  idforge_public_alphabet a = IDFORGE_BASE58;
  idforge_status s = idforge_public_alphabet_parse(VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name), &a);

  if (s != IDFORGE_OK) fail(function, s, false);
  return a;
}

static idforge_mask_mode uuid_mode_arg(const char* function, text* name) {
  idforge_mask_mode m = IDFORGE_MASK_AUTO;
  idforge_status s = idforge_mask_mode_parse(VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name), 1, &m);

  if (s != IDFORGE_OK) fail(function, s, false);
  if (m == IDFORGE_MASK_U63)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("%s(): mode u63 masks bigint values; a UUID takes mode auto, u128 or v7",
                           function)));
  return m;
}

/* A bigint below 1 is outside u63 before it reaches the library, which takes it unsigned. */
static uint64 u63_arg(const char* function, int64 value, const char* verb) {
  if (value < 1)
    ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                    errmsg("%s(): cannot %s " INT64_FORMAT ": value outside 1..2^63-1", function,
                           verb, value)));
  return (uint64)value;
}

PG_FUNCTION_INFO_V1(pg_idforge_mask_keys);
Datum pg_idforge_mask_keys(PG_FUNCTION_ARGS) {
  char out[512];
  idforge_status status =
      idforge_mask_keyring_describe(use_keys("idforge_mask_keys"), out, sizeof(out), NULL);

  if (status != IDFORGE_OK) fail("idforge_mask_keys", status, false);
  PG_RETURN_TEXT_P(cstring_to_text(out));
}

PG_FUNCTION_INFO_V1(pg_idforge_mask_bigint);
Datum pg_idforge_mask_bigint(PG_FUNCTION_ARGS) {
  const char* fn = "idforge_mask";
  int64 value = PG_GETARG_INT64(0);
  idforge_public_alphabet alphabet = alphabet_arg(fn, PG_GETARG_TEXT_PP(1));
  int32 key_id = PG_GETARG_INT32(2);
  const idforge_mask_keyring* ring = use_keys(fn);
  char out[IDFORGE_PUBLIC_ID_TEXT_SIZE];
  idforge_status status =
      idforge_mask_public_u63(ring, key_id, u63_arg(fn, value, "mask"), alphabet, out, sizeof(out));

  if (status != IDFORGE_OK) fail(fn, status, true);
  PG_RETURN_TEXT_P(cstring_to_text(out));
}

PG_FUNCTION_INFO_V1(pg_idforge_mask_uuid);
Datum pg_idforge_mask_uuid(PG_FUNCTION_ARGS) {
  const char* fn = "idforge_mask";
  pg_uuid_t* value = PG_GETARG_UUID_P(0);
  idforge_mask_mode mode = uuid_mode_arg(fn, PG_GETARG_TEXT_PP(1));
  idforge_public_alphabet alphabet = alphabet_arg(fn, PG_GETARG_TEXT_PP(2));
  int32 key_id = PG_GETARG_INT32(3);
  const idforge_mask_keyring* ring = use_keys(fn);
  char out[IDFORGE_PUBLIC_ID_TEXT_SIZE];
  idforge_status status = idforge_mask_public_uuid(ring, key_id, mode, (const idforge_uuid*)value,
                                                   alphabet, out, sizeof(out));

  if (status != IDFORGE_OK) fail(fn, status, false);
  PG_RETURN_TEXT_P(cstring_to_text(out));
}

/* Reads a public ID; want_uuid says which SQL type the function returns, and an ID of the
 * other kind is refused with a hint naming the function that reads it. */
static void read_public(const char* fn, text* id, text* alphabet_name, bool want_uuid,
                        idforge_public_id* out) {
  idforge_public_alphabet alphabet = alphabet_arg(fn, alphabet_name);
  const idforge_mask_keyring* ring = use_keys(fn);
  idforge_status status =
      idforge_unmask_public(ring, VARDATA_ANY(id), VARSIZE_ANY_EXHDR(id), alphabet,
                            IDFORGE_MASK_AUTO, IDFORGE_MASK_KEY_PRIMARY, out);
  bool is_uuid;

  if (status != IDFORGE_OK) fail(fn, status, false);
  is_uuid = out->mode != IDFORGE_MASK_U63;
  if (is_uuid != want_uuid)
    ereport(ERROR,
            (errcode(ERRCODE_DATATYPE_MISMATCH),
             errmsg("%s(): public ID '%s' is of mode %s: it stands for %s", fn, text_to_cstring(id),
                    idforge_mask_mode_name((idforge_mask_mode)out->mode),
                    is_uuid ? "a uuid" : "a bigint"),
             errhint("idforge_unmask() reads public IDs of bigints, idforge_unmask_uuid() "
                     "those of UUIDs.")));
}

PG_FUNCTION_INFO_V1(pg_idforge_unmask_bigint);
Datum pg_idforge_unmask_bigint(PG_FUNCTION_ARGS) {
  idforge_public_id r;

  read_public("idforge_unmask", PG_GETARG_TEXT_PP(0), PG_GETARG_TEXT_PP(1), false, &r);
  PG_RETURN_INT64((int64)r.value);
}

PG_FUNCTION_INFO_V1(pg_idforge_unmask_uuid);
Datum pg_idforge_unmask_uuid(PG_FUNCTION_ARGS) {
  idforge_public_id r;
  pg_uuid_t* out = palloc(UUID_LEN);

  read_public("idforge_unmask_uuid", PG_GETARG_TEXT_PP(0), PG_GETARG_TEXT_PP(1), true, &r);
  memcpy(out->data, r.uuid.bytes, UUID_LEN);
  PG_RETURN_UUID_P(out);
}

static Datum bigint_raw(FunctionCallInfo fcinfo, const char* function, int unmask) {
  int64 value = PG_GETARG_INT64(0);
  int32 key_id = PG_GETARG_INT32(1);
  const idforge_mask_keyring* ring = use_keys(function);
  const uint64 v = u63_arg(function, value, unmask ? "unmask" : "mask");
  uint64 out = 0;
  idforge_status status =
      unmask ? idforge_unmask_u63(ring, key_id, v, &out) : idforge_mask_u63(ring, key_id, v, &out);

  if (status != IDFORGE_OK) fail(function, status, true);
  PG_RETURN_INT64((int64)out);
}

static Datum uuid_raw(FunctionCallInfo fcinfo, const char* function, int unmask) {
  pg_uuid_t* value = PG_GETARG_UUID_P(0);
  idforge_mask_mode mode = uuid_mode_arg(function, PG_GETARG_TEXT_PP(1));
  int32 key_id = PG_GETARG_INT32(2);
  const idforge_mask_keyring* ring = use_keys(function);
  pg_uuid_t* out = palloc(UUID_LEN);
  idforge_status status =
      unmask
          ? idforge_unmask_uuid(ring, key_id, mode, (const idforge_uuid*)value, (idforge_uuid*)out)
          : idforge_mask_uuid(ring, key_id, mode, (const idforge_uuid*)value, (idforge_uuid*)out);

  if (status != IDFORGE_OK) fail(function, status, false);
  PG_RETURN_UUID_P(out);
}

PG_FUNCTION_INFO_V1(pg_idforge_mask_raw_bigint);
Datum pg_idforge_mask_raw_bigint(PG_FUNCTION_ARGS) {
  return bigint_raw(fcinfo, "idforge_mask_raw", 0);
}

PG_FUNCTION_INFO_V1(pg_idforge_unmask_raw_bigint);
Datum pg_idforge_unmask_raw_bigint(PG_FUNCTION_ARGS) {
  return bigint_raw(fcinfo, "idforge_unmask_raw", 1);
}

PG_FUNCTION_INFO_V1(pg_idforge_mask_raw_uuid);
Datum pg_idforge_mask_raw_uuid(PG_FUNCTION_ARGS) {
  return uuid_raw(fcinfo, "idforge_mask_raw", 0);
}

PG_FUNCTION_INFO_V1(pg_idforge_unmask_raw_uuid);
Datum pg_idforge_unmask_raw_uuid(PG_FUNCTION_ARGS) {
  return uuid_raw(fcinfo, "idforge_unmask_raw", 1);
}
