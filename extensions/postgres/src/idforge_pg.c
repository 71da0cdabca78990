/* idforge for PostgreSQL: the C glue between the server and idforge's C ABI (idforge.h).
 *
 * idforge_snowflake() steps ONE generator per cluster: its state (last stamp and durable
 * mark) sits in shared memory; a call steps the stamp by compare-and-swap without a lock
 * while the mark and the lease's fence allow (fast_issue), and under an LWLock otherwise, so
 * IDs are strictly increasing across all backends and databases. Before it issues an ID whose tick
 * ends after the mark on disk
 * ($PGDATA/idforge_snowflake.mark), it writes a new mark idforge.reserve_ms ahead
 * (written, fsynced, renamed), and after a restart it resumes after that mark, so a crash
 * never makes it repeat an ID, even with the clock behind. The Snowflake rule itself is the
 * C ABI's idforge_snowflake_step_next (core's advance(), the same rule every face issues by),
 * and every encoder is a C ABI call too; the glue holds no rule of its own.
 *
 * With idforge.lease_store set, the node ID is leased instead (idforge_node_lease_*): a
 * background worker acquires it, publishes it with the store's mark and a fence into the
 * shared struct, renews it and releases it at shutdown; backends issue only below the fence.
 *
 * A fixed idforge.node travels with the data directory: pg_basebackup copies the mark file
 * and postgresql.conf, so a promoted standby or a restored backup would issue as the old
 * primary's node, which may still run. The mark therefore records the database system's
 * identifier and the timeline it was written on; a fixed node that finds its own node's mark
 * from another timeline or system refuses until it gets a node of its own or a superuser
 * accepts the mark (idforge_accept_mark(), once the old server no longer issues).
 */
#include "postgres.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "access/xlog.h"
#include "common/int.h"
#include "datatype/timestamp.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/json.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "idforge/idforge.h"
#include "idforge_pg_mask.h"

PG_MODULE_MAGIC;

#define MARK_FILE "idforge_snowflake.mark"
#define MARK_TMP_FILE "idforge_snowflake.mark.tmp"
/* After a restart the mark read from disk lies up to the reserve_ms in force when it was
 * written ahead of the last real ID, by design; that value is unknown now, so the first ID
 * waits up to max(reserve_ms, max_clock_wait_ms), never more than the settings' own top. */
#define STARTUP_WAIT_LIMIT_MS 60000
/* The lease worker: restarted this many seconds after it fails; after a lost lease or a
 * failed acquisition it tries again after LEASE_RETRY_MS, so an unreachable store is not
 * hammered and the state stays readable in the backends' errors meanwhile. */
#define LEASE_WORKER_RESTART_S 5
#define LEASE_RETRY_MS 2000
/* Room for a message on the stack and in shared memory (the worker's last error). */
#define IDF_ERR_SIZE 512
/* Room for a layout's canonical spec, as idforge_snowflake_rule.spec holds it. */
#define SPEC_SIZE 256

/* For a failed idforge call (status not IDFORGE_OK): its message, the calling thread's last
 * (idforge_last_error), into err (IDF_ERR_SIZE bytes), shortened the way the library shortens
 * any text, on a character boundary (a cut UTF-8 sequence would make PostgreSQL refuse the
 * whole ERROR for a client in another encoding). Returns whether the call failed. */
static bool take_error(idforge_status status, char* err) {
  const char* message;

  if (status == IDFORGE_OK) return false;
  message = idforge_last_error();
  if (idforge_quote(message, strlen(message), IDF_ERR_SIZE - 1, err, IDF_ERR_SIZE, NULL) !=
      IDFORGE_OK)
    snprintf(err, IDF_ERR_SIZE, "%s", idforge_status_name(status));
  return true;
}

/* Settings. */
static char* layout_setting = NULL;
static char* node_setting = NULL;
static char* lease_store_setting = NULL;
/* idforge.node was set (not its default): with a lease store, that node is registered. */
static bool node_given = false;
static int64 fixed_node = -1;
static int reserve_ms_setting = 1000;
static int max_clock_wait_ms_setting = 5000;

/* The layout and node, checked in the postmaster when preloaded. */
static idforge_snowflake_rule sf_params;

/* Where the lease worker stands (idforge.lease_store only). */
typedef enum LeaseState {
  LEASE_ACQUIRING = 0, /* no node ID yet */
  LEASE_HELD = 1,      /* node, mark and fence published */
  LEASE_LOST = 2,      /* the store gave the node ID away; acquiring again */
  LEASE_STOPPED = 3,   /* released at shutdown */
} LeaseState;

typedef struct IdforgeShared {
  LWLock* lock;
  bool loaded; /* mark read from disk since the cluster started */
  /* Last issued: tick << sequence_bits | sequence. Moved only by compare-and-swap (fast_issue
   * without the lock, the locked path with it) or, with the fast path off, under the lock. On
   * a cache line of its own, as the two fields below: every swap takes the stamp's line from
   * the other cores, and the read-mostly limit beside it would go with it. */
  char pad_before[PG_CACHE_LINE_SIZE];
  pg_atomic_uint64 stamp;
  char pad_stamp[PG_CACHE_LINE_SIZE - sizeof(pg_atomic_uint64)];
  /* The lock-free path (fast_issue): it may issue an ID whose tick ends by fast_limit_ms (the
   * mark on disk, and the lease's fence, both as the last locked issue found them); 0: off.
   * fast_epoch moves each time it is turned off, before what it relied on changes. */
  pg_atomic_uint64 fast_limit_ms;
  pg_atomic_uint32 fast_epoch;
  char pad_fast[PG_CACHE_LINE_SIZE];
  int64 mark_ms;                   /* on disk: every issued ID's tick ends by this */
  bool resumed;                    /* nothing issued since the mark was read from disk */
  int64 mark_node;                 /* the node the mark on disk records (-1: none recorded) */
  idforge_mark_origin mark_origin; /* where it was written (0, 0: not recorded) */
  idforge_snowflake_rule params;
  /* The lease, written by the worker under lock (idforge.lease_store only). */
  LeaseState lease_state;
  uint64 lease_gen;     /* bumped at each acquisition */
  uint64 applied_gen;   /* the acquisition params.node and stamp follow */
  uint64 lease_node;    /* the leased node ID */
  int64 lease_mark_ms;  /* the store's mark of earlier holders (IDFORGE_NO_UNIX_MS: none) */
  int64 lease_wait_ms;  /* how long a first ID waits for the clock to pass that mark */
  int64 fence_ms;       /* issue no ID whose tick ends at or after this */
  bool issued_on_lease; /* an ID was issued since the last acquisition */
  char lease_error[IDF_ERR_SIZE]; /* the last failure, for the backends' errors */
} IdforgeShared;

static IdforgeShared* shared = NULL;

/* Turns the lock-free path off before anything it relies on (the node, the fence, the mark,
 * the lease's state, the stamp's base) changes; the lock held. An issue that swapped its
 * stamp before this is covered by whoever reads the stamp after it; one that swaps after sees
 * the epoch moved and returns nothing (fast_issue). */
static void fast_off(void) {
  pg_atomic_write_u64(&shared->fast_limit_ms, 0);
  (void)pg_atomic_fetch_add_u32(&shared->fast_epoch, 1); /* a full barrier */
}
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

static void write_mark_file(int64 mark, const idforge_mark_origin* origin, int elevel);

/* In the postmaster as it exits (clean or immediate shutdown) or resets shared memory after
 * a backend crashed: every backend is gone, and every ID returned lies at or before the
 * shared stamp (a backend sets it before it returns the ID), so the mark can come down to
 * the end of that stamp's tick and the next start need not wait out the reserve window.
 * If the write fails, the old (higher) mark stays: only a longer wait. */
static void idforge_shmem_exit(int code, Datum arg) {
  int64 exact;

  if (shared == NULL || !shared->loaded || shared->resumed ||
      pg_atomic_read_u64(&shared->stamp) == 0 || shared->mark_ms == IDFORGE_NO_UNIX_MS)
    return;
  exact = shared->params.epoch_ms +
          (int64)((pg_atomic_read_u64(&shared->stamp) >> shared->params.sequence_bits) + 1) *
              shared->params.tick_ms -
          1;
  if (exact < shared->mark_ms) write_mark_file(exact, &shared->mark_origin, LOG);
}

static void idforge_shmem_startup(void) {
  bool found;

  if (prev_shmem_startup_hook) prev_shmem_startup_hook();
  LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
  shared = ShmemInitStruct("idforge", sizeof(IdforgeShared), &found);
  if (!found) {
    shared->lock = &(GetNamedLWLockTranche("idforge"))->lock;
    shared->loaded = false;
    pg_atomic_init_u64(&shared->stamp, 0);
    pg_atomic_init_u64(&shared->fast_limit_ms, 0);
    pg_atomic_init_u32(&shared->fast_epoch, 0);
    shared->mark_ms = IDFORGE_NO_UNIX_MS;
    shared->mark_node = -1;
    shared->mark_origin.system_id = 0;
    shared->mark_origin.timeline = 0;
    shared->mark_origin.backup_id = 0;
    shared->params = sf_params;
    shared->lease_state = LEASE_ACQUIRING;
    shared->lease_gen = 0;
    shared->applied_gen = 0;
    shared->lease_node = 0;
    shared->lease_mark_ms = IDFORGE_NO_UNIX_MS;
    shared->lease_wait_ms = 0;
    shared->fence_ms = 0;
    shared->issued_on_lease = false;
    shared->lease_error[0] = '\0';
  }
  LWLockRelease(AddinShmemInitLock);
  if (!IsUnderPostmaster) on_shmem_exit(idforge_shmem_exit, (Datum)0);
}

/* Never refuses (see _PG_init on check hooks); only records whether idforge.node was set, in
 * postgresql.conf or on the command line, rather than left at its default. */
static bool node_check(char** newval, void** extra, GucSource source) {
  node_given = source > PGC_S_DEFAULT;
  return true;
}

PGDLLEXPORT void idforge_lease_worker_main(Datum arg);

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
      &node_setting, "0", layout_context, 0, node_check, NULL, NULL);
  DefineCustomStringVariable(
      "idforge.lease_store",
      "Lease idforge_snowflake()'s node ID from this store (empty: idforge.node alone).",
      "As idforge --lease-store takes it: file:DIR, redis://host:port, etcd://host:port, "
      "static:N. With idforge.node set too, that node ID is registered in the store.",
      &lease_store_setting, "", layout_context, 0, NULL, NULL, NULL);
  DefineCustomIntVariable(
      "idforge.reserve_ms", "How far ahead of issued IDs the durable mark is written.",
      "Longer: fewer fsyncs; a restart may wait up to this long for the clock.",
      &reserve_ms_setting, 1000, 1, 60000, PGC_SIGHUP, GUC_UNIT_MS, NULL, NULL, NULL);
  DefineCustomIntVariable("idforge.max_clock_wait_ms",
                          "How long idforge_snowflake() waits for a clock behind its last ID.",
                          "Beyond it the call fails naming how far behind the clock is.",
                          &max_clock_wait_ms_setting, 5000, 0, 60000, PGC_SIGHUP, GUC_UNIT_MS, NULL,
                          NULL, NULL);
  idforge_mask_define_settings();
  MarkGUCPrefixReserved("idforge");

  if (!process_shared_preload_libraries_in_progress) return;

  /* In the postmaster: a node outside the layout stops the server from starting. */
  if (parse_node(node_setting, &node) != 0 ||
      take_error(idforge_snowflake_rule_make(layout_setting, node, unix_ms_now(), &sf_params),
                 err)) {
    if (parse_node(node_setting, &node) != 0)
      snprintf(err, sizeof(err), "node '%s' is not a whole number", node_setting);
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("idforge: idforge.layout = '%s', idforge.node = '%s': %s",
                           layout_setting, node_setting, err)));
  }

  if (lease_store_setting[0] != '\0') {
    BackgroundWorker worker;

    /* Its text reaches every refusal and idforge_status(): bytes that are not UTF-8 would
     * make those fail for a client in another encoding (the setting itself is not checked). */
    if (!pg_verify_mbstr(PG_UTF8, lease_store_setting, (int)strlen(lease_store_setting), true))
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("idforge: idforge.lease_store holds bytes that are not UTF-8"),
                      errhint("Write the lease store URL in UTF-8 (percent-encode other bytes).")));
    /* As idforge --node N --lease-store URL: the fixed node is registered in the store, so
     * a node configured twice is refused there rather than issued twice. */
    fixed_node = node_given ? node : -1;
    /* A setting that can never lease stops the server, as a bad idforge.node does, instead
     * of leaving the worker to retry it forever. */
    if (take_error(idforge_node_lease_check(lease_store_setting, sf_params.spec, fixed_node), err))
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("idforge: idforge.lease_store = '%s'%s: %s", lease_store_setting,
                             fixed_node >= 0 ? " with idforge.node set" : "", err),
                      errhint("A lease store URL as idforge --lease-store takes it: file:DIR, "
                              "redis://host:port, etcd://host:port or static:N?register=URL "
                              "(docs/LEASES.md), able to hand out a node ID of idforge.layout.")));
    memset(&worker, 0, sizeof(worker));
    worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
    /* A standby issues nothing: it takes no node ID until it is promoted. */
    worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
    worker.bgw_restart_time = LEASE_WORKER_RESTART_S;
    snprintf(worker.bgw_library_name, BGW_MAXLEN, "idforge");
    snprintf(worker.bgw_function_name, BGW_MAXLEN, "idforge_lease_worker_main");
    snprintf(worker.bgw_name, BGW_MAXLEN, "idforge lease worker");
    snprintf(worker.bgw_type, BGW_MAXLEN, "idforge lease worker");
    RegisterBackgroundWorker(&worker);
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
 * one written under another layout. */
static void load_mark(void) {
  char buf[1024];
  char err[IDF_ERR_SIZE];
  char spec[SPEC_SIZE];
  FILE* f;
  size_t n;
  int64 mark = IDFORGE_NO_UNIX_MS;
  int64 node = -1;
  idforge_mark_origin origin = {0, 0, 0};
  const idforge_snowflake_rule* p = &shared->params;

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
    if (take_error(idforge_snowflake_mark_parse(buf, n, &mark, spec, &node, &origin), err))
      ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
                      errmsg("idforge: \"%s\" in the data directory: %s", MARK_FILE, err),
                      errhint("Put the last mark (or a time after every issued ID, in Unix ms) "
                              "into it; never remove it while IDs from this cluster exist.")));
    /* The one-line form of earlier versions records no layout: taken as the current one. */
    if (spec[0] != '\0' && idforge_layout_same(spec, p->spec) != 1)
      ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                      errmsg("idforge_snowflake(): \"%s\" was written under layout '%s', but "
                             "idforge.layout is now '%s' ('%s'); nothing issued",
                             MARK_FILE, spec, layout_setting, p->spec),
                      errhint("%s", layout_hint)));
    /* The node and origin are judged when an ID is asked for (mark_verdict): only then,
     * outside recovery, is this server's timeline known. */
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
  shared->mark_node = node;
  shared->mark_origin = origin;
  fast_off();
  pg_atomic_write_u64(&shared->stamp, idforge_snowflake_resume_stamp(p, mark));
  shared->resumed = mark != IDFORGE_NO_UNIX_MS;
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
static void write_mark_file(int64 mark, const idforge_mark_origin* origin, int elevel) {
  char text[SPEC_SIZE + 128];
  size_t needed = 0;
  int len;
  int fd;

  if (idforge_snowflake_mark_format(&shared->params, mark, origin, text, sizeof(text), &needed) !=
      IDFORGE_OK) {
    elog(elevel, "idforge: the mark file's text: %s", idforge_last_error());
    return;
  }
  len = (int)(needed - 1);
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

/* This server's database system and timeline, outside recovery only. PostgreSQL 15 has no
 * ThisTimeLineID any more; GetWALInsertionTimeLine() is the timeline new WAL is written on,
 * read from shared memory, so every backend sees the one chosen at the end of recovery
 * (promotion or a restore's new timeline). It is valid, and fixed, once recovery has ended,
 * which is the only state in which anything here issues or writes the mark; the replay
 * timeline of GetXLogReplayRecPtr() is a standby's, and GetWALInsertionTimeLineIfSet()
 * arrived only in PostgreSQL 16. */
/* The base backup this data directory was started from: PostgreSQL renames the backup's
 * backup_label to backup_label.old when it starts from it, and the label names the backup's
 * start location and time, so its hash (FNV-1a, 64 bits; never 0) tells one copy from another
 * and from the primary, which has none (0). A base backup started as is, without
 * recovery.signal, replays to consistency and goes on on the primary's own timeline: only this
 * tells it from the primary. Read once per backend: the file is made before any backend runs. */
static uint64 backup_identity(void) {
  static bool known = false;
  static uint64 id = 0;
  FILE* f;
  int c;

  if (known) return id;
  f = AllocateFile("backup_label.old", "r");
  if (f == NULL) {
    if (errno != ENOENT)
      ereport(ERROR, (errcode_for_file_access(),
                      errmsg("idforge: could not read \"backup_label.old\": %m"),
                      errhint("It tells a server started from a base backup from the one the "
                              "backup was taken of: the server's user must be able to read it.")));
  } else {
    id = UINT64CONST(14695981039346656037);
    while ((c = fgetc(f)) != EOF) id = (id ^ (uint64)(unsigned char)c) * UINT64CONST(1099511628211);
    FreeFile(f);
    if (id == 0) id = 1;
  }
  known = true;
  return id;
}

static void current_origin(idforge_mark_origin* origin) {
  origin->system_id = GetSystemIdentifier();
  origin->timeline = GetWALInsertionTimeLine();
  origin->backup_id = backup_identity();
}

/* Whether the mark on disk lets a fixed node (no lease store) issue, outside recovery. */
typedef enum MarkVerdict {
  MARK_OURS = 0,       /* written here, by this node (or it records neither node nor origin) */
  MARK_OTHER_NODE = 1, /* written here, by another idforge.node: a changed setting */
  MARK_INHERITED = 2,  /* written by this node on another timeline, system or backup: a copy */
} MarkVerdict;

/* The lock held. An inherited mark of another node is this server's own fix (a node of its
 * own after a promotion or a restore): it issues after that mark, which keeps its IDs above
 * the ones it carries. */
static MarkVerdict mark_verdict(const idforge_mark_origin* here) {
  const bool inherited =
      shared->mark_origin.system_id != 0 && (shared->mark_origin.system_id != here->system_id ||
                                             shared->mark_origin.timeline != here->timeline ||
                                             shared->mark_origin.backup_id != here->backup_id);

  if (shared->mark_node < 0) return MARK_OURS;
  if ((uint64)shared->mark_node != shared->params.node)
    return inherited ? MARK_OURS : MARK_OTHER_NODE;
  return inherited ? MARK_INHERITED : MARK_OURS;
}

static const char* inherited_hint =
    "Give this server its own idforge.node (one no other generator of this layout uses) and "
    "restart it: it then issues after the mark. Or lease node IDs from idforge.lease_store. "
    "Only once the server that wrote the mark issues no more IDs (stopped for good, or rebuilt "
    "as a standby), a superuser keeps the node with SELECT idforge_accept_mark(); never remove "
    "\"" MARK_FILE "\" (docs/DATABASE.md).";

/* In a backend, the lock held, for a fixed node: refuses unless the mark is this server's. */
static void fixed_gate(void) {
  idforge_mark_origin here, was;
  int64 mark_node;
  MarkVerdict verdict;

  current_origin(&here);
  verdict = mark_verdict(&here);
  if (verdict == MARK_OURS) return;
  was = shared->mark_origin;
  mark_node = shared->mark_node;
  /* Nothing was issued: the next call reads the file again, so the operator's fix (a mark
   * removed for a new table, idforge_accept_mark() in another backend) is seen at once. */
  fast_off();
  shared->loaded = false;
  LWLockRelease(shared->lock);
  if (verdict == MARK_OTHER_NODE)
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("idforge_snowflake(): \"%s\" was written by node " INT64_FORMAT
                           ", but idforge.node is now %s; nothing issued",
                           MARK_FILE, mark_node, node_setting),
                    errhint("%s", layout_hint)));
  if (was.system_id == here.system_id && was.timeline == here.timeline)
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("idforge_snowflake(): the durable mark \"%s\" was written before this "
                    "data directory was started from a base backup (backup_label.old), on the "
                    "same timeline %u of database system " UINT64_FORMAT ": a copy of a running "
                    "server shares its node ID (idforge.node = %s), and both would issue the "
                    "same IDs; nothing issued",
                    MARK_FILE, here.timeline, here.system_id, node_setting),
             errhint("%s", inherited_hint)));
  ereport(
      ERROR,
      (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
       errmsg("idforge_snowflake(): the durable mark \"%s\" was written on timeline %u of "
              "database system " UINT64_FORMAT ", and this server is on timeline %u of "
              "database system " UINT64_FORMAT ": a promoted standby or a restored backup "
              "shares the old primary's node ID (idforge.node = %s), and both would issue "
              "the same IDs; nothing issued",
              MARK_FILE, was.timeline, was.system_id, here.timeline, here.system_id, node_setting),
       errhint("%s", inherited_hint)));
}

/* Writes the mark before an ID past the old one is returned, recording this server's
 * system and timeline; any failure is an ERROR. The lock held, outside recovery. */
static void persist_mark(int64 mark) {
  ErrorContextCallback context;
  idforge_mark_origin here;

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
  current_origin(&here);
  write_mark_file(mark, &here, ERROR);
  error_context_stack = context.previous;
  shared->mark_node = (int64)shared->params.node;
  shared->mark_origin = here;
}

/* Raises the ERROR for a backend that may not issue under the lease: state, node, store and
 * the worker's last error. Called without the lock; reads the error text racily (a log line). */
static void lease_refuse(LeaseState state, uint64 node, int64 fence_ms, int64 now_ms) {
  char last_error[IDF_ERR_SIZE];

  memcpy(last_error, (const char*)shared->lease_error, sizeof(last_error));
  last_error[sizeof(last_error) - 1] = '\0';
  /* Fenced with no failed renewal: the worker did not renew in time (stopped, stalled,
   * gone, or on a clock that differs from this backend's), not the store. */
  if (state == LEASE_HELD && last_error[0] == '\0')
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("idforge_snowflake(): fenced: node " UINT64_FORMAT
                    "'s lease in idforge.lease_store '%s' covers IDs up to Unix ms " INT64_FORMAT
                    " only (the clock reads " INT64_FORMAT
                    "), and the lease worker has not renewed it, though no renewal failed; "
                    "nothing issued",
                    node, lease_store_setting, fence_ms, now_ms),
             errhint("Check that the idforge lease worker runs (ps shows \"idforge lease "
                     "worker\") and is not stalled, and that the server's processes read the "
                     "same clock; issuing resumes after its next renewal.")));
  if (last_error[0] == '\0') snprintf(last_error, sizeof(last_error), "none");
  switch (state) {
    case LEASE_ACQUIRING:
      ereport(ERROR,
              (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
               errmsg("idforge_snowflake(): acquiring: no node ID leased yet from "
                      "idforge.lease_store '%s' (last error: %s); nothing issued",
                      lease_store_setting, last_error),
               errhint("The idforge lease worker retries every %d ms; if this lasts, make the "
                       "store reachable (see the server log).",
                       LEASE_RETRY_MS)));
      break;
    case LEASE_LOST:
      ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                      errmsg("idforge_snowflake(): lost: the lease on node " UINT64_FORMAT
                             " in idforge.lease_store '%s' is gone (%s); nothing issued",
                             node, lease_store_setting, last_error),
                      errhint("Another holder may use that node ID now. The idforge lease worker "
                              "acquires a node ID again within %d ms; retry then.",
                              LEASE_RETRY_MS)));
      break;
    case LEASE_STOPPED:
      ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                      errmsg("idforge_snowflake(): stopped: node " UINT64_FORMAT
                             " was released to idforge.lease_store '%s' (the server is "
                             "shutting down, or the lease worker was ended: it leases again "
                             "within %d s); nothing issued",
                             node, lease_store_setting, LEASE_WORKER_RESTART_S)));
      break;
    default:
      ereport(ERROR,
              (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
               errmsg("idforge_snowflake(): fenced: node " UINT64_FORMAT
                      "'s lease in idforge.lease_store '%s' covers IDs up to Unix ms " INT64_FORMAT
                      " only (the clock reads " INT64_FORMAT
                      "); renewals fail (last error: %s); nothing issued",
                      node, lease_store_setting, fence_ms, now_ms, last_error),
               errhint("Issuing resumes after the next successful renewal: make the store "
                       "reachable (see the server log).")));
  }
}

/* In a backend, the lock held: refuses unless the worker published a node ID whose fence
 * lies ahead; on a new acquisition, moves the generator to its node ID, resuming after
 * max(the file's mark, the store's mark). Returns the fence in *fence_ms. */
static void lease_gate(int64* fence_ms) {
  const LeaseState state = shared->lease_state;
  const uint64 node = shared->lease_node;
  const int64 fence = shared->fence_ms;
  const int64 now = unix_ms_now();

  if (state != LEASE_HELD || now >= fence) {
    LWLockRelease(shared->lock);
    lease_refuse(state, node, fence, now);
  }
  if (shared->applied_gen != shared->lease_gen) {
    const uint64 from_store =
        idforge_snowflake_resume_stamp(&shared->params, shared->lease_mark_ms);

    shared->params.node = node;
    /* The stamp never moves down: IDs keep increasing across a change of node ID too. */
    uint64 old = pg_atomic_read_u64(&shared->stamp);

    fast_off();
    /* A lock-free issue may still land between the read and the swap: raise by CAS. */
    while (from_store > old && !pg_atomic_compare_exchange_u64(&shared->stamp, &old, from_store)) {
    }
    if (from_store > old) {
      shared->resumed = true;
    }
    shared->applied_gen = shared->lease_gen;
  }
  *fence_ms = fence;
}

/* The common case without the lock: an ID of the current tick (or a later one the clock has
 * reached) whose tick ends by fast_limit_ms, so no mark needs writing and the lease's fence
 * allows it, taken by one compare-and-swap of the stamp, the same step the locked path takes
 * (idforge_snowflake_step_next). Everything else (a full tick, a clock behind, a new mark, a
 * lease change) returns false for the locked path to decide. Under 8 clients the LWLock made
 * backends queue and sleep; the swap only retries. */
static bool fast_issue(int64* id) {
  const uint32 epoch = pg_atomic_read_u32(&shared->fast_epoch);
  uint64 limit;
  int tries;

  pg_read_barrier();
  limit = pg_atomic_read_u64(&shared->fast_limit_ms);
  if (limit == 0) return false;
  for (tries = 0; tries < 16; tries++) { /* a failed swap means another issue succeeded */
    uint64 last = pg_atomic_read_u64(&shared->stamp);
    idforge_snowflake_step step;

    /* The limit as the mark: an ID past it asks for a new mark (new_mark_ms), which the
     * locked path writes; no wait allowed here. */
    idforge_snowflake_step_next(&shared->params, last, (int64)limit, unix_ms_now(), 0, 0, &step);
    if (step.kind != IDFORGE_STEP_ISSUE || step.new_mark_ms != IDFORGE_NO_UNIX_MS) return false;
    if (pg_atomic_compare_exchange_u64(&shared->stamp, &last, step.stamp)) {
      /* A full barrier: turned off since the limit was read, the ID may be past what the
       * turner-off relies on (a stamp read at shutdown, a new node): it is not returned. */
      if (pg_atomic_read_u32(&shared->fast_epoch) != epoch) return false;
      *id = step.id;
      return true;
    }
  }
  return false;
}

PG_FUNCTION_INFO_V1(pg_idforge_snowflake);
Datum pg_idforge_snowflake(PG_FUNCTION_ARGS) {
  idforge_snowflake_step step;
  int64 waited_ms = 0;
  int64 now_ms = 0;
  int64 wait_bound_ms = max_clock_wait_ms_setting;
  int64 mark_ms = IDFORGE_NO_UNIX_MS;
  int64 fence_ms = PG_INT64_MAX;
  const char* mark_source = MARK_FILE;
  bool resumed = false;
  uint64 last = 0;
  int64 fast_id = 0;

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
         errhint("%s", lease_store_setting[0] == '\0'
                           ? "Issue IDs on the primary. This standby carries the primary's "
                             "idforge.node and durable mark: promoted, it refuses to issue while "
                             "idforge.node is the primary's, since the old primary may still issue "
                             "with it. Give it its own idforge.node (or use idforge.lease_store) "
                             "before it is promoted (docs/DATABASE.md)."
                       : fixed_node >= 0
                           ? "Issue IDs on the primary. Promoted, this standby registers "
                             "idforge.node in idforge.lease_store, which refuses it while another "
                             "server holds it: give it its own idforge.node, or leave idforge.node "
                             "unset to lease a free one."
                           : "Issue IDs on the primary; promoted, this standby leases a node ID of "
                             "its own from idforge.lease_store.")));

  if (fast_issue(&fast_id)) PG_RETURN_INT64(fast_id);
  for (;;) {
    LWLockAcquire(shared->lock, LW_EXCLUSIVE);
    if (!shared->loaded) load_mark();
    if (lease_store_setting[0] != '\0')
      lease_gate(&fence_ms);
    else
      fixed_gate();
    resumed = shared->resumed;
    mark_ms = shared->mark_ms;
    /* For the messages: the mark a first ID resumes after may be the store's. */
    if (fence_ms != PG_INT64_MAX && shared->lease_mark_ms != IDFORGE_NO_UNIX_MS &&
        shared->lease_mark_ms > mark_ms) {
      mark_ms = shared->lease_mark_ms;
      mark_source = "the lease store's mark for this node ID";
    }
    wait_bound_ms = resumed ? Min(Max(Max(reserve_ms_setting, max_clock_wait_ms_setting),
                                      lease_store_setting[0] != '\0' ? shared->lease_wait_ms : 0),
                                  STARTUP_WAIT_LIMIT_MS)
                            : max_clock_wait_ms_setting;
    now_ms = unix_ms_now();
    last = pg_atomic_read_u64(&shared->stamp);
    idforge_snowflake_step_next(&shared->params, last, shared->mark_ms, now_ms, reserve_ms_setting,
                                wait_bound_ms, &step);
    if (step.kind == IDFORGE_STEP_ISSUE) {
      /* The lease's fence: the ID's whole tick must end before it (lease_keeper.hpp). */
      if (fence_ms != PG_INT64_MAX &&
          shared->params.epoch_ms + (int64)((step.stamp >> shared->params.sequence_bits) + 1) *
                                        shared->params.tick_ms >
              fence_ms) {
        LWLockRelease(shared->lock);
        lease_refuse(LEASE_HELD, shared->lease_node, fence_ms, now_ms);
      }
      if (step.new_mark_ms != IDFORGE_NO_UNIX_MS) {
        persist_mark(step.new_mark_ms);
        shared->mark_ms = step.new_mark_ms;
      }
      /* A lock-free issue may have taken the stamp meanwhile: step again from the new one
       * (the mark written stays ahead, as marks may). */
      if (!pg_atomic_compare_exchange_u64(&shared->stamp, &last, step.stamp)) {
        LWLockRelease(shared->lock);
        continue;
      }
      shared->resumed = false;
      shared->issued_on_lease = true;
      /* The gates passed and the mark is on disk: the lock-free path may issue up to the mark
       * and below the fence until something changes (fast_off). */
      pg_atomic_write_u64(
          &shared->fast_limit_ms,
          (uint64)Max(Min(shared->mark_ms, fence_ms == PG_INT64_MAX ? PG_INT64_MAX : fence_ms - 1),
                      0));
      LWLockRelease(shared->lock);
      PG_RETURN_INT64(step.id);
    }
    LWLockRelease(shared->lock);

    switch (step.kind) {
      case IDFORGE_STEP_WAIT:
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
          /* To the microsecond: the next tick of a full one is usually less than a
           * millisecond away, and sleeping whole milliseconds left the generator idle for the
           * rest of each one (a fifth of its IDs/s under 8 clients). */
          struct timespec ts;
          int64 nap_us;

          clock_gettime(CLOCK_REALTIME, &ts);
          nap_us =
              (now_ms + step.wait_ms) * 1000 - ((int64)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
          nap_us = Max(Min(nap_us, 50000), 1);
          pg_usleep((long)nap_us);
          waited_ms += (nap_us + 999) / 1000;
        }
        CHECK_FOR_INTERRUPTS();
        break;
      case IDFORGE_STEP_BEHIND:
        if (resumed)
          ereport(
              ERROR,
              (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
               errmsg("idforge_snowflake(): the clock (Unix ms " INT64_FORMAT ") is %lld ms "
                      "behind the durable mark " INT64_FORMAT " (Unix ms) in %s read at startup, "
                      "more than the %lld ms a first ID after a restart waits "
                      "(max(idforge.reserve_ms, idforge.max_clock_wait_ms), at most %d); "
                      "nothing issued",
                      now_ms, (long long)step.behind_ms, mark_ms, mark_source,
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
      case IDFORGE_STEP_EXHAUSTED:
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

/* After a promotion or a restore, keeping the node: makes a mark this node wrote on another
 * timeline or system this server's own, so idforge_snowflake() issues after it. Whether the
 * server that wrote it still issues cannot be seen from here: that is the operator's word,
 * hence superusers only (the script revokes it from PUBLIC) and a line in the server log. The
 * mark's time is kept, never lowered; only its system and timeline change. */
PG_FUNCTION_INFO_V1(pg_idforge_accept_mark);
Datum pg_idforge_accept_mark(PG_FUNCTION_ARGS) {
  idforge_mark_origin here, was;
  MarkVerdict verdict;
  int64 mark_ms, mark_node;
  char* answer;

  if (shared == NULL)
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("idforge_accept_mark() needs the idforge library loaded at server "
                           "start"),
                    errhint("Add idforge to shared_preload_libraries in postgresql.conf "
                            "(shared_preload_libraries = 'idforge') and restart the server.")));
  if (RecoveryInProgress())
    ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                    errmsg("idforge_accept_mark() cannot run on a server in recovery (a standby)"),
                    errhint("A standby issues nothing; after its promotion, give it its own "
                            "idforge.node, or accept the mark once the old primary issues no "
                            "more IDs.")));
  if (lease_store_setting[0] != '\0')
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("idforge_accept_mark(): idforge.lease_store is set: the store guards "
                           "a leased node ID, not the mark; nothing to accept")));
  current_origin(&here);
  LWLockAcquire(shared->lock, LW_EXCLUSIVE);
  if (!shared->loaded) load_mark();
  verdict = mark_verdict(&here);
  was = shared->mark_origin;
  mark_ms = shared->mark_ms;
  mark_node = shared->mark_node;
  if (verdict == MARK_INHERITED) persist_mark(mark_ms);
  LWLockRelease(shared->lock);

  if (verdict == MARK_OTHER_NODE)
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("idforge_accept_mark(): \"%s\" was written on this server by node " INT64_FORMAT
                    ", but idforge.node is now %s: a changed setting, not a copy; "
                    "nothing accepted",
                    MARK_FILE, mark_node, node_setting),
             errhint("%s", layout_hint)));
  if (verdict == MARK_OURS) {
    if (mark_ms == IDFORGE_NO_UNIX_MS)
      answer = psprintf("nothing to accept: there is no durable mark yet");
    else if (mark_node >= 0 && (uint64)mark_node != shared->params.node)
      answer = psprintf("nothing to accept: the durable mark of node " INT64_FORMAT
                        " was written on timeline %u of database system " UINT64_FORMAT
                        "; this server, node %s, issues after it with its own node ID",
                        mark_node, was.timeline, was.system_id, node_setting);
    else
      answer = psprintf(
          "nothing to accept: the durable mark is this server's (timeline %u "
          "of database system " UINT64_FORMAT ")",
          here.timeline, here.system_id);
    PG_RETURN_TEXT_P(cstring_to_text(answer));
  }
  ereport(LOG, (errmsg("idforge: the durable mark " INT64_FORMAT " of node %s, written on "
                       "timeline %u of database system " UINT64_FORMAT ", was accepted as this "
                       "server's (timeline %u of database system " UINT64_FORMAT ") by %s",
                       mark_ms, node_setting, was.timeline, was.system_id, here.timeline,
                       here.system_id, GetUserNameFromId(GetUserId(), false))));
  answer = psprintf(
      "accepted: the durable mark " INT64_FORMAT
      " (Unix ms) of node %s, written "
      "on timeline %u of database system " UINT64_FORMAT
      ", is now this server's "
      "(timeline %u of database system " UINT64_FORMAT "); idforge_snowflake() issues after it",
      mark_ms, node_setting, was.timeline, was.system_id, here.timeline, here.system_id);
  PG_RETURN_TEXT_P(cstring_to_text(answer));
}

/* The lease worker (idforge.lease_store set): holds the node ID's lease for the cluster.
 *
 * Renewal runs in this loop (idforge_node_lease_renew every third of the TTL, sooner after a
 * failure), not in the keeper's own thread: a thread inside a PostgreSQL process must never call
 * into the server, and this way none exists. Each result goes to the shared struct under the lock,
 * so a backend sees the fence of the last successful renewal, and nothing once the lease is lost.
 * At SIGTERM the fence goes to "stop" first, then the last issued tick is read and stored as the
 * node's mark when the lease is released. */
static void lease_publish(LeaseState state, const idforge_node_lease_info* info, const char* error,
                          bool acquired) {
  LWLockAcquire(shared->lock, LW_EXCLUSIVE);
  fast_off();
  shared->lease_state = state;
  if (info != NULL) {
    shared->fence_ms = info->lost ? 0 : info->fence_ms;
    if (acquired) {
      shared->lease_node = info->node;
      shared->lease_mark_ms = info->high_water_ms;
      shared->lease_wait_ms = info->reserve_ms + 1000;
      shared->issued_on_lease = false;
      shared->lease_gen++;
    }
  } else {
    shared->fence_ms = 0;
  }
  if (error != NULL) strlcpy(shared->lease_error, error, sizeof(shared->lease_error));
  LWLockRelease(shared->lock);
}

static void lease_wait(int64 ms) {
  (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, (long)Max(ms, 1),
                  PG_WAIT_EXTENSION);
  ResetLatch(MyLatch);
  if (ConfigReloadPending) {
    ConfigReloadPending = false;
    ProcessConfigFile(PGC_SIGHUP);
  }
}

void idforge_lease_worker_main(Datum arg) {
  char err[IDF_ERR_SIZE];
  idforge_node_lease* lease = NULL;
  idforge_node_lease_info info;
  int64 next_renew_ms = 0;

  pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
  pqsignal(SIGHUP, SignalHandlerForConfigReload);
  BackgroundWorkerUnblockSignals();

  while (!ShutdownRequestPending) {
    if (lease == NULL) {
      if (take_error(idforge_node_lease_acquire(lease_store_setting, shared->params.spec,
                                                fixed_node, &lease, &info),
                     err))
        lease = NULL;
      if (lease == NULL) {
        ereport(LOG, (errmsg("idforge lease worker: cannot lease a node ID from '%s': %s",
                             lease_store_setting, err)));
        LWLockAcquire(shared->lock, LW_EXCLUSIVE);
        /* "lost" stays until a node ID is held again: the backends say what happened. */
        fast_off();
        if (shared->lease_state != LEASE_LOST) shared->lease_state = LEASE_ACQUIRING;
        strlcpy(shared->lease_error, err, sizeof(shared->lease_error));
        shared->fence_ms = 0;
        LWLockRelease(shared->lock);
        lease_wait(LEASE_RETRY_MS);
        continue;
      }
      ereport(LOG, (errmsg("idforge lease worker: node " UINT64_FORMAT " leased from '%s'",
                           info.node, lease_store_setting)));
      lease_publish(LEASE_HELD, &info, "", true);
      next_renew_ms = unix_ms_now() + Max(info.ttl_ms / 3, 1);
    } else if (unix_ms_now() >= next_renew_ms) {
      if (!take_error(idforge_node_lease_renew(lease, &info), err)) {
        /* "" not NULL: a failure that has passed must not be named by a later refusal. */
        lease_publish(LEASE_HELD, &info, "", false);
        next_renew_ms = unix_ms_now() + Max(info.ttl_ms / 3, 1);
      } else if (info.lost) {
        ereport(LOG, (errmsg("idforge lease worker: node " UINT64_FORMAT
                             " lost in '%s': %s; issuing stopped",
                             info.node, lease_store_setting, err)));
        lease_publish(LEASE_LOST, &info, err, false);
        /* Lost: the store keeps nothing of ours to release; the keeper just goes. */
        (void)idforge_node_lease_release(lease, IDFORGE_NO_UNIX_MS);
        lease = NULL;
        lease_wait(LEASE_RETRY_MS);
        continue;
      } else {
        ereport(LOG,
                (errmsg("idforge lease worker: renewing node " UINT64_FORMAT " in '%s' failed: %s",
                        info.node, lease_store_setting, err)));
        lease_publish(LEASE_HELD, &info, err, false);
        next_renew_ms = unix_ms_now() + info.retry_ms;
      }
    }
    lease_wait(lease == NULL ? LEASE_RETRY_MS : next_renew_ms - unix_ms_now());
  }

  if (lease != NULL) {
    int64 last_ms = IDFORGE_NO_UNIX_MS;

    /* Fence first, then read: a backend checks the fence under the same lock before it
     * takes a stamp, so the stamp read here covers every ID issued under the lease. */
    LWLockAcquire(shared->lock, LW_EXCLUSIVE);
    fast_off();
    shared->lease_state = LEASE_STOPPED;
    shared->fence_ms = 0;
    if (shared->applied_gen == shared->lease_gen && shared->issued_on_lease)
      last_ms = shared->params.epoch_ms +
                (int64)(pg_atomic_read_u64(&shared->stamp) >> shared->params.sequence_bits) *
                    shared->params.tick_ms;
    LWLockRelease(shared->lock);
    if (take_error(idforge_node_lease_release(lease, last_ms), err))
      ereport(LOG, (errmsg("idforge lease worker: releasing node " UINT64_FORMAT
                           " to '%s' failed: %s; the store frees it after its TTL",
                           info.node, lease_store_setting, err)));
    else
      ereport(LOG, (errmsg("idforge lease worker: node " UINT64_FORMAT " released to '%s'",
                           info.node, lease_store_setting)));
  }
  /* 1, not 0: a worker ended on its own (pg_terminate_backend) comes back after
   * LEASE_WORKER_RESTART_S and leases again; at shutdown the postmaster restarts nothing. */
  proc_exit(1);
}

/* Appends `"key": value` to buf; value is an integer, or null when it equals none. */
static void json_int(StringInfo buf, const char* key, int64 value, int64 none) {
  appendStringInfo(buf, ", \"%s\": ", key);
  if (value == none)
    appendStringInfoString(buf, "null");
  else
    appendStringInfo(buf, INT64_FORMAT, value);
}

/* Appends `"key": "value"` with value in decimal, or null for 0. */
static void json_uint64_text(StringInfo buf, const char* key, uint64 value) {
  appendStringInfo(buf, ", \"%s\": ", key);
  if (value == 0)
    appendStringInfoString(buf, "null");
  else
    appendStringInfo(buf, "\"" UINT64_FORMAT "\"", value);
}

/* Appends `"key": "value"` (JSON-escaped), or null for NULL or an empty value. */
static void json_text(StringInfo buf, const char* key, const char* value) {
  appendStringInfo(buf, ", \"%s\": ", key);
  if (value == NULL || value[0] == '\0')
    appendStringInfoString(buf, "null");
  else
    escape_json(buf, value);
}

/* What the cluster's Snowflake generator stands on, for an operator: where the node ID comes
 * from and, with a lease store, the lease's state, node, fence, the store's mark and the
 * worker's last error; and whether an ID would be issued now, and if not why, so a monitor
 * need not wait for a refusal. The generator's step is a pure function
 * (idforge_snowflake_step_next): it runs here on a snapshot taken under the lock, changing nothing.
 */
PG_FUNCTION_INFO_V1(pg_idforge_status);
Datum pg_idforge_status(PG_FUNCTION_ARGS) {
  static const char* const state_names[] = {"acquiring", "held", "lost", "stopped"};
  StringInfoData buf;
  idforge_snowflake_rule params;
  idforge_snowflake_step step;
  LeaseState state;
  uint64 node, stamp;
  int64 fence_ms, store_mark_ms, mark_ms, now_ms, lease_wait_ms, wait_bound_ms, behind_ms = 0;
  bool leased = lease_store_setting != NULL && lease_store_setting[0] != '\0';
  bool ever_leased, pending_lease, resumed, standby = RecoveryInProgress();
  const char* state_word;
  char last_error[IDF_ERR_SIZE];
  char not_ready[IDF_ERR_SIZE + 128] = "";
  idforge_mark_origin here = {0, 0, 0}, mark_origin;
  int64 mark_node;
  MarkVerdict verdict = MARK_OURS;

  if (shared == NULL)
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("idforge_status() needs the idforge library loaded at server start"),
                    errhint("Add idforge to shared_preload_libraries in postgresql.conf "
                            "(shared_preload_libraries = 'idforge') and restart the server.")));
  LWLockAcquire(shared->lock, LW_EXCLUSIVE);
  /* As the first ID would: a mark file that cannot be read or was written under another
   * layout raises the same ERROR here as there; one of another node or origin is a reason
   * (not_ready), judged as fixed_gate() judges it. */
  if (!shared->loaded) load_mark();
  if (standby)
    here.system_id = GetSystemIdentifier(); /* the timeline is a standby's to change */
  else
    current_origin(&here);
  if (!standby && !leased) verdict = mark_verdict(&here);
  mark_node = shared->mark_node;
  mark_origin = shared->mark_origin;
  state = shared->lease_state;
  node = leased ? shared->lease_node : shared->params.node;
  fence_ms = shared->fence_ms;
  store_mark_ms = shared->lease_mark_ms;
  lease_wait_ms = shared->lease_wait_ms;
  mark_ms = shared->mark_ms;
  ever_leased = shared->lease_gen != 0;
  pending_lease = shared->applied_gen != shared->lease_gen;
  params = shared->params;
  stamp = pg_atomic_read_u64(&shared->stamp);
  resumed = shared->resumed;
  memcpy(last_error, (const char*)shared->lease_error, sizeof(last_error));
  LWLockRelease(shared->lock);
  now_ms = unix_ms_now();
  last_error[sizeof(last_error) - 1] = '\0';

  /* The step the next idforge_snowflake() would take, as it would take it (lease_gate). */
  if (leased && ever_leased && pending_lease) {
    const uint64 from_store = idforge_snowflake_resume_stamp(&params, store_mark_ms);

    params.node = node;
    if (from_store > stamp) {
      stamp = from_store;
      resumed = true;
    }
  }
  wait_bound_ms =
      resumed
          ? Min(Max(Max(reserve_ms_setting, max_clock_wait_ms_setting), leased ? lease_wait_ms : 0),
                STARTUP_WAIT_LIMIT_MS)
          : max_clock_wait_ms_setting;
  idforge_snowflake_step_next(&params, stamp, mark_ms, now_ms, reserve_ms_setting, wait_bound_ms,
                              &step);
  if (step.kind == IDFORGE_STEP_WAIT || step.kind == IDFORGE_STEP_BEHIND)
    behind_ms = step.behind_ms;

  if (!leased)
    state_word = "fixed";
  else if (standby)
    state_word = "standby"; /* the worker starts at promotion */
  else if (state == LEASE_HELD && now_ms >= fence_ms)
    state_word = "fenced"; /* as idforge_snowflake() says it: renewals failed past the fence */
  else
    state_word =
        (int)state >= 0 && (int)state < (int)lengthof(state_names) ? state_names[state] : "unknown";

  if (standby)
    snprintf(not_ready, sizeof(not_ready), "a server in recovery (a standby) issues no IDs");
  else if (verdict == MARK_INHERITED && mark_origin.system_id == here.system_id &&
           mark_origin.timeline == here.timeline)
    snprintf(not_ready, sizeof(not_ready),
             "the durable mark was written before this data directory was started from a base "
             "backup (backup_label.old), on the same timeline: a copy of a running server shares "
             "its node ID %s; give this server its own idforge.node or use idforge.lease_store, "
             "or, once the old server issues no more IDs, SELECT idforge_accept_mark()",
             node_setting);
  else if (verdict == MARK_INHERITED)
    snprintf(not_ready, sizeof(not_ready),
             "the durable mark was written on timeline %u of database system " UINT64_FORMAT
             ", and this server is on timeline %u of database system " UINT64_FORMAT
             ": a promoted standby or a restored backup shares the old primary's node ID %s; "
             "give this server its own idforge.node or use idforge.lease_store, or, once the "
             "old server issues no more IDs, SELECT idforge_accept_mark()",
             mark_origin.timeline, mark_origin.system_id, here.timeline, here.system_id,
             node_setting);
  else if (verdict == MARK_OTHER_NODE)
    snprintf(not_ready, sizeof(not_ready),
             "the durable mark was written by node " INT64_FORMAT ", but idforge.node is now %s",
             mark_node, node_setting);
  else if (leased && strcmp(state_word, "held") != 0)
    snprintf(not_ready, sizeof(not_ready), "the lease is %s%s%s", state_word,
             last_error[0] != '\0' ? ": " : "", last_error);
  else if (step.kind == IDFORGE_STEP_BEHIND)
    snprintf(not_ready, sizeof(not_ready),
             "the clock is %lld ms behind the last issued ID or the mark it resumes after, "
             "more than the %lld ms an ID waits for it",
             (long long)step.behind_ms, (long long)wait_bound_ms);
  else if (step.kind == IDFORGE_STEP_EXHAUSTED)
    snprintf(not_ready, sizeof(not_ready), "the time field of layout '%s' has run out",
             layout_setting);
  else if (step.kind == IDFORGE_STEP_BEFORE_EPOCH)
    snprintf(not_ready, sizeof(not_ready), "the clock reads before the epoch of layout '%s'",
             layout_setting);
  else if (leased && step.kind == IDFORGE_STEP_ISSUE &&
           params.epoch_ms + (int64)((step.stamp >> params.sequence_bits) + 1) * params.tick_ms >
               fence_ms)
    snprintf(not_ready, sizeof(not_ready), "the next ID's tick would end past the lease's fence");

  initStringInfo(&buf);
  appendStringInfoString(&buf, "{\"layout\": ");
  escape_json(&buf, layout_setting);
  appendStringInfo(&buf, ", \"ready\": %s", not_ready[0] == '\0' ? "true" : "false");
  json_text(&buf, "not_ready", not_ready);
  appendStringInfoString(&buf, ", \"node_from\": ");
  escape_json(&buf, leased ? "idforge.lease_store" : "idforge.node");
  appendStringInfoString(&buf, ", \"state\": ");
  escape_json(&buf, state_word);
  if (!leased) {
    appendStringInfo(&buf, ", \"node\": " UINT64_FORMAT, node);
    json_text(&buf, "lease_store", NULL);
  } else {
    /* No node ID before the first acquisition; a lost or stopped one is still named. */
    json_int(&buf, "node", ever_leased ? (int64)node : -1, -1);
    json_text(&buf, "lease_store", lease_store_setting);
    json_int(&buf, "fence_unix_ms", state == LEASE_HELD ? fence_ms : IDFORGE_NO_UNIX_MS,
             IDFORGE_NO_UNIX_MS);
    json_int(&buf, "store_mark_unix_ms", store_mark_ms, IDFORGE_NO_UNIX_MS);
    json_text(&buf, "last_error", last_error);
  }
  json_int(&buf, "mark_unix_ms", mark_ms, IDFORGE_NO_UNIX_MS);
  /* Where the mark was written and where this server runs (null: not recorded, or a
   * standby); system identifiers as strings, since they exceed 2^53. */
  json_int(&buf, "mark_node", mark_node, -1);
  json_uint64_text(&buf, "mark_system_identifier", mark_origin.system_id);
  json_int(&buf, "mark_timeline", (int64)mark_origin.timeline, 0);
  json_uint64_text(&buf, "system_identifier", here.system_id);
  json_int(&buf, "timeline", (int64)here.timeline, 0);
  json_uint64_text(&buf, "mark_backup", mark_origin.backup_id);
  json_uint64_text(&buf, "backup", here.backup_id);
  appendStringInfo(&buf, ", \"clock_behind_ms\": " INT64_FORMAT, behind_ms);
  appendStringInfo(&buf, ", \"now_unix_ms\": " INT64_FORMAT "}", now_ms);
  PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}

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
