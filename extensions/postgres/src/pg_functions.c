/* The stateless functions: UUIDv7 (with a time or an interval), UUIDv4, ULID, TypeID, the Snowflake
 * time, inspect (pg_internal.h lists the files). */
#include "pg_internal.h"

PG_FUNCTION_INFO_V1(pg_idforge_snowflake_time);
Datum pg_idforge_snowflake_time(PG_FUNCTION_ARGS) {
  int64 id = PG_GETARG_INT64(0);
  int64 unix_ms;
  idforge_snowflake_parts parts;
  char err[IDF_ERR_SIZE];

  if (take_error(idforge_snowflake_decompose(layout_setting, (uint64)id, &parts), err))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("idforge_snowflake_time(" INT64_FORMAT ") under layout '%s': %s", id,
                           layout_setting, err)));
  unix_ms = parts.unix_ms;
  {
    const int64 offset_us =
        (int64)(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * USECS_PER_SEC;
    int64 us;
    TimestampTz ts;

    if (pg_mul_s64_overflow(unix_ms, 1000, &us) || pg_sub_s64_overflow(us, offset_us, &ts) ||
        !IS_VALID_TIMESTAMP(ts))
      ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                      errmsg("idforge_snowflake_time(" INT64_FORMAT ") under layout '%s': its "
                             "time, Unix ms " INT64_FORMAT ", lies outside timestamptz's range "
                             "(4713 BC .. 294276 AD)",
                             id, layout_setting, unix_ms)));
    PG_RETURN_TIMESTAMPTZ(ts);
  }
}

/* PostgreSQL 18's uuidv7(): Unix ns, strictly ascending within this backend. */
static int64 real_time_ns_ascending(void) {
  static int64 previous_ns = 0;
  struct timespec ts;
  int64 ns;

  clock_gettime(CLOCK_REALTIME, &ts);
  ns = (int64)ts.tv_sec * 1000000000 + ts.tv_nsec;
  /* At least one step of the 12-bit sub-millisecond fraction (1 ms / 4096, rounded up)
   * past the last call, so the fraction, and with it the UUID, always increases. */
  if (previous_ns + 245 >= ns) ns = previous_ns + 245;
  previous_ns = ns;
  return ns;
}

static Datum uuidv7_of(int64 unix_ms, int64 sub_ms_ns) {
  pg_uuid_t* uuid = palloc(UUID_LEN);
  char err[IDF_ERR_SIZE];

  if (take_error(idforge_uuid7_at(unix_ms, (int32)sub_ms_ns, (idforge_uuid*)uuid->data), err))
    ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE), errmsg("uuidv7(): %s", err)));
  PG_RETURN_UUID_P(uuid);
}

PG_FUNCTION_INFO_V1(pg_idforge_uuidv7);
Datum pg_idforge_uuidv7(PG_FUNCTION_ARGS) {
  int64 ns = real_time_ns_ascending();

  return uuidv7_of(ns / 1000000, ns % 1000000);
}

PG_FUNCTION_INFO_V1(pg_idforge_uuidv7_interval);
Datum pg_idforge_uuidv7_interval(PG_FUNCTION_ARGS) {
  Interval* shift = PG_GETARG_INTERVAL_P(0);
  int64 ns = real_time_ns_ascending();
  TimestampTz ts;
  int64 us;
  const int64 unix_offset_us =
      (int64)(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * USECS_PER_SEC;

  ts = (TimestampTz)(ns / 1000) - unix_offset_us;
  {
    const TimestampTz now_ts = ts;
    const bool up = shift->month >= 0 && shift->day >= 0 && shift->time >= 0;
    const bool down = shift->month <= 0 && shift->day <= 0 && shift->time <= 0;
    bool bad = false;

    PG_TRY();
    {
      ts = DatumGetTimestampTz(DirectFunctionCall2(timestamptz_pl_interval, TimestampTzGetDatum(ts),
                                                   IntervalPGetDatum(shift)));
    }
    PG_CATCH();
    {
      FlushErrorState();
      bad = true;
    }
    PG_END_TRY();
    /* timestamptz_pl_interval() wraps around on a far interval instead of failing. */
    bad = bad || TIMESTAMP_NOT_FINITE(ts) || (up && ts < now_ts) || (down && ts > now_ts) ||
          pg_add_s64_overflow(ts, unix_offset_us, &us) || us < 0 ||
          us / 1000 > (int64)281474976710655;
    if (bad)
      ereport(
          ERROR,
          (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
           errmsg("uuidv7(interval '%s'): now shifted by it lies outside UUIDv7's 48-bit "
                  "Unix millisecond field (1970-01-01 .. 10889-08-02)",
                  DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(shift))))));
  }
  return uuidv7_of(us / 1000, (us % 1000) * 1000 + ns % 1000);
}

/* PostgreSQL 17's uuid_extract_timestamp(): v1 and v7 of the RFC 9562 variant, else NULL. */
PG_FUNCTION_INFO_V1(pg_idforge_uuid_extract_timestamp);
Datum pg_idforge_uuid_extract_timestamp(PG_FUNCTION_ARGS) {
  pg_uuid_t* uuid = PG_GETARG_UUID_P(0);
  const unsigned char* d = uuid->data;
  int version;
  uint64 tms;
  TimestampTz ts;

  if ((d[8] & 0xc0) != 0x80) PG_RETURN_NULL();
  version = d[6] >> 4;
  if (version == 1) {
    /* 100 ns intervals since 1582-10-15 */
    tms = ((uint64)(d[6] & 0x0f) << 56) | ((uint64)d[7] << 48) | ((uint64)d[4] << 40) |
          ((uint64)d[5] << 32) | ((uint64)d[0] << 24) | ((uint64)d[1] << 16) | ((uint64)d[2] << 8) |
          d[3];
    ts = (TimestampTz)(tms / 10) -
         ((int64)POSTGRES_EPOCH_JDATE - 2299161) * SECS_PER_DAY * USECS_PER_SEC;
    PG_RETURN_TIMESTAMPTZ(ts);
  }
  if (version == 7) {
    tms = ((uint64)d[0] << 40) | ((uint64)d[1] << 32) | ((uint64)d[2] << 24) |
          ((uint64)d[3] << 16) | ((uint64)d[4] << 8) | d[5];
    ts = (TimestampTz)(tms * 1000) -
         (int64)(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * USECS_PER_SEC;
    PG_RETURN_TIMESTAMPTZ(ts);
  }
  PG_RETURN_NULL();
}

/* PostgreSQL 17's uuid_extract_version(): the version of an RFC 9562 variant UUID. */
PG_FUNCTION_INFO_V1(pg_idforge_uuid_extract_version);
Datum pg_idforge_uuid_extract_version(PG_FUNCTION_ARGS) {
  pg_uuid_t* uuid = PG_GETARG_UUID_P(0);

  if ((uuid->data[8] & 0xc0) != 0x80) PG_RETURN_NULL();
  PG_RETURN_INT16((int16)(uuid->data[6] >> 4));
}

PG_FUNCTION_INFO_V1(pg_idforge_uuid4);
Datum pg_idforge_uuid4(PG_FUNCTION_ARGS) {
  pg_uuid_t* uuid = palloc(UUID_LEN);

  (void)idforge_make_uuid4((idforge_uuid*)uuid->data); /* fails only for NULL */
  PG_RETURN_UUID_P(uuid);
}

PG_FUNCTION_INFO_V1(pg_idforge_ulid);
Datum pg_idforge_ulid(PG_FUNCTION_ARGS) {
  char out[IDFORGE_ULID_TEXT_SIZE];
  char err[IDF_ERR_SIZE];
  idforge_ulid ulid;

  /* The library's process-wide generator: made on first use, in the backend (after the
   * postmaster's fork), and moved on by itself in a forked child. */
  if (take_error(idforge_make_ulid(&ulid), err) ||
      take_error(idforge_ulid_format(&ulid, out, sizeof(out)), err))
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE), errmsg("idforge_ulid(): %s", err)));
  PG_RETURN_TEXT_P(cstring_to_text(out));
}

PG_FUNCTION_INFO_V1(pg_idforge_typeid);
Datum pg_idforge_typeid(PG_FUNCTION_ARGS) {
  text* prefix = PG_GETARG_TEXT_PP(0);
  char out[IDFORGE_TYPEID_TEXT_SIZE];
  char err[IDF_ERR_SIZE];
  idforge_uuid uuid;

  if (take_error(idforge_make_uuid7(&uuid), err) ||
      take_error(idforge_typeid_format(VARDATA_ANY(prefix), VARSIZE_ANY_EXHDR(prefix), &uuid, out,
                                       sizeof(out)),
                 err))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("idforge_typeid(): %s", err)));
  PG_RETURN_TEXT_P(cstring_to_text(out));
}

PG_FUNCTION_INFO_V1(pg_idforge_inspect);
Datum pg_idforge_inspect(PG_FUNCTION_ARGS) {
  text* id = PG_GETARG_TEXT_PP(0);
  char err[IDF_ERR_SIZE];
  char* json;
  size_t needed = 0;
  idforge_status status;

  /* Asked for its size first: the JSON is palloc'd, so an ERROR while reading it leaks
   * nothing. */
  status = idforge_inspect_json(VARDATA_ANY(id), VARSIZE_ANY_EXHDR(id), layout_setting, NULL, 0,
                                &needed);
  if (status == IDFORGE_E_BUFFER_TOO_SMALL) {
    json = palloc(needed);
    status = idforge_inspect_json(VARDATA_ANY(id), VARSIZE_ANY_EXHDR(id), layout_setting, json,
                                  needed, NULL);
  }
  if (take_error(status, err))
    ereport(ERROR,
            (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION), errmsg("idforge_inspect(): %s", err)));
  PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}
