/* idforge for PostgreSQL: the C glue between the server and idforge's core.
 *
 * idforge_snowflake() steps ONE generator per cluster: its state (last stamp and durable
 * mark) sits in shared memory behind an LWLock, so IDs are strictly increasing across all
 * backends and databases. Before it issues an ID whose tick ends after the mark on disk
 * ($PGDATA/idforge_snowflake.mark), it writes a new mark idforge.reserve_ms ahead
 * (written, fsynced, renamed), and after a restart it resumes after that mark, so a crash
 * never makes it repeat an ID, even with the clock behind. The Snowflake rules themselves
 * (core's advance()) and every encoder run in the C++ shim (idforge_pg_shim.h).
 */
#include "postgres.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "access/xlog.h"
#include "common/int.h"
#include "datatype/timestamp.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "idforge_pg_shim.h"

PG_MODULE_MAGIC;

#define MARK_FILE "idforge_snowflake.mark"
#define MARK_TMP_FILE "idforge_snowflake.mark.tmp"
/* After a restart the mark read from disk lies up to the reserve_ms in force when it was
 * written ahead of the last real ID, by design; that value is unknown now, so the first ID
 * waits up to max(reserve_ms, max_clock_wait_ms), never more than the settings' own top. */
#define STARTUP_WAIT_LIMIT_MS 60000

/* Settings. */
static char* layout_setting = NULL;
static char* node_setting = NULL;
static int reserve_ms_setting = 1000;
static int max_clock_wait_ms_setting = 5000;

/* The layout and node, checked in the postmaster when preloaded. */
static idf_sf_params sf_params;

typedef struct IdforgeShared {
  LWLock* lock;
  bool loaded;   /* mark read from disk since the cluster started */
  uint64 stamp;  /* last issued: tick << sequence_bits | sequence */
  int64 mark_ms; /* on disk: every issued ID's tick ends by this */
  bool resumed;  /* nothing issued since the mark was read from disk */
  idf_sf_params params;
} IdforgeShared;

static IdforgeShared* shared = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

void _PG_init(void);

static int64 unix_ms_now(void) {
  struct timespec ts;

  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int parse_node(const char* text, int64* node) {
  char* end = NULL;
  errno = 0;
  *node = strtoll(text, &end, 10);
  return (errno != 0 || end == text || *end != '\0') ? -1 : 0;
}

static void idforge_shmem_request(void) {
  if (prev_shmem_request_hook) prev_shmem_request_hook();
  RequestAddinShmemSpace(MAXALIGN(sizeof(IdforgeShared)));
  RequestNamedLWLockTranche("idforge", 1);
}

static void write_mark_file(int64 mark, int elevel);

/* In the postmaster as it exits (clean or immediate shutdown) or resets shared memory after
 * a backend crashed: every backend is gone, and every ID returned lies at or before the
 * shared stamp (a backend sets it before it returns the ID), so the mark can come down to
 * the end of that stamp's tick and the next start need not wait out the reserve window.
 * If the write fails, the old (higher) mark stays: only a longer wait. */
static void idforge_shmem_exit(int code, Datum arg) {
  int64 exact;

  if (shared == NULL || !shared->loaded || shared->resumed || shared->stamp == 0 ||
      shared->mark_ms == IDF_NO_UNIX_MS)
    return;
  exact = shared->params.epoch_ms +
          (int64)((shared->stamp >> shared->params.sequence_bits) + 1) * shared->params.tick_ms - 1;
  if (exact < shared->mark_ms) write_mark_file(exact, LOG);
}

static void idforge_shmem_startup(void) {
  bool found;

  if (prev_shmem_startup_hook) prev_shmem_startup_hook();
  LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
  shared = ShmemInitStruct("idforge", sizeof(IdforgeShared), &found);
  if (!found) {
    shared->lock = &(GetNamedLWLockTranche("idforge"))->lock;
    shared->loaded = false;
    shared->stamp = 0;
    shared->mark_ms = IDF_NO_UNIX_MS;
    shared->params = sf_params;
  }
  LWLockRelease(AddinShmemInitLock);
  if (!IsUnderPostmaster) on_shmem_exit(idforge_shmem_exit, (Datum)0);
}

void _PG_init(void) {
  char err[IDF_ERR_SIZE];
  int64 node = 0;
  /* idforge.layout has no check hook on purpose: PostgreSQL answers a value the hook rejects
   * while the library loads with a mere WARNING and keeps the default, so a typo would make
   * the decoders read every ID as twitter. The raw text is kept instead; _PG_init refuses
   * it in the postmaster, and each decoder refuses it on use, naming value and rule. */
  /* Layout and node are fixed while the shared generator runs (postmaster only). Loaded later
   * without preloading, PostgreSQL refuses to create such settings, and only the decoders
   * read them (idforge_snowflake() refuses), so there they may change on reload. */
  const GucContext layout_context =
      process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP;

  DefineCustomStringVariable(
      "idforge.layout", "Snowflake layout of idforge_snowflake(): a preset name or a spec.",
      "As idforge --layout takes it: twitter, discord, sonyflake, instagram, baidu, "
      "or key=value pairs such as time=41,dc=5,worker=5,seq=12.",
      &layout_setting, "twitter", layout_context, 0, NULL, NULL, NULL);
  /* Text, not an integer setting: while the server starts, PostgreSQL only warns about a
   * custom setting it cannot take and keeps the default, which would silently make a typo
   * node 0. As text every value arrives here, and a bad one stops the server below. */
  DefineCustomStringVariable(
      "idforge.node", "Node ID of this cluster in idforge_snowflake()'s IDs.",
      "Unique among every cluster (and other generator) issuing with the same layout.",
      &node_setting, "0", layout_context, 0, NULL, NULL, NULL);
  DefineCustomIntVariable(
      "idforge.reserve_ms", "How far ahead of issued IDs the durable mark is written.",
      "Longer: fewer fsyncs; a restart may wait up to this long for the clock.",
      &reserve_ms_setting, 1000, 1, 60000, PGC_SIGHUP, GUC_UNIT_MS, NULL, NULL, NULL);
  DefineCustomIntVariable("idforge.max_clock_wait_ms",
                          "How long idforge_snowflake() waits for a clock behind its last ID.",
                          "Beyond it the call fails naming how far behind the clock is.",
                          &max_clock_wait_ms_setting, 5000, 0, 60000, PGC_SIGHUP, GUC_UNIT_MS, NULL,
                          NULL, NULL);
  MarkGUCPrefixReserved("idforge");

  if (!process_shared_preload_libraries_in_progress) return;

  /* In the postmaster: a node outside the layout stops the server from starting. */
  if (parse_node(node_setting, &node) != 0 ||
      idf_sf_prepare(layout_setting, node, unix_ms_now(), &sf_params, err) != 0) {
    if (parse_node(node_setting, &node) != 0)
      snprintf(err, sizeof(err), "node '%s' is not a whole number", node_setting);
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("idforge: idforge.layout = '%s', idforge.node = '%s': %s",
                           layout_setting, node_setting, err)));
  }

  prev_shmem_request_hook = shmem_request_hook;
  shmem_request_hook = idforge_shmem_request;
  prev_shmem_startup_hook = shmem_startup_hook;
  shmem_startup_hook = idforge_shmem_startup;
}

static const char* layout_hint =
    "IDs of another layout or node can equal or sort below IDs already issued. Keep the old "
    "idforge.layout and idforge.node; or, only when no table will mix the old IDs with new "
    "ones (a new table, a new node), remove \"" MARK_FILE
    "\" from the data directory: the "
    "operator's decision, see docs/DATABASE.md.";

/* Reads the mark left by the last run of the cluster (none: a fresh cluster), and refuses
 * one written under another layout or node. */
static void load_mark(void) {
  char buf[1024];
  char err[IDF_ERR_SIZE];
  char spec[IDF_SPEC_SIZE];
  FILE* f;
  size_t n;
  int64 mark = IDF_NO_UNIX_MS;
  int64 node = -1;
  const idf_sf_params* p = &shared->params;

  f = AllocateFile(MARK_FILE, "r");
  if (f == NULL) {
    if (errno != ENOENT)
      ereport(ERROR,
              (errcode_for_file_access(), errmsg("idforge: could not read \"%s\": %m", MARK_FILE),
               errhint("The server's user must be able to read and write \"%s\" in the data "
                       "directory.",
                       MARK_FILE)));
  } else {
    n = fread(buf, 1, sizeof(buf) - 1, f);
    FreeFile(f);
    if (idf_sf_parse_mark(buf, n, &mark, spec, &node, err) != 0)
      ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
                      errmsg("idforge: \"%s\" in the data directory: %s", MARK_FILE, err),
                      errhint("Put the last mark (or a time after every issued ID, in Unix ms) "
                              "into it; never remove it while IDs from this cluster exist.")));
    /* The one-line form of earlier versions records no layout: taken as the current one. */
    if (spec[0] != '\0' && !idf_sf_same_layout(spec, p->spec))
      ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                      errmsg("idforge_snowflake(): \"%s\" was written under layout '%s', but "
                             "idforge.layout is now '%s' ('%s'); nothing issued",
                             MARK_FILE, spec, layout_setting, p->spec),
                      errhint("%s", layout_hint)));
    if (node >= 0 && (uint64)node != p->node)
      ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                      errmsg("idforge_snowflake(): \"%s\" was written by node " INT64_FORMAT
                             ", but idforge.node is now %s; nothing issued",
                             MARK_FILE, node, node_setting),
                      errhint("%s", layout_hint)));
    /* A mark past the layout's last tick: no ID can follow it. */
    if (mark >= p->epoch_ms && (uint64)((mark - p->epoch_ms) / p->tick_ms) > p->max_tick)
      ereport(
          ERROR,
          (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
           errmsg("idforge_snowflake(): the durable mark " INT64_FORMAT " (Unix ms) in \"%s\" "
                  "lies beyond the time range of layout '%s', which ends at Unix ms " INT64_FORMAT
                  "; nothing issued",
                  mark, MARK_FILE, layout_setting,
                  p->epoch_ms +
                      (int64)Min(p->max_tick, (uint64)(PG_INT64_MAX / p->tick_ms)) * p->tick_ms),
           errhint("A mark this far ahead was not written by idforge_snowflake(): put the "
                   "last real mark back into the file.")));
  }
  shared->mark_ms = mark;
  shared->stamp = idf_sf_resume_stamp(p, mark);
  shared->resumed = mark != IDF_NO_UNIX_MS;
  shared->loaded = true;
}

static void mark_write_context(void* arg) {
  errcontext(
      "idforge_snowflake() writing its durable mark \"%s\" in the data directory (the "
      "server's user must be able to write it)",
      MARK_FILE);
}

/* Writes mark durably: a temporary file, fsynced, renamed over the old one. At elevel
 * LOG (the postmaster's exit) a failure is logged and leaves the old file. */
static void write_mark_file(int64 mark, int elevel) {
  char text[IDF_SPEC_SIZE + 64];
  int len;
  int fd;

  len = idf_sf_format_mark(&shared->params, mark, text, sizeof(text));
  if (len < 0) {
    elog(elevel, "idforge: the mark file's text does not fit %zu bytes", sizeof(text));
    return;
  }
  fd = OpenTransientFile(MARK_TMP_FILE, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
  if (fd < 0) {
    ereport(elevel, (errcode_for_file_access(),
                     errmsg("idforge: could not create \"%s\": %m", MARK_TMP_FILE)));
    return;
  }
  errno = 0;
  if (write(fd, text, len) != len) {
    if (errno == 0) errno = ENOSPC;
    ereport(elevel, (errcode_for_file_access(),
                     errmsg("idforge: could not write \"%s\": %m", MARK_TMP_FILE)));
    CloseTransientFile(fd);
    return;
  }
  if (CloseTransientFile(fd) != 0) {
    ereport(elevel, (errcode_for_file_access(),
                     errmsg("idforge: could not close \"%s\": %m", MARK_TMP_FILE)));
    return;
  }
  /* fsyncs the file, renames it, fsyncs the directory */
  durable_rename(MARK_TMP_FILE, MARK_FILE, elevel);
}

/* Writes the mark before an ID past the old one is returned; any failure is an ERROR. */
static void persist_mark(int64 mark) {
  ErrorContextCallback context;

  /* durable_rename() opens the old file for fsync: say whose file it is when that fails. */
  if (access(MARK_FILE, W_OK) != 0 && errno != ENOENT)
    ereport(ERROR, (errcode_for_file_access(),
                    errmsg("idforge_snowflake(): cannot write its durable mark \"%s\" in the "
                           "data directory: %m; nothing issued",
                           MARK_FILE),
                    errhint("Give the server's user write access to \"%s\" (and the data "
                            "directory); never remove the file while IDs from this cluster exist.",
                            MARK_FILE)));
  context.callback = mark_write_context;
  context.arg = NULL;
  context.previous = error_context_stack;
  error_context_stack = &context;
  write_mark_file(mark, ERROR);
  error_context_stack = context.previous;
}

PG_FUNCTION_INFO_V1(idforge_snowflake);
Datum idforge_snowflake(PG_FUNCTION_ARGS) {
  idf_sf_step step;
  int64 waited_ms = 0;
  int64 now_ms = 0;
  int64 wait_bound_ms = max_clock_wait_ms_setting;
  int64 mark_ms = IDF_NO_UNIX_MS;
  bool resumed = false;

  if (shared == NULL)
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("idforge_snowflake() needs the idforge library loaded at server start"),
                    errhint("Add idforge to shared_preload_libraries in postgresql.conf "
                            "(shared_preload_libraries = 'idforge') and restart the server.")));
  if (RecoveryInProgress())
    ereport(
        ERROR,
        (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
         errmsg("idforge_snowflake() cannot issue IDs on a server in recovery (a standby)"),
         errhint(
             "Issue IDs on the primary; a promoted standby issues with its own idforge.node.")));

  for (;;) {
    LWLockAcquire(shared->lock, LW_EXCLUSIVE);
    if (!shared->loaded) load_mark();
    resumed = shared->resumed;
    mark_ms = shared->mark_ms;
    wait_bound_ms =
        resumed ? Min(Max(reserve_ms_setting, max_clock_wait_ms_setting), STARTUP_WAIT_LIMIT_MS)
                : max_clock_wait_ms_setting;
    now_ms = unix_ms_now();
    idf_sf_next(&shared->params, shared->stamp, shared->mark_ms, now_ms, reserve_ms_setting,
                wait_bound_ms, &step);
    if (step.kind == IDF_SF_ISSUE) {
      if (step.new_mark_ms != IDF_NO_UNIX_MS) {
        persist_mark(step.new_mark_ms);
        shared->mark_ms = step.new_mark_ms;
      }
      shared->stamp = step.stamp;
      shared->resumed = false;
      LWLockRelease(shared->lock);
      PG_RETURN_INT64(step.id);
    }
    LWLockRelease(shared->lock);

    switch (step.kind) {
      case IDF_SF_WAIT:
        /* Bounded: a clock behind waits at most the bound (above) in all. */
        if (waited_ms > wait_bound_ms + 1000 && resumed)
          ereport(ERROR,
                  (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                   errmsg("idforge_snowflake(): waited %lld ms for the clock, which is still %lld "
                          "ms behind the durable mark " INT64_FORMAT " (Unix ms) read at startup",
                          (long long)waited_ms, (long long)step.behind_ms, mark_ms)));
        if (waited_ms > wait_bound_ms + 1000)
          ereport(
              ERROR,
              (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
               errmsg("idforge_snowflake(): waited %lld ms for the clock, which is still %lld ms "
                      "behind the last issued ID (idforge.max_clock_wait_ms = %d)",
                      (long long)waited_ms, (long long)step.behind_ms, max_clock_wait_ms_setting)));
        {
          int64 nap = Min(step.wait_ms, 50);

          pg_usleep(nap * 1000L);
          waited_ms += nap;
        }
        CHECK_FOR_INTERRUPTS();
        break;
      case IDF_SF_BEHIND:
        if (resumed)
          ereport(
              ERROR,
              (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
               errmsg("idforge_snowflake(): the clock (Unix ms " INT64_FORMAT ") is %lld ms "
                      "behind the durable mark " INT64_FORMAT " (Unix ms) in %s read at startup, "
                      "more than the %lld ms a first ID after a restart waits "
                      "(max(idforge.reserve_ms, idforge.max_clock_wait_ms), at most %d); "
                      "nothing issued",
                      now_ms, (long long)step.behind_ms, mark_ms, MARK_FILE,
                      (long long)wait_bound_ms, STARTUP_WAIT_LIMIT_MS),
               errhint("The mark lies up to idforge.reserve_ms ahead of the last ID by design; "
                       "if the clock is right, retry once it passes the mark. Never lower the "
                       "mark.")));
        ereport(
            ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("idforge_snowflake(): the clock is %lld ms behind the last issued ID "
                    "(or the durable mark in %s), more than idforge.max_clock_wait_ms = %d; "
                    "nothing issued",
                    (long long)step.behind_ms, MARK_FILE, max_clock_wait_ms_setting),
             errhint(
                 "Fix the clock (NTP) or wait until it passes the mark; never lower the mark.")));
        break;
      case IDF_SF_EXHAUSTED:
        ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                        errmsg("idforge_snowflake(): the time field of layout '%s' has run "
                               "out (clock: Unix ms " INT64_FORMAT ")",
                               layout_setting, now_ms)));
        break;
      default:
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("idforge_snowflake(): the clock reads Unix ms " INT64_FORMAT
                               ", before the epoch of layout '%s' (Unix ms " INT64_FORMAT ")",
                               now_ms, layout_setting, shared->params.epoch_ms)));
    }
  }
}

PG_FUNCTION_INFO_V1(idforge_snowflake_time);
Datum idforge_snowflake_time(PG_FUNCTION_ARGS) {
  int64 id = PG_GETARG_INT64(0);
  int64 unix_ms;
  char err[IDF_ERR_SIZE];

  if (idf_sf_unix_ms(layout_setting, id, &unix_ms, err) != 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("idforge_snowflake_time(" INT64_FORMAT ") under layout '%s': %s", id,
                           layout_setting, err)));
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

  if (idf_uuidv7(unix_ms, sub_ms_ns, uuid->data, err) != 0)
    ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE), errmsg("uuidv7(): %s", err)));
  PG_RETURN_UUID_P(uuid);
}

PG_FUNCTION_INFO_V1(idforge_uuidv7);
Datum idforge_uuidv7(PG_FUNCTION_ARGS) {
  int64 ns = real_time_ns_ascending();

  return uuidv7_of(ns / 1000000, ns % 1000000);
}

PG_FUNCTION_INFO_V1(idforge_uuidv7_interval);
Datum idforge_uuidv7_interval(PG_FUNCTION_ARGS) {
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
PG_FUNCTION_INFO_V1(idforge_uuid_extract_timestamp);
Datum idforge_uuid_extract_timestamp(PG_FUNCTION_ARGS) {
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
PG_FUNCTION_INFO_V1(idforge_uuid_extract_version);
Datum idforge_uuid_extract_version(PG_FUNCTION_ARGS) {
  pg_uuid_t* uuid = PG_GETARG_UUID_P(0);

  if ((uuid->data[8] & 0xc0) != 0x80) PG_RETURN_NULL();
  PG_RETURN_INT16((int16)(uuid->data[6] >> 4));
}

PG_FUNCTION_INFO_V1(idforge_uuid4);
Datum idforge_uuid4(PG_FUNCTION_ARGS) {
  pg_uuid_t* uuid = palloc(UUID_LEN);

  idf_uuid4(uuid->data);
  PG_RETURN_UUID_P(uuid);
}

PG_FUNCTION_INFO_V1(idforge_ulid);
Datum idforge_ulid(PG_FUNCTION_ARGS) {
  char out[27];
  char err[IDF_ERR_SIZE];

  if (idf_ulid(out, err) != 0)
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE), errmsg("idforge_ulid(): %s", err)));
  PG_RETURN_TEXT_P(cstring_to_text(out));
}

PG_FUNCTION_INFO_V1(idforge_typeid);
Datum idforge_typeid(PG_FUNCTION_ARGS) {
  text* prefix = PG_GETARG_TEXT_PP(0);
  char out[128];
  char err[IDF_ERR_SIZE];

  if (idf_typeid(VARDATA_ANY(prefix), VARSIZE_ANY_EXHDR(prefix), out, err) != 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("idforge_typeid(): %s", err)));
  PG_RETURN_TEXT_P(cstring_to_text(out));
}

PG_FUNCTION_INFO_V1(idforge_inspect);
Datum idforge_inspect(PG_FUNCTION_ARGS) {
  text* id = PG_GETARG_TEXT_PP(0);
  char err[IDF_ERR_SIZE];
  char* json;
  Datum result;

  json = idf_inspect_json(VARDATA_ANY(id), VARSIZE_ANY_EXHDR(id), layout_setting, err);
  if (json == NULL)
    ereport(ERROR,
            (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION), errmsg("idforge_inspect(): %s", err)));
  PG_TRY();
  { result = DirectFunctionCall1(jsonb_in, CStringGetDatum(json)); }
  PG_FINALLY();
  { free(json); }
  PG_END_TRY();
  PG_RETURN_DATUM(result);
}
