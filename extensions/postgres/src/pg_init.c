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

#include "pg_internal.h"

PG_MODULE_MAGIC;

/* Settings. */
char* layout_setting = NULL;
char* node_setting = NULL;
char* lease_store_setting = NULL;
/* idforge.node was set (not its default): with a lease store, that node is registered. */
bool node_given = false;
int64 fixed_node = -1;
int reserve_ms_setting = 1000;
int max_clock_wait_ms_setting = 5000;

/* The layout and node, checked in the postmaster when preloaded. */
idforge_snowflake_rule sf_params;

IdforgeShared* shared = NULL;

/* For a failed idforge call (status not IDFORGE_OK): its message, the calling thread's last
 * (idforge_last_error), into err (IDF_ERR_SIZE bytes), shortened the way the library shortens
 * any text, on a character boundary (a cut UTF-8 sequence would make PostgreSQL refuse the
 * whole ERROR for a client in another encoding). Returns whether the call failed. */
bool take_error(idforge_status status, char* err) {
  const char* message;

  if (status == IDFORGE_OK) return false;
  message = idforge_last_error();
  if (idforge_quote(message, strlen(message), IDF_ERR_SIZE - 1, err, IDF_ERR_SIZE, NULL) !=
      IDFORGE_OK)
    snprintf(err, IDF_ERR_SIZE, "%s", idforge_status_name(status));
  return true;
}

/* Turns the lock-free path off before anything it relies on (the node, the fence, the mark,
 * the lease's state, the stamp's base) changes; the lock held. An issue that swapped its
 * stamp before this is covered by whoever reads the stamp after it; one that swaps after sees
 * the epoch moved and returns nothing (fast_issue). */
void fast_off(void) {
  pg_atomic_write_u64(&shared->fast_limit_ms, 0);
  (void)pg_atomic_fetch_add_u32(&shared->fast_epoch, 1); /* a full barrier */
}

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

void _PG_init(void);

int64 unix_ms_now(void) {
  struct timespec ts;

  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int parse_node(const char* text, int64* node) {
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

void write_mark_file(int64 mark, const idforge_mark_origin* origin, int elevel);

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
