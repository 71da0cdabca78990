/* The durable mark file: read at start, written ahead of the IDs, and the fixed node's gate on
 * where it was written (pg_internal.h lists the files). */
#include "pg_internal.h"

const char* layout_hint =
    "IDs of another layout or node can equal or sort below IDs already issued. Keep the old "
    "idforge.layout and idforge.node; or, only when no table will mix the old IDs with new "
    "ones (a new table, a new node), remove \"" MARK_FILE
    "\" from the data directory: the "
    "operator's decision, see docs/DATABASE.md.";

/* Reads the mark left by the last run of the cluster (none: a fresh cluster), and refuses
 * one written under another layout. */
void load_mark(void) {
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
void write_mark_file(int64 mark, const idforge_mark_origin* origin, int elevel) {
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
uint64 backup_identity(void) {
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

void current_origin(idforge_mark_origin* origin) {
  origin->system_id = GetSystemIdentifier();
  origin->timeline = GetWALInsertionTimeLine();
  origin->backup_id = backup_identity();
}

/* The lock held. An inherited mark of another node is this server's own fix (a node of its
 * own after a promotion or a restore): it issues after that mark, which keeps its IDs above
 * the ones it carries. */
MarkVerdict mark_verdict(const idforge_mark_origin* here) {
  const bool inherited =
      shared->mark_origin.system_id != 0 && (shared->mark_origin.system_id != here->system_id ||
                                             shared->mark_origin.timeline != here->timeline ||
                                             shared->mark_origin.backup_id != here->backup_id);

  if (shared->mark_node < 0) return MARK_OURS;
  if ((uint64)shared->mark_node != shared->params.node)
    return inherited ? MARK_OURS : MARK_OTHER_NODE;
  return inherited ? MARK_INHERITED : MARK_OURS;
}

const char* inherited_hint =
    "Give this server its own idforge.node (one no other generator of this layout uses) and "
    "restart it: it then issues after the mark. Or lease node IDs from idforge.lease_store. "
    "Only once the server that wrote the mark issues no more IDs (stopped for good, or rebuilt "
    "as a standby), a superuser keeps the node with SELECT idforge_accept_mark(); never remove "
    "\"" MARK_FILE "\" (docs/DATABASE.md).";

/* In a backend, the lock held, for a fixed node: refuses unless the mark is this server's. */
void fixed_gate(void) {
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
void persist_mark(int64 mark) {
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
