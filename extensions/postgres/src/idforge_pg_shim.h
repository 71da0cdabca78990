/* The C face of idforge's core for the PostgreSQL extension.
 *
 * PostgreSQL's server headers do not compile as C++, so the extension's glue
 * (idforge_pg.c) is C and reaches the C++ core through these functions only. None of them
 * lets a C++ exception out: each returns 0 on success and -1 on failure with a one-line
 * message (naming the value and the rule) in err, which the glue raises with ereport().
 *
 * The Snowflake functions are pure: the state (last stamp, durable mark) lives in the
 * caller's memory, which in the extension is one struct in shared memory behind an LWLock,
 * so every backend of a cluster steps the same generator and no fork can copy it.
 */
#ifndef IDFORGE_PG_SHIM_H
#define IDFORGE_PG_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Longest message the functions write into err (including the terminator). */
#define IDF_ERR_SIZE 512
/* Room for a layout's canonical spec (including the terminator). */
#define IDF_SPEC_SIZE 256
/* No mark persisted yet (as core's kNoUnixMs). */
#define IDF_NO_UNIX_MS INT64_MIN

/* A Snowflake layout and node ID, flattened to plain numbers (it lives in shared memory). */
typedef struct idf_sf_params {
  int sequence_bits;
  int time_shift;
  int node_shift;
  int sequence_shift;
  uint64_t max_tick;
  int64_t epoch_ms;
  int64_t tick_ms;
  uint64_t node;
  int is_signed;
  char spec[IDF_SPEC_SIZE]; /* the canonical spec (core's Layout::to_spec()) */
} idf_sf_params;

typedef enum idf_sf_kind {
  IDF_SF_ISSUE = 0,        /* id is issued; persist new_mark_ms first when it is set */
  IDF_SF_WAIT = 1,         /* wait wait_ms (the clock is behind or the tick is full) */
  IDF_SF_BEHIND = 2,       /* the clock is behind_ms behind, beyond max_wait_ms: refuse */
  IDF_SF_EXHAUSTED = 3,    /* the layout's time field has run out */
  IDF_SF_BEFORE_EPOCH = 4, /* the clock reads before the layout's epoch */
} idf_sf_kind;

typedef struct idf_sf_step {
  idf_sf_kind kind;
  uint64_t stamp;      /* ISSUE: the new state (tick << sequence_bits | sequence) */
  int64_t id;          /* ISSUE: the ID */
  int64_t new_mark_ms; /* ISSUE: IDF_NO_UNIX_MS, or the mark to persist before returning id */
  int64_t wait_ms;     /* WAIT: how long until the clock reaches the next usable tick */
  int64_t behind_ms;   /* WAIT / BEHIND: how far the clock is behind the last issued tick */
} idf_sf_step;

/* Parses a layout (a preset name or spec, as `idforge --layout` takes) and checks node
 * against it. now_ms: the clock (a layout's epoch must not lie after it). */
int idf_sf_prepare(const char* spec, int64_t node, int64_t now_ms, idf_sf_params* out, char* err);

/* The state to resume from after a mark: the last stamp of the tick holding mark_ms, so
 * the first ID is in the tick after it (core's issued_up_to_unix_ms rule). 0 when there is
 * no mark or it lies before the epoch. */
uint64_t idf_sf_resume_stamp(const idf_sf_params* p, int64_t mark_ms);

/* One step of core's Snowflake state machine (BasicSnowflakeGenerator::advance): the
 * next ID after last, given the clock (now_ms), the persisted mark (every issued ID's tick
 * ends at or before it), the reserve window and the bounded wait for a clock behind. */
void idf_sf_next(const idf_sf_params* p, uint64_t last, int64_t mark_ms, int64_t now_ms,
                 int64_t reserve_ms, int64_t max_wait_ms, idf_sf_step* out);

/* Where a mark was written: the database system's identifier and the WAL timeline the
 * server was on. A promoted standby or a restored backup carries its primary's mark file but
 * runs on a later timeline (a copy under another system is another system identifier), so
 * the pair tells a mark this server wrote from one it inherited. 0 in both: unknown (a mark
 * of an earlier version, which recorded neither). */
typedef struct idf_sf_origin {
  uint64_t system_id;
  uint32_t timeline;
} idf_sf_origin;

/* The mark file's text for mark_ms issued under p: the mark, then the layout's canonical
 * spec, the node, the system identifier and the timeline, each on a line of its own
 * ("1764547200999\nlayout name=...\nnode 5\nsystem 7301...\ntimeline 1\n"); an unknown
 * origin (NULL or system_id 0) leaves the last two lines out. Returns the length written
 * into out (size bytes), or -1 when it does not fit. */
int idf_sf_format_mark(const idf_sf_params* p, int64_t mark_ms, const idf_sf_origin* origin,
                       char* out, size_t size);

/* Parses the mark file's text: the format above; the form without system and timeline
 * (origin set to 0, 0: unknown); or the older one-line form (the mark alone), for which spec
 * is left empty, node set to -1 (no identity recorded) and origin to 0, 0. */
int idf_sf_parse_mark(const char* text, size_t len, int64_t* mark_ms, char spec[IDF_SPEC_SIZE],
                      int64_t* node, idf_sf_origin* origin, char* err);

/* 1 when the specs a and b parse to the same layout (fields, tick, epoch, order, sign; the
 * name aside), 0 when they differ or either does not parse. */
int idf_sf_same_layout(const char* a, const char* b);

/* Unix ms of the time field of id under the layout spec. */
int idf_sf_unix_ms(const char* spec, int64_t id, int64_t* unix_ms, char* err);

/* A UUIDv7 of unix_ms, with sub_ms_ns (0..999999) as its 12 bits of sub-millisecond
 * fraction (PostgreSQL 18's layout) and 62 random bits from core's CSPRNG. */
int idf_uuidv7(int64_t unix_ms, int64_t sub_ms_ns, unsigned char out[16], char* err);

/* A UUIDv4 from core's CSPRNG. */
void idf_uuid4(unsigned char out[16]);

/* A monotonic ULID (26 characters and a terminator) from this process's generator. */
int idf_ulid(char out[27], char* err);

/* A TypeID of prefix and a monotonic UUIDv7 of this process (out: 91 bytes at least). */
int idf_typeid(const char* prefix, size_t len, char* out, char* err);

/* What `idforge inspect --json` prints for text (Snowflakes read under spec), as a
 * malloc'd string the caller frees; NULL on error. */
char* idf_inspect_json(const char* text, size_t len, const char* spec, char* err);

#ifdef __cplusplus
}
#endif

#endif /* IDFORGE_PG_SHIM_H */
