/* The C face of idforge's node-ID leases (idforge::coord) for the PostgreSQL extension.
 *
 * The extension's background worker holds one lease through these functions: it acquires a
 * node ID from a lease store (the URLs `idforge --lease-store` takes), renews it from its
 * own main loop and releases it when the server stops. Like idforge_pg_shim.h, no C++
 * exception gets out: each function returns 0 (or a handle) on success and -1 (or NULL) on
 * failure with a one-line message in err (IDF_ERR_SIZE bytes) naming the store.
 */
#ifndef IDFORGE_PG_LEASE_H
#define IDFORGE_PG_LEASE_H

#include <stdint.h>

#include "idforge_pg_shim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A held lease (a LeaseKeeper and its store); made by idf_lease_acquire, ended by
 * idf_lease_release. */
typedef struct idf_lease idf_lease;

/* What the worker publishes to the backends. */
typedef struct idf_lease_info {
  uint64_t node;         /* the leased node ID */
  int64_t high_water_ms; /* the store's mark of earlier holders; IDF_NO_UNIX_MS if none */
  int64_t fence_ms;      /* issue no ID whose tick ends at or after this; 0: stop */
  int64_t ttl_ms;        /* the store's TTL: renew every third of it */
  int64_t retry_ms;      /* pause after a failed renewal */
  int64_t reserve_ms;    /* how far ahead each renewal reserves the mark */
  int lost;              /* the store gave the node ID away: fenced for good */
} idf_lease_info;

/* Checks, without contacting the store, that url can ever lease a node ID of the layout
 * spec (fixed_node >= 0: exactly that one): its syntax, scheme and keys, dc= and a static
 * node against the layout, a fixed node against the store's range; and refuses a static: or
 * ordinal: store with neither state= nor register=, which would lock nothing, so two clusters
 * given the same node would issue the same IDs unseen. */
int idf_lease_check(const char* url, const char* spec, int64_t fixed_node, char* err);

/* Opens the store at url, acquires a node ID for the layout spec (fixed_node >= 0: exactly
 * that one, registered in the store, as `idforge --node N --lease-store URL`) and reserves
 * the first window. Renewal is the caller's: idf_lease_renew() every info->ttl_ms / 3. */
idf_lease* idf_lease_acquire(const char* url, const char* spec, int64_t fixed_node,
                             idf_lease_info* info, char* err);

/* One renewal. 0: renewed, info's fence moved on. -1: failed (err says why); the fence
 * stays where it was, or, when the store says the lease is gone, info->lost is set and the
 * fence is 0. */
int idf_lease_renew(idf_lease* lease, idf_lease_info* info, char* err);

/* Stores last_unix_ms (the start of the last tick any ID was issued in under this lease;
 * IDF_NO_UNIX_MS: none) as the node's mark and frees the node ID, then frees lease. The
 * caller has stopped every issuer first. -1 (lease freed all the same): the store could not
 * be told; its TTL frees the node ID and the reserved mark stays. */
int idf_lease_release(idf_lease* lease, int64_t last_unix_ms, char* err);

#ifdef __cplusplus
}
#endif

#endif /* IDFORGE_PG_LEASE_H */
