/* The PostgreSQL extension's internals, shared by its source files (nothing here is
 * exported from idforge.so: its version script exports only what the server looks up).
 *   pg_init.c         settings, shared memory, _PG_init
 *   pg_mark.c         the durable mark file and the fixed node's gate
 *   pg_snowflake.c    idforge_snowflake(): the lease's gate, the lock-free path, the step
 *   pg_lease_worker.c the background worker that holds the node's lease
 *   pg_status.c       idforge_status()
 *   pg_functions.c    the stateless functions (UUIDv7, ULID, TypeID, inspect, times)
 */
#ifndef IDFORGE_PG_INTERNAL_H
#define IDFORGE_PG_INTERNAL_H

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

/* Settings. */
extern char* layout_setting;
extern char* node_setting;
extern char* lease_store_setting;
/* idforge.node was set (not its default): with a lease store, that node is registered. */
extern bool node_given;
extern int64 fixed_node;
extern int reserve_ms_setting;
extern int max_clock_wait_ms_setting;

/* The layout and node, checked in the postmaster when preloaded. */
extern idforge_snowflake_rule sf_params;

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

extern IdforgeShared* shared;

/* The mark's verdict on this server (mark_verdict()). */
/* Whether the mark on disk lets a fixed node (no lease store) issue, outside recovery. */
typedef enum MarkVerdict {
  MARK_OURS = 0,       /* written here, by this node (or it records neither node nor origin) */
  MARK_OTHER_NODE = 1, /* written here, by another idforge.node: a changed setting */
  MARK_INHERITED = 2,  /* written by this node on another timeline, system or backup: a copy */
} MarkVerdict;

extern const char* layout_hint;
extern const char* inherited_hint;
PGDLLEXPORT void idforge_lease_worker_main(Datum arg);
void _PG_init(void);

bool take_error(idforge_status status, char* err);
void fast_off(void);
int64 unix_ms_now(void);
int parse_node(const char* text, int64* node);
void load_mark(void);
void write_mark_file(int64 mark, const idforge_mark_origin* origin, int elevel);
uint64 backup_identity(void);
void current_origin(idforge_mark_origin* origin);
MarkVerdict mark_verdict(const idforge_mark_origin* here);
void fixed_gate(void);
void persist_mark(int64 mark);
void lease_refuse(LeaseState state, uint64 node, int64 fence_ms, int64 now_ms);
void lease_gate(int64* fence_ms);
bool fast_issue(int64* id);
void lease_publish(LeaseState state, const idforge_node_lease_info* info, const char* error,
                   bool acquired);

#endif
