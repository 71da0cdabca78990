/* idforge_snowflake(): the lease's gate, the lock-free path and the locked step
 * (pg_internal.h lists the files). */
#include "pg_internal.h"

#include <stdarg.h>

/* Every refusal of idforge_snowflake(): ERROR with sqlerrcode, the message (a printf format)
 * after the function's name, and hint (NULL: none). One helper, so each refusal is one call
 * that says only what differs. */
static void refuse(int sqlerrcode, const char* hint, const char* fmt, ...) pg_attribute_printf(3, 4)
    pg_attribute_noreturn();
static void refuse(int sqlerrcode, const char* hint, const char* fmt, ...) {
  StringInfoData msg;

  initStringInfo(&msg);
  appendStringInfoString(&msg, "idforge_snowflake(): ");
  for (;;) {
    va_list args;
    int needed;

    va_start(args, fmt);
    needed = appendStringInfoVA(&msg, fmt, args);
    va_end(args);
    if (needed == 0) break;
    enlargeStringInfo(&msg, needed);
  }
  if (hint != NULL)
    ereport(ERROR, (errcode(sqlerrcode), errmsg_internal("%s", msg.data), errhint("%s", hint)));
  ereport(ERROR, (errcode(sqlerrcode), errmsg_internal("%s", msg.data)));
  pg_unreachable();
}

#define NOT_READY ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE

/* Raises the ERROR for a backend that may not issue under the lease: state, node, store and
 * the worker's last error. Called without the lock; reads the error text racily (a log line). */
void lease_refuse(LeaseState state, uint64 node, int64 fence_ms, int64 now_ms) {
  char last_error[IDF_ERR_SIZE];

  memcpy(last_error, (const char*)shared->lease_error, sizeof(last_error));
  last_error[sizeof(last_error) - 1] = '\0';
  /* Fenced with no failed renewal: the worker did not renew in time (stopped, stalled,
   * gone, or on a clock that differs from this backend's), not the store. */
  if (state == LEASE_HELD && last_error[0] == '\0')
    refuse(NOT_READY,
           "Check that the idforge lease worker runs (ps shows \"idforge lease worker\") and is "
           "not stalled, and that the server's processes read the same clock; issuing resumes "
           "after its next renewal.",
           "fenced: node " UINT64_FORMAT
           "'s lease in idforge.lease_store '%s' covers IDs up to "
           "Unix ms " INT64_FORMAT " only (the clock reads " INT64_FORMAT
           "), and the lease worker has not renewed it, though no renewal failed; nothing issued",
           node, lease_store_setting, fence_ms, now_ms);
  if (last_error[0] == '\0') snprintf(last_error, sizeof(last_error), "none");
  switch (state) {
    case LEASE_ACQUIRING:
      refuse(NOT_READY,
             psprintf("The idforge lease worker retries every %d ms; if this lasts, make the "
                      "store reachable (see the server log).",
                      LEASE_RETRY_MS),
             "acquiring: no node ID leased yet from idforge.lease_store '%s' (last error: %s); "
             "nothing issued",
             lease_store_setting, last_error);
    case LEASE_LOST:
      refuse(NOT_READY,
             psprintf("Another holder may use that node ID now. The idforge lease worker "
                      "acquires a node ID again within %d ms; retry then.",
                      LEASE_RETRY_MS),
             "lost: the lease on node " UINT64_FORMAT
             " in idforge.lease_store '%s' is gone (%s); nothing issued",
             node, lease_store_setting, last_error);
    case LEASE_STOPPED:
      refuse(NOT_READY, NULL,
             "stopped: node " UINT64_FORMAT
             " was released to idforge.lease_store '%s' (the "
             "server is shutting down, or the lease worker was ended: it leases again within %d "
             "s); nothing issued",
             node, lease_store_setting, LEASE_WORKER_RESTART_S);
    default:
      refuse(NOT_READY,
             "Issuing resumes after the next successful renewal: make the store reachable (see "
             "the server log).",
             "fenced: node " UINT64_FORMAT
             "'s lease in idforge.lease_store '%s' covers IDs up "
             "to Unix ms " INT64_FORMAT " only (the clock reads " INT64_FORMAT
             "); renewals fail (last error: %s); nothing issued",
             node, lease_store_setting, fence_ms, now_ms, last_error);
  }
}

/* In a backend, the lock held: refuses unless the worker published a node ID whose fence
 * lies ahead; on a new acquisition, moves the generator to its node ID, resuming after
 * max(the file's mark, the store's mark). Returns the fence in *fence_ms. */
void lease_gate(int64* fence_ms) {
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
bool fast_issue(int64* id) {
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
      /* The lease's fence: the ID's whole tick must end by it (the library's rule). */
      if (!idforge_snowflake_fence_admits(&shared->params, step.stamp, fence_ms)) {
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
          refuse(NOT_READY, NULL,
                 "waited %lld ms for the clock, which is still %lld ms behind the durable "
                 "mark " INT64_FORMAT " (Unix ms) read at startup",
                 (long long)waited_ms, (long long)step.behind_ms, mark_ms);
        if (waited_ms > wait_bound_ms + 1000)
          refuse(NOT_READY, NULL,
                 "waited %lld ms for the clock, which is still %lld ms behind the last issued ID "
                 "(idforge.max_clock_wait_ms = %d)",
                 (long long)waited_ms, (long long)step.behind_ms, max_clock_wait_ms_setting);
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
          /* Whole milliseconds on the latch, as backend waits go: a cancel or a terminate
           * sets it and ends the wait at once, and pg_stat_activity shows the wait as the
           * extension's. The rest, under a millisecond (the latch counts whole ones), as a
           * plain sleep. */
          if (nap_us >= 1000) {
            (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
                            (long)(nap_us / 1000), PG_WAIT_EXTENSION);
            ResetLatch(MyLatch);
            CHECK_FOR_INTERRUPTS();
          }
          if (nap_us % 1000 != 0) pg_usleep((long)(nap_us % 1000));
          waited_ms += (nap_us + 999) / 1000;
        }
        CHECK_FOR_INTERRUPTS();
        break;
      case IDFORGE_STEP_BEHIND:
        if (resumed)
          refuse(NOT_READY,
                 "The mark lies up to idforge.reserve_ms ahead of the last ID by design; if the "
                 "clock is right, retry once it passes the mark. Never lower the mark.",
                 "the clock (Unix ms " INT64_FORMAT
                 ") is %lld ms behind the durable mark " INT64_FORMAT
                 " (Unix ms) in %s read at startup, more than the %lld ms a first "
                 "ID after a restart waits (max(idforge.reserve_ms, idforge.max_clock_wait_ms), "
                 "at most %d); nothing issued",
                 now_ms, (long long)step.behind_ms, mark_ms, mark_source, (long long)wait_bound_ms,
                 STARTUP_WAIT_LIMIT_MS);
        refuse(NOT_READY,
               "Fix the clock (NTP) or wait until it passes the mark; never lower the mark.",
               "the clock is %lld ms behind the last issued ID (or the durable mark in %s), more "
               "than idforge.max_clock_wait_ms = %d; nothing issued",
               (long long)step.behind_ms, MARK_FILE, max_clock_wait_ms_setting);
      case IDFORGE_STEP_EXHAUSTED:
        refuse(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE, NULL,
               "the time field of layout '%s' has run out (clock: Unix ms " INT64_FORMAT ")",
               layout_setting, now_ms);
      default:
        refuse(NOT_READY, NULL,
               "the clock reads Unix ms " INT64_FORMAT
               ", before the epoch of layout '%s' (Unix ms " INT64_FORMAT ")",
               now_ms, layout_setting, shared->params.epoch_ms);
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
