/* idforge_status(): where the generator, its mark and its lease stand, as JSON (pg_internal.h lists
 * the files). */
#include "pg_internal.h"

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
