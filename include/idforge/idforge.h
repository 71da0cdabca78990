/* idforge.h: the C ABI of idforge (libidforge.so.1, symbol version IDFORGE_1).
 *
 * One surface for every language that is not C++: the Python package and the Node addon
 * sit on it. Pure C99; no C++ type crosses it and no C++ exception leaves it (every entry
 * point catches everything and turns it into a status code).
 *
 * Errors: every function that can fail returns an idforge_status (0 = IDFORGE_OK). The
 * codes 1..17 mirror idforge::errc one to one; idforge_last_error() returns the calling
 * thread's last message, the same words the idforge CLI prints (naming the value and the
 * rule). A successful call leaves the message of an earlier failure in place.
 *
 * Threads:
 *  - idforge_snowflake, idforge_uuid7_gen and idforge_ulid_gen handles may be shared by any
 *    number of threads: next/next_batch are lock-free (one atomic word each; the shared
 *    C++ generators sit behind them). Creating and freeing a handle are not: free it once,
 *    after every other thread is done with it.
 *  - idforge_make_uuid4, _uuid7, _ulid (no handle) are thread-safe: v4 reads the
 *    calling thread's CSPRNG, v7 and ULID take the next value of one process-wide
 *    generator each, so every UUIDv7 (ULID) the process makes through them is increasing.
 *  - An idforge_mask_keyring is immutable: one handle serves any number of threads at once
 *    (freeing it is not concurrent with its use).
 *  - idforge_last_error() is per thread.
 * Fork:
 *  - Random state (UUIDv4/v7, ULID) reseeds in a forked child before its first byte, and a
 *    v7/ULID generator inherited through fork() moves to a later millisecond with fresh
 *    bits: parent and child never share a value. Nothing to call.
 *  - A Snowflake handle inherited through fork() refuses in the child with
 *    IDFORGE_E_FORKED: its node ID belongs to the parent. idforge_snowflake_rebind() gives
 *    it a node of its own (a fixed one, or a new lease from the same store); call it in the
 *    child before any other thread uses the handle. A leased handle freed in a child does
 *    not touch the parent's lease. A rebind that fails leaves the handle without a node:
 *    every call but rebind and free answers IDFORGE_E_FORKED until a rebind succeeds.
 */
#ifndef IDFORGE_IDFORGE_H
#define IDFORGE_IDFORGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define IDFORGE_API __attribute__((visibility("default")))
#else
#define IDFORGE_API
#endif

/** ABI version: the number in the SONAME (libidforge.so.1). */
#define IDFORGE_ABI_VERSION 1

/** What a call did. 1..17 are idforge::errc's values; the rest belong to the C ABI. */
typedef enum idforge_status {
  IDFORGE_OK = 0,
  IDFORGE_E_INVALID_LAYOUT = 1,        /**< layout fields do not add up, or one is out of range */
  IDFORGE_E_EPOCH_IN_FUTURE = 2,       /**< a layout's epoch lies after the clock's now */
  IDFORGE_E_NODE_OUT_OF_RANGE = 3,     /**< node ID does not fit the layout's bits */
  IDFORGE_E_CLOCK_MOVED_BACKWARDS = 4, /**< clock behind the last issued tick beyond the wait */
  IDFORGE_E_CLOCK_BEFORE_EPOCH = 5,    /**< clock reads earlier than the layout's epoch */
  IDFORGE_E_TIME_EXHAUSTED = 6,        /**< the time field has no ticks left */
  IDFORGE_E_FORKED = 7,                /**< Snowflake used in a forked child before rebind */
  IDFORGE_E_FENCED = 8,                /**< lease renewals failing: issuing paused */
  IDFORGE_E_PARSE_ERROR = 9,           /**< text is not a valid ID, number or spec */
  IDFORGE_E_COUNTER_EXHAUSTED = 10,    /**< a counter ran out inside one tick (ULID), or a
                                         Snowflake's tick is used up and the next begins
                                         more than a second away (a layout with long ticks) */
  IDFORGE_E_LEASE_ERROR = 11,          /**< a node-ID lease could not be acquired or kept */
  IDFORGE_E_STORE_UNREACHABLE = 12,    /**< the lease store did not answer */
  IDFORGE_E_INVALID_ARGUMENT = 13,     /**< any other argument that breaks a stated rule */
  IDFORGE_E_NOT_FOUND = 14,
  IDFORGE_E_ALREADY_EXISTS = 15,
  IDFORGE_E_KEY_ERROR = 16,
  IDFORGE_E_NOT_OURS = 17,
  IDFORGE_E_BUFFER_TOO_SMALL = 100, /**< the output buffer is too small; *needed says how big */
  IDFORGE_E_OUT_OF_MEMORY = 101,
  IDFORGE_E_INTERNAL = 102 /**< an unexpected failure inside the library (a bug) */
} idforge_status;

/** The calling thread's last error message ("" if none). Valid until the thread's next
 *  failing call. Never NULL. */
IDFORGE_API const char* idforge_last_error(void);
/** A constant name for a status: "ok", "invalid_layout", ..., "unknown". Never NULL. */
IDFORGE_API const char* idforge_status_name(idforge_status status);
/** The library's version, e.g. "0.1.0". */
IDFORGE_API const char* idforge_version(void);

/* ---- UUIDs and ULIDs: 16-byte values in network order ---------------------------------- */

typedef struct idforge_uuid {
  uint8_t bytes[16];
} idforge_uuid;

typedef struct idforge_ulid {
  uint8_t bytes[16];
} idforge_ulid;

/** Room for the canonical UUID text (36 characters) and its NUL. */
#define IDFORGE_UUID_TEXT_SIZE 37
/** Room for a ULID's text (26 characters) and its NUL. */
#define IDFORGE_ULID_TEXT_SIZE 27

/** A version 4 UUID from the calling thread's CSPRNG. */
IDFORGE_API idforge_status idforge_make_uuid4(idforge_uuid* out);
/** The next UUIDv7 of the process-wide generator (RFC 9562 §6.2 method 1, 42-bit counter). */
IDFORGE_API idforge_status idforge_make_uuid7(idforge_uuid* out);
/** The next ULID of the process-wide monotonic generator. */
IDFORGE_API idforge_status idforge_make_ulid(idforge_ulid* out);

/** Writes the canonical lowercase text (8-4-4-4-12) and a NUL; size >= 37. */
IDFORGE_API idforge_status idforge_uuid_format(const idforge_uuid* id, char* out, size_t size);
/** Parses len bytes of text in any UUID form (canonical, 32 hex, {braced}, urn:uuid:);
 *  len > PTRDIFF_MAX is IDFORGE_E_INVALID_ARGUMENT. */
IDFORGE_API idforge_status idforge_uuid_parse(const char* text, size_t len, idforge_uuid* out);
/** Writes the 26 Crockford base32 characters and a NUL; size >= 27. */
IDFORGE_API idforge_status idforge_ulid_format(const idforge_ulid* id, char* out, size_t size);
/** Parses len bytes of text as a ULID (either case; I, L, O read as 1, 1, 0);
 *  len > PTRDIFF_MAX is IDFORGE_E_INVALID_ARGUMENT. */
IDFORGE_API idforge_status idforge_ulid_parse(const char* text, size_t len, idforge_ulid* out);

/* ---- UUIDv7 and ULID generators with a handle of their own ---------------------------- */

typedef struct idforge_uuid7_gen idforge_uuid7_gen;
typedef struct idforge_ulid_gen idforge_ulid_gen;

/** A new UUIDv7 generator on the system clock (thread-safe; see the top of this file). */
IDFORGE_API idforge_status idforge_uuid7_gen_new(idforge_uuid7_gen** out);
/** The next UUIDv7, greater than every one this handle returned before. */
IDFORGE_API idforge_status idforge_uuid7_gen_next(idforge_uuid7_gen* gen, idforge_uuid* out);
/** n increasing UUIDv7s into out[0..n). */
IDFORGE_API idforge_status idforge_uuid7_gen_next_batch(idforge_uuid7_gen* gen, idforge_uuid* out,
                                                        size_t n);
/** Frees the handle; NULL is ignored. */
IDFORGE_API void idforge_uuid7_gen_free(idforge_uuid7_gen* gen);

/** A new monotonic ULID generator on the system clock (thread-safe). */
IDFORGE_API idforge_status idforge_ulid_gen_new(idforge_ulid_gen** out);
/** The next ULID, greater than every one this handle returned before. */
IDFORGE_API idforge_status idforge_ulid_gen_next(idforge_ulid_gen* gen, idforge_ulid* out);
/** n increasing ULIDs into out[0..n). On an error nothing of the failing chunk is issued. */
IDFORGE_API idforge_status idforge_ulid_gen_next_batch(idforge_ulid_gen* gen, idforge_ulid* out,
                                                       size_t n);
/** Frees the handle; NULL is ignored. */
IDFORGE_API void idforge_ulid_gen_free(idforge_ulid_gen* gen);

/* ---- Snowflake ------------------------------------------------------------------------ */

typedef struct idforge_snowflake idforge_snowflake;

/** "No fixed node": pass as node to lease any free node ID from the store. */
#define IDFORGE_NODE_ANY (-1)

/** A Snowflake generator.
 *  layout: a preset ("twitter", "discord", "sonyflake", "instagram", "baidu") or a spec
 *          ("time=41,dc=5,worker=5,seq=12,epoch=..."), as `idforge gen snowflake --layout`;
 *          NULL means "twitter".
 *  node and lease_store:
 *    node >= 0, lease_store NULL   the fixed node ID, registered in the default lease folder
 *                                  as `idforge gen --node` registers it: "file:" + the folder
 *                                  IDFORGE_LEASE_DIR names, else .data/leases under the
 *                                  working directory (made if missing). Its lock refuses the
 *                                  node while another live process holds it, and its mark
 *                                  makes a restart with the clock behind wait or refuse
 *                                  instead of issuing again. An empty IDFORGE_LEASE_DIR, or one
 *                                  holding '?' or '&', is IDFORGE_E_INVALID_ARGUMENT.
 *    node < 0,  lease_store URL    any free node ID leased from the store
 *    node >= 0, lease_store URL    exactly that node ID, registered in the store (refused
 *                                  while another live process holds it)
 *  In one process at most one handle lives per node ID, whatever its layout or store (one
 *  layout spelled two ways, or two layouts that put the node's bits in the same place, make
 *  equal IDs): a second is IDFORGE_E_LEASE_ERROR naming the first ("held by a live generator
 *  of this process"); once the first is freed or released, a new handle on the node continues
 *  above the last tick it issued, under any layout (a layout with the same tick and time
 *  placement and an epoch d ms later starts d ms on: it waits, or refuses as a clock behind).
 *  Two layouts of the same tick and time placement whose node fields hold the same bits on
 *  different node numbers are IDFORGE_E_INVALID_ARGUMENT naming both.
 *  lease_store takes the URLs of `idforge serve --lease`: file:DIR, redis://HOST:PORT,
 *  etcd://HOST:PORT[,...], static:N?state=DIR, ordinal:HOST?state=DIR (docs/LEASES.md; a
 *  static: or ordinal: URL with neither state= nor register= locks its node nowhere and is
 *  refused, IDFORGE_E_INVALID_ARGUMENT). A leased
 *  handle renews in a background thread, waits out the stored high-water mark at start
 *  (bounded; else IDFORGE_E_CLOCK_MOVED_BACKWARDS) and releases the node ID when freed. */
IDFORGE_API idforge_status idforge_snowflake_new(const char* layout, int64_t node,
                                                 const char* lease_store, idforge_snowflake** out);
/** The next ID: strictly greater than every ID this handle returned before, on any thread.
 *  May wait (bounded) for the next tick or a clock step back: for the next tick at most one
 *  second, else IDFORGE_E_COUNTER_EXHAUSTED naming the wait (call again after it). */
IDFORGE_API idforge_status idforge_snowflake_next(idforge_snowflake* gen, uint64_t* out);
/** Fills out[0..n) with consecutive IDs. *written (may be NULL) says how many are valid,
 *  also when the call fails part-way. Its waits for the next ticks together last at most one
 *  second: a batch that needs longer (more IDs than the layout issues in a second) stops
 *  there with IDFORGE_E_COUNTER_EXHAUSTED, the IDs written so far valid. */
IDFORGE_API idforge_status idforge_snowflake_next_batch(idforge_snowflake* gen, uint64_t* out,
                                                        size_t n, size_t* written);
/** The node ID the handle issues with. */
IDFORGE_API idforge_status idforge_snowflake_node(const idforge_snowflake* gen, uint64_t* out);
/** The layout as a spec that idforge_snowflake_new accepts back (NUL-terminated). On
 *  IDFORGE_E_BUFFER_TOO_SMALL *needed (may be NULL) says how many bytes it takes; out NULL
 *  with size 0 asks for that, out NULL with size > 0 is IDFORGE_E_INVALID_ARGUMENT. */
IDFORGE_API idforge_status idforge_snowflake_layout(const idforge_snowflake* gen, char* out,
                                                    size_t size, size_t* needed);
/** In a forked child: give the handle a node ID of its own. A fixed handle takes node (>= 0,
 *  registered in the same folder as before); a leased handle takes a new lease from its
 *  store (node < 0: any free one; >= 0: exactly that one). In the parent this fails with
 *  IDFORGE_E_INVALID_ARGUMENT. Not safe against concurrent calls on the same handle. */
IDFORGE_API idforge_status idforge_snowflake_rebind(idforge_snowflake* gen, int64_t node);
/** The handle stops issuing and gives its node ID back now, storing its last issued time as
 *  the high-water mark; later next() calls fail (IDFORGE_E_LEASE_ERROR, "was released"). */
IDFORGE_API idforge_status idforge_snowflake_release(idforge_snowflake* gen);
/** Frees the handle (a leased one releases its node ID; errors are dropped: call
 *  idforge_snowflake_release first to see them). NULL is ignored. */
IDFORGE_API void idforge_snowflake_free(idforge_snowflake* gen);

/** The fields of a Snowflake under a layout. */
typedef struct idforge_snowflake_parts {
  uint64_t tick;       /**< ticks since the layout's epoch */
  int64_t unix_ms;     /**< epoch + tick * tick length */
  uint64_t datacenter; /**< 0 when the layout has no datacenter bits */
  uint64_t worker;
  uint64_t node; /**< datacenter and worker together */
  uint64_t sequence;
} idforge_snowflake_parts;

/** Splits id under layout (NULL: "twitter"). */
IDFORGE_API idforge_status idforge_snowflake_decompose(const char* layout, uint64_t id,
                                                       idforge_snowflake_parts* out);
/** Packs parts->tick, node and sequence under layout (NULL: "twitter"); each must fit its
 *  bits (IDFORGE_E_INVALID_ARGUMENT naming the field). unix_ms, datacenter, worker ignored. */
IDFORGE_API idforge_status idforge_snowflake_compose(const char* layout,
                                                     const idforge_snowflake_parts* parts,
                                                     uint64_t* out);

/* ---- inspect -------------------------------------------------------------------------- */

/** What `idforge inspect --json` prints for text (NUL-terminated JSON object): kind,
 *  canonical form, time and every decoded field, plus a warning for IDs that carry their
 *  creation time. layout (NULL: "twitter") reads Snowflakes. Writes at most size bytes;
 *  on IDFORGE_E_BUFFER_TOO_SMALL *needed (may be NULL) says how many it takes (out NULL
 *  with size 0 asks; with size > 0 it is IDFORGE_E_INVALID_ARGUMENT, as is len > PTRDIFF_MAX). */
IDFORGE_API idforge_status idforge_inspect_json(const char* text, size_t len, const char* layout,
                                                char* out, size_t size, size_t* needed);

/* ---- masking: public IDs that leak nothing (docs/PUBLIC-IDS.md) --------------------- */
/* Added in version node IDFORGE_1.1. A keyring holds masking keys (the first masks, every
 * key unmasks the public IDs that name its key ID); masking is a keyed permutation, so the
 * database keeps its sequential key and the world sees an ID that shows neither order,
 * count, time nor machine. The modes and the text form are those of `idforge mask`.
 *
 * Threads: a keyring is immutable once made, so one handle serves any number of threads at
 * once (every function below takes it const); only idforge_mask_keyring_free is not
 * concurrent with its use. Keys never appear in a message: errors name the source (file
 * path, variable) and the entry, never a secret. A keyring's keys are wiped when freed. */

typedef struct idforge_mask_keyring idforge_mask_keyring;

/** The permutation. Stable numbers (idforge::MaskMode). */
typedef enum idforge_mask_mode {
  IDFORGE_MASK_AUTO = -1, /**< UUID functions: V7 for a UUIDv7 (unmask: a v4-shaped UUID),
                               else U128; public read: any mode */
  IDFORGE_MASK_U63 = 0,   /**< 1..2^63-1 -> 1..2^63-1: a positive BIGINT stays one */
  IDFORGE_MASK_U128 = 1,  /**< any 128 bits -> 128 bits (the result is not a valid UUID) */
  IDFORGE_MASK_V7 = 2     /**< UUIDv7 <-> a valid UUIDv4 that shows no time */
} idforge_mask_mode;

/** The alphabet of a public ID. Stable numbers (idforge::PublicAlphabet). */
typedef enum idforge_public_alphabet {
  IDFORGE_BASE58 = 0, /**< Bitcoin's: no 0, O, I, l (the default everywhere) */
  IDFORGE_BASE62 = 1  /**< 0-9A-Za-z */
} idforge_public_alphabet;

/** key_id for "the primary key" (the keyring's first entry). */
#define IDFORGE_MASK_KEY_PRIMARY (-1)
/** Room for the longest public ID (27 characters: u128) and its NUL. */
#define IDFORGE_PUBLIC_ID_TEXT_SIZE 28
/** Room for a keyring line "ID:" + 64 hex digits and its NUL. */
#define IDFORGE_MASK_KEY_LINE_SIZE 68

/** A keyring from the file at path ("ID:SECRET" entries; docs/PUBLIC-IDS.md). Errors:
 *  IDFORGE_E_KEY_ERROR naming the file and the entry (cannot be read, malformed entry, ID
 *  above 57 or given twice, all-zero secret, no entry). */
IDFORGE_API idforge_status idforge_mask_keyring_from_file(const char* path,
                                                          idforge_mask_keyring** out);
/** A keyring as `idforge mask` finds one: from the file IDFORGE_MASK_KEY_FILE names, else
 *  from the entries in IDFORGE_MASK_KEYS; IDFORGE_E_KEY_ERROR saying how to give a key when
 *  neither is set. Reads the environment at the call (getenv: not while another thread
 *  changes it). */
IDFORGE_API idforge_status idforge_mask_keyring_from_environment(idforge_mask_keyring** out);
/** A keyring from len bytes of entries held in memory (messages name it "keyring text").
 *  For tests and for programs that fetch keys from a secret store; keys belong in a file or
 *  the environment, never on a command line. len > PTRDIFF_MAX is IDFORGE_E_INVALID_ARGUMENT. */
IDFORGE_API idforge_status idforge_mask_keyring_from_text(const char* text, size_t len,
                                                          idforge_mask_keyring** out);
/** The key IDs, primary first, into ids[0..size); *count (may be NULL) gets how many the
 *  keyring holds (1..58). A short array gets IDFORGE_E_BUFFER_TOO_SMALL and *count; ids
 *  NULL with size 0 asks for the count. */
IDFORGE_API idforge_status idforge_mask_keyring_ids(const idforge_mask_keyring* keyring,
                                                    unsigned* ids, size_t size, size_t* count);
/** Frees the keyring and wipes its keys; NULL is ignored. */
IDFORGE_API void idforge_mask_keyring_free(idforge_mask_keyring* keyring);
/** A fresh keyring line "ID:64 hex digits" from the OS CSPRNG (a secret), NUL-terminated;
 *  size >= IDFORGE_MASK_KEY_LINE_SIZE. id above 57 is IDFORGE_E_KEY_ERROR. */
IDFORGE_API idforge_status idforge_mask_new_key(unsigned id, char* out, size_t size);

/* Raw forms: the masked value itself, a positive BIGINT or a UUID. key_id picks the key
 * (IDFORGE_MASK_KEY_PRIMARY, or an ID the keyring holds: else IDFORGE_E_KEY_ERROR); raw
 * values carry no key ID, so unmasking after a rotation names the old key. A value outside
 * the mode's domain is IDFORGE_E_INVALID_ARGUMENT naming it and the rule. */

/** u63: masks value (1..2^63-1) into *out (1..2^63-1). */
IDFORGE_API idforge_status idforge_mask_u63(const idforge_mask_keyring* keyring, int key_id,
                                            uint64_t value, uint64_t* out);
/** u63: the inverse of idforge_mask_u63. Every value of 1..2^63-1 unmasks to something: a raw
 *  value cannot tell "not ours" (the application's lookup is the check). */
IDFORGE_API idforge_status idforge_unmask_u63(const idforge_mask_keyring* keyring, int key_id,
                                              uint64_t masked, uint64_t* out);
/** mode U128 (any UUID), V7 (a UUIDv7 to a UUIDv4; another version is
 *  IDFORGE_E_INVALID_ARGUMENT) or AUTO (V7 for a UUIDv7, else U128); U63 is
 *  IDFORGE_E_INVALID_ARGUMENT. out may be value. */
IDFORGE_API idforge_status idforge_mask_uuid(const idforge_mask_keyring* keyring, int key_id,
                                             idforge_mask_mode mode, const idforge_uuid* value,
                                             idforge_uuid* out);
/** The inverse: mode U128, V7 (a v4-shaped UUID back to the v7) or AUTO (V7 for a version-4
 *  RFC 9562 UUID, else U128: a raw U128 result looks like a v4 one time in 64, so give U128
 *  to read those back). out may be masked. */
IDFORGE_API idforge_status idforge_unmask_uuid(const idforge_mask_keyring* keyring, int key_id,
                                               idforge_mask_mode mode, const idforge_uuid* masked,
                                               idforge_uuid* out);

/* Public form: the short text with the key ID, a keyed tag ("ours or not") and a check
 * character ("mistyped or not"): 16 characters (u63), 26 (v7) or 27 (u128). */

/** The public ID of value (1..2^63-1) as a NUL-terminated string of 16 characters;
 *  size >= 17 (IDFORGE_PUBLIC_ID_TEXT_SIZE always suffices). */
IDFORGE_API idforge_status idforge_mask_public_u63(const idforge_mask_keyring* keyring, int key_id,
                                                   uint64_t value, idforge_public_alphabet alphabet,
                                                   char* out, size_t size);
/** The public ID of a UUID (mode U128, V7 or AUTO as idforge_mask_uuid), NUL-terminated:
 *  27 characters (U128) or 26 (V7); size >= IDFORGE_PUBLIC_ID_TEXT_SIZE. */
IDFORGE_API idforge_status idforge_mask_public_uuid(const idforge_mask_keyring* keyring, int key_id,
                                                    idforge_mask_mode mode,
                                                    const idforge_uuid* value,
                                                    idforge_public_alphabet alphabet, char* out,
                                                    size_t size);

/** What a public ID stands for. */
typedef struct idforge_public_id {
  int32_t mode;      /**< the idforge_mask_mode it was made in (its length tells) */
  uint32_t key_id;   /**< the key of the keyring that made it */
  uint64_t value;    /**< mode U63: the internal value; 0 otherwise */
  idforge_uuid uuid; /**< modes U128 and V7: the internal UUID; all zero for U63 */
} idforge_public_id;

/** Reads len bytes of text as a public ID in alphabet and unmasks it with the key its key ID
 *  names. Checks, in order: length, alphabet, check character (IDFORGE_E_PARSE_ERROR naming
 *  the text, the position and the rule: "mistyped" for a wrong check), the key ID
 *  (IDFORGE_E_KEY_ERROR: a key the keyring does not hold), the keyed tag
 *  (IDFORGE_E_NOT_OURS: made with another secret, or forged). expect_mode (AUTO: any) and
 *  expect_key_id (IDFORGE_MASK_KEY_PRIMARY: any) refuse an ID of another mode
 *  (IDFORGE_E_INVALID_ARGUMENT) or key (IDFORGE_E_KEY_ERROR). *out is written on success only.
 *  len > PTRDIFF_MAX is IDFORGE_E_INVALID_ARGUMENT. */
IDFORGE_API idforge_status idforge_unmask_public(const idforge_mask_keyring* keyring,
                                                 const char* text, size_t len,
                                                 idforge_public_alphabet alphabet,
                                                 idforge_mask_mode expect_mode, int expect_key_id,
                                                 idforge_public_id* out);

/* ---- rules every face shares (node IDFORGE_1.2) ------------------------------------ */
/* A binding or extension checks the names in an options object and quotes user text through
 * these, so every language refuses the same misspelt option and escapes text the same way as
 * the CLI, from this one place. */

/** The option objects a face passes on to this library. */
typedef enum idforge_options {
  IDFORGE_OPTIONS_SNOWFLAKE = 0,     /**< layout, node, lease_store */
  IDFORGE_OPTIONS_MASK = 1,          /**< mode, form, alphabet, key_id (mask and unmask) */
  IDFORGE_OPTIONS_READ_PUBLIC_ID = 2 /**< mode, alphabet, key_id */
} idforge_options;

/** How a face spells option names: key_id (Python, SQL) or keyId (JavaScript, Java). */
typedef enum idforge_option_spelling {
  IDFORGE_SNAKE_CASE = 0,
  IDFORGE_CAMEL_CASE = 1
} idforge_option_spelling;

/** IDFORGE_OK when name (len bytes, any bytes) is an option of options in spelling; else
 *  IDFORGE_E_INVALID_ARGUMENT with a message that names call (e.g. "new Snowflake"), the
 *  name as the CLI quotes text, the options it takes, and the one meant where name is
 *  another spelling of one ("lease_store" to a camelCase face: "did you mean 'leaseStore'").
 *  A misspelt option is never ignored: an ignored lease store would leave a node unregistered. */
IDFORGE_API idforge_status idforge_check_option(idforge_options options,
                                                idforge_option_spelling spelling, const char* call,
                                                const char* name, size_t len);

/** text (len bytes) as every message of this library quotes user text: controls, C1 controls,
 *  bidirectional overrides and bytes that are not UTF-8 escaped (\n, \x1b, \u202e, \xff), and
 *  when the result is longer than max bytes (max >= 16) its head and tail joined by "...".
 *  Writes a NUL-terminated string; on IDFORGE_E_BUFFER_TOO_SMALL *needed says how many bytes it
 *  takes (out NULL with size 0 asks). */
IDFORGE_API idforge_status idforge_quote(const char* text, size_t len, size_t max, char* out,
                                         size_t size, size_t* needed);

/* ---- pieces for a face that keeps its own state (node IDFORGE_1.3) -------------------- */
/* A database keeps a generator's state where its own processes share it (PostgreSQL: shared
 * memory; every backend is a process forked by the postmaster) and renews a lease from its
 * own worker loop, where no thread of this library may run. These functions are the rule of
 * idforge_snowflake_next without the state: the caller holds the last stamp and the mark and
 * serialises the steps (a lock, or a compare-and-swap of the stamp); the library decides. */

/** The layout's parts an issuer steps with, flattened to plain numbers so the caller can keep
 *  them in shared memory. Made by idforge_snowflake_rule_make; read-only after. */
typedef struct idforge_snowflake_rule {
  int sequence_bits;
  int time_shift;
  int node_shift;
  int sequence_shift;
  uint64_t max_tick;
  int64_t epoch_ms;
  int64_t tick_ms;
  uint64_t node;
  int is_signed;
  char spec[256]; /**< the layout's canonical spec (what idforge_snowflake_layout writes) */
} idforge_snowflake_rule;

/** No mark persisted yet. */
#define IDFORGE_NO_UNIX_MS INT64_MIN

/** What one step decided. */
typedef enum idforge_step_kind {
  IDFORGE_STEP_ISSUE = 0,       /**< id is issued; persist new_mark_ms first when it is set */
  IDFORGE_STEP_WAIT = 1,        /**< wait wait_ms (clock behind within the bound, tick full) */
  IDFORGE_STEP_BEHIND = 2,      /**< the clock is behind_ms behind, beyond the bound: refuse */
  IDFORGE_STEP_EXHAUSTED = 3,   /**< the layout's time field has run out */
  IDFORGE_STEP_BEFORE_EPOCH = 4 /**< the clock reads before the layout's epoch */
} idforge_step_kind;

typedef struct idforge_snowflake_step {
  idforge_step_kind kind;
  uint64_t stamp;      /**< ISSUE: the new state (tick << sequence_bits | sequence) */
  int64_t id;          /**< ISSUE: the ID */
  int64_t new_mark_ms; /**< ISSUE: IDFORGE_NO_UNIX_MS, or the mark to persist before id */
  int64_t wait_ms;     /**< WAIT: until the clock reaches the next usable tick (>= 1) */
  int64_t behind_ms;   /**< WAIT / BEHIND: how far the clock is behind the last issued tick */
} idforge_snowflake_step;

/** The rule for node under layout (a preset or spec; NULL: "twitter"). now_ms is the clock a
 *  layout's epoch must not lie after. A negative node, one that does not fit the layout, or a
 *  canonical spec longer than 255 bytes is refused naming the value. */
IDFORGE_API idforge_status idforge_snowflake_rule_make(const char* layout, int64_t node,
                                                       int64_t now_ms, idforge_snowflake_rule* out);
/** The stamp to resume from after mark_ms: the last stamp of the tick holding it, so the first
 *  ID lies in the tick after (the rule of a restart above a high-water mark). 0 when there is
 *  no mark (IDFORGE_NO_UNIX_MS) or it lies before the epoch. */
IDFORGE_API uint64_t idforge_snowflake_resume_stamp(const idforge_snowflake_rule* rule,
                                                    int64_t mark_ms);
/** One step of the Snowflake rule (a last stamp past the layout's last tick is EXHAUSTED):
 *  the next ID after last, given the clock now_ms, the
 *  persisted mark (every issued ID's tick ends at or before it; IDFORGE_NO_UNIX_MS: none),
 *  reserve_ms (how far past the tick a new mark reaches, so marks are written once per window)
 *  and max_wait_ms (a clock behind by more is BEHIND at once, whatever the tick length; by
 *  less it is a WAIT of at most that). Pure: the same arguments give the same step. */
IDFORGE_API void idforge_snowflake_step_next(const idforge_snowflake_rule* rule, uint64_t last,
                                             int64_t mark_ms, int64_t now_ms, int64_t reserve_ms,
                                             int64_t max_wait_ms, idforge_snowflake_step* out);

/** 1 when an ID of stamp lies under a lease's fence at fence_ms (Unix ms): its whole tick ends
 *  by then, the rule the library's own generators apply (a fence inside a tick admits none of
 *  it); 0 otherwise, or for a NULL rule. INT64_MAX: no fence, every stamp is admitted. */
IDFORGE_API int idforge_snowflake_fence_admits(const idforge_snowflake_rule* rule, uint64_t stamp,
                                               int64_t fence_ms);

/** Where a mark was written: a database system's identifier and the timeline it was on
 *  (PostgreSQL: the control file's system identifier and the WAL timeline), and the base
 *  backup the data directory was started from (PostgreSQL: a hash of its backup_label.old; 0:
 *  none). 0 in system and timeline: not recorded. A copy of a data directory that runs as a
 *  second server carries its origin's mark under another timeline or system (a promoted
 *  standby, a backup restored to a new timeline) or another backup (a base backup started
 *  as is, on the same timeline). */
typedef struct idforge_mark_origin {
  uint64_t system_id;
  uint32_t timeline;
  uint64_t backup_id;
} idforge_mark_origin;

/** The text of a mark file for mark_ms issued under rule: the mark, then 'layout <spec>',
 *  'node <n>' and, when origin is not NULL and its system_id not 0, 'system <id>' and
 *  'timeline <n>', and 'backup <id>' when its backup_id is not 0, one per line. NUL-terminated; on
 * IDFORGE_E_BUFFER_TOO_SMALL *needed says how many bytes it takes. */
IDFORGE_API idforge_status idforge_snowflake_mark_format(const idforge_snowflake_rule* rule,
                                                         int64_t mark_ms,
                                                         const idforge_mark_origin* origin,
                                                         char* out, size_t size, size_t* needed);
/** Reads a mark file's text (len bytes): the form above (backup_id 0 without its line), the
 *  one without origin (*origin all 0), or the oldest, the mark alone (spec "", *node -1,
 *  origin all 0). spec gets the recorded canonical spec (room for 256 bytes). Anything else
 *  (a layout line that does not parse as a layout too) is IDFORGE_E_PARSE_ERROR naming the
 *  line and the rule; the outputs are written on success only. */
IDFORGE_API idforge_status idforge_snowflake_mark_parse(const char* text, size_t len,
                                                        int64_t* mark_ms, char spec[256],
                                                        int64_t* node, idforge_mark_origin* origin);
/** 1 when layouts a and b (presets or specs) put the same bits in the same places with the
 *  same tick and epoch (their names aside), 0 when they differ; a layout that does not parse
 *  is -1 with its message in idforge_last_error(). */
IDFORGE_API int idforge_layout_same(const char* a, const char* b);

/** A caller-renewed node-ID lease: the worker loop of a server that must not run this
 *  library's threads acquires, renews (every ttl_ms / 3) and releases it. */
typedef struct idforge_node_lease idforge_node_lease;

/** What a lease's holder publishes to its issuers. */
typedef struct idforge_node_lease_info {
  uint64_t node;         /**< the leased node ID */
  int64_t high_water_ms; /**< earlier holders' mark; IDFORGE_NO_UNIX_MS if none */
  int64_t fence_ms;      /**< issue no ID whose tick ends at or after this; 0: stop */
  int64_t ttl_ms;        /**< the store's TTL: renew every third of it */
  int64_t retry_ms;      /**< pause after a failed renewal */
  int64_t reserve_ms;    /**< how far ahead each renewal reserves the mark */
  int lost;              /**< the store gave the node away: fenced for good */
} idforge_node_lease_info;

/** Checks, without contacting the store, that store (a lease URL, as idforge_snowflake_new
 *  takes) can ever lease a node of layout (node >= 0: exactly that one): syntax, keys, a
 *  static node against the layout, a fixed node against the store's range, and a static: or
 *  ordinal: store with neither state= nor register= (it would lock nothing) refused. */
IDFORGE_API idforge_status idforge_node_lease_check(const char* store, const char* layout,
                                                    int64_t node);
/** Acquires a node of layout from store (node >= 0: exactly that one) and reserves the first
 *  window; *info says what to publish. No thread is started. */
IDFORGE_API idforge_status idforge_node_lease_acquire(const char* store, const char* layout,
                                                      int64_t node, idforge_node_lease** out,
                                                      idforge_node_lease_info* info);
/** One renewal; *info is updated either way. A failure leaves the fence where it was, or, when
 *  the store says the lease is gone, sets info->lost and the fence to 0. */
IDFORGE_API idforge_status idforge_node_lease_renew(idforge_node_lease* lease,
                                                    idforge_node_lease_info* info);
/** Stores last_unix_ms (start of the last tick issued under the lease; IDFORGE_NO_UNIX_MS:
 *  none) as the node's mark, frees the node and the handle (also on failure: the TTL then
 *  frees the node and the reserved mark stays). Every issuer has stopped first. NULL: OK. */
IDFORGE_API idforge_status idforge_node_lease_release(idforge_node_lease* lease,
                                                      int64_t last_unix_ms);

/** A UUIDv7 of unix_ms with sub_ms_ns (0..999999) as its 12-bit sub-millisecond fraction and
 *  62 random bits (RFC 9562 method 3; PostgreSQL 18's layout). A time outside the 48-bit field
 *  is IDFORGE_E_INVALID_ARGUMENT. */
IDFORGE_API idforge_status idforge_uuid7_at(int64_t unix_ms, int32_t sub_ms_ns, idforge_uuid* out);
/** The TypeID of prefix (len bytes: 0..63 of a-z and '_', not at either end) and uuid,
 *  NUL-terminated (room: IDFORGE_TYPEID_TEXT_SIZE). A bad prefix is IDFORGE_E_PARSE_ERROR
 *  naming it and the rule. */
IDFORGE_API idforge_status idforge_typeid_format(const char* prefix, size_t len,
                                                 const idforge_uuid* uuid, char* out, size_t size);
/** Room for the longest TypeID (63 + 1 + 26 characters) and its NUL. */
#define IDFORGE_TYPEID_TEXT_SIZE 91

/** The mask mode named by name (len bytes): "u63", "u128", "v7", and "auto" where
 *  allow_auto is not 0. Anything else is IDFORGE_E_INVALID_ARGUMENT naming it and the
 *  accepted names: the one spelling of every face. */
IDFORGE_API idforge_status idforge_mask_mode_parse(const char* name, size_t len, int allow_auto,
                                                   idforge_mask_mode* out);
/** A mask mode's name ("auto", "u63", "u128", "v7"; "unknown" for another number). */
IDFORGE_API const char* idforge_mask_mode_name(idforge_mask_mode mode);
/** The alphabet named by name (len bytes): "base58" or "base62"; else
 *  IDFORGE_E_INVALID_ARGUMENT naming it. */
IDFORGE_API idforge_status idforge_public_alphabet_parse(const char* name, size_t len,
                                                         idforge_public_alphabet* out);
/** Where keyring came from, and its key IDs, primary first: "file 'k.txt': keys 2, 1". */
IDFORGE_API idforge_status idforge_mask_keyring_describe(const idforge_mask_keyring* keyring,
                                                         char* out, size_t size, size_t* needed);

/* ---- fork ----------------------------------------------------------------------------- */

/** Reseeds the calling thread's CSPRNG from the OS now. Not needed for correctness (a
 *  forked child reseeds before its first random byte by itself); runtimes that have an
 *  after-fork hook (Python's os.register_at_fork) call it there so the child's first ID
 *  costs no reseed. */
IDFORGE_API idforge_status idforge_reseed(void);

#ifdef __cplusplus
}
#endif

#endif /* IDFORGE_IDFORGE_H */
