/* The lease worker (pg_internal.h lists the files). */
#include "pg_internal.h"

/* The lease worker (idforge.lease_store set): holds the node ID's lease for the cluster.
 *
 * Renewal runs in this loop (idforge_node_lease_renew every third of the TTL, sooner after a
 * failure), not in the keeper's own thread: a thread inside a PostgreSQL process must never call
 * into the server, and this way none exists. Each result goes to the shared struct under the lock,
 * so a backend sees the fence of the last successful renewal, and nothing once the lease is lost.
 * At SIGTERM the fence goes to "stop" first, then the last issued tick is read and stored as the
 * node's mark when the lease is released. */
void lease_publish(LeaseState state, const idforge_node_lease_info* info, const char* error,
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
