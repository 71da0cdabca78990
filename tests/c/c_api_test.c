/* The C ABI from C: every function of idforge.h, its success and its error paths, and the
 * fork rule. Plain C99 with assert-like checks that print what failed and exit 1. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "idforge/idforge.h"

static int failures = 0;

#define CHECK(cond)                                                                           \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      fprintf(stderr, "%s:%d: CHECK(%s) failed; last error: %s\n", __FILE__, __LINE__, #cond, \
              idforge_last_error());                                                          \
      ++failures;                                                                             \
    }                                                                                         \
  } while (0)

#define CHECK_STATUS(call, want)                                                                  \
  do {                                                                                            \
    idforge_status got_ = (call);                                                                 \
    if (got_ != (want)) {                                                                         \
      fprintf(stderr, "%s:%d: %s returned %s, wanted %s; last error: %s\n", __FILE__, __LINE__,   \
              #call, idforge_status_name(got_), idforge_status_name(want), idforge_last_error()); \
      ++failures;                                                                                 \
    }                                                                                             \
  } while (0)

#define CHECK_MESSAGE_HAS(part)                                                  \
  do {                                                                           \
    if (!strstr(idforge_last_error(), (part))) {                                 \
      fprintf(stderr, "%s:%d: last error '%s' lacks '%s'\n", __FILE__, __LINE__, \
              idforge_last_error(), (part));                                     \
      ++failures;                                                                \
    }                                                                            \
  } while (0)

static void test_status_names(void) {
  CHECK(strcmp(idforge_status_name(IDFORGE_OK), "ok") == 0);
  CHECK(strcmp(idforge_status_name(IDFORGE_E_FORKED), "forked") == 0);
  CHECK(strcmp(idforge_status_name(IDFORGE_E_BUFFER_TOO_SMALL), "buffer_too_small") == 0);
  CHECK(strcmp(idforge_status_name((idforge_status)77), "unknown") == 0);
  CHECK(strcmp(idforge_version(), "0.1.0") == 0);
  CHECK(idforge_last_error() != NULL);
}

static void test_uuid4(void) {
  idforge_uuid a, b;
  char text[IDFORGE_UUID_TEXT_SIZE];
  CHECK_STATUS(idforge_make_uuid4(&a), IDFORGE_OK);
  CHECK_STATUS(idforge_make_uuid4(&b), IDFORGE_OK);
  CHECK(memcmp(a.bytes, b.bytes, 16) != 0);
  CHECK((a.bytes[6] >> 4) == 4);
  CHECK((a.bytes[8] & 0xC0) == 0x80);
  CHECK_STATUS(idforge_uuid_format(&a, text, sizeof text), IDFORGE_OK);
  CHECK(strlen(text) == 36 && text[14] == '4');
  CHECK_STATUS(idforge_make_uuid4(NULL), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("idforge_make_uuid4: out must not be NULL");
}

static void test_uuid7(void) {
  idforge_uuid prev, cur, batch[300];
  idforge_uuid7_gen* gen = NULL;
  int i;
  CHECK_STATUS(idforge_make_uuid7(&prev), IDFORGE_OK);
  CHECK((prev.bytes[6] >> 4) == 7);
  for (i = 0; i < 1000; ++i) {
    CHECK_STATUS(idforge_make_uuid7(&cur), IDFORGE_OK);
    CHECK(memcmp(prev.bytes, cur.bytes, 16) < 0);
    prev = cur;
  }
  CHECK_STATUS(idforge_uuid7_gen_new(&gen), IDFORGE_OK);
  CHECK(gen != NULL);
  CHECK_STATUS(idforge_uuid7_gen_next(gen, &prev), IDFORGE_OK);
  CHECK_STATUS(idforge_uuid7_gen_next_batch(gen, batch, 300), IDFORGE_OK);
  CHECK(memcmp(prev.bytes, batch[0].bytes, 16) < 0);
  for (i = 1; i < 300; ++i) CHECK(memcmp(batch[i - 1].bytes, batch[i].bytes, 16) < 0);
  CHECK_STATUS(idforge_uuid7_gen_next_batch(gen, batch, 0), IDFORGE_OK);
  CHECK_STATUS(idforge_uuid7_gen_next_batch(gen, NULL, 3), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_uuid7_gen_next(NULL, &cur), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_uuid7_gen_next(gen, NULL), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_uuid7_gen_new(NULL), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_make_uuid7(NULL), IDFORGE_E_INVALID_ARGUMENT);
  idforge_uuid7_gen_free(gen);
  idforge_uuid7_gen_free(NULL);
}

static void test_uuid_text(void) {
  const char* canonical = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
  idforge_uuid u;
  char text[IDFORGE_UUID_TEXT_SIZE];
  CHECK_STATUS(idforge_uuid_parse(canonical, strlen(canonical), &u), IDFORGE_OK);
  CHECK(u.bytes[0] == 0x01 && u.bytes[15] == 0x8f);
  CHECK_STATUS(idforge_uuid_format(&u, text, sizeof text), IDFORGE_OK);
  CHECK(strcmp(text, canonical) == 0);
  CHECK_STATUS(idforge_uuid_parse("{017F22E2-79B0-7CC3-98C4-DC0C0C07398F}", 38, &u), IDFORGE_OK);
  CHECK_STATUS(idforge_uuid_format(&u, text, sizeof text), IDFORGE_OK);
  CHECK(strcmp(text, canonical) == 0);
  CHECK_STATUS(idforge_uuid_parse("017f22e2-79b0-7cc3-98c4-dc0c0c07398g", 36, &u),
               IDFORGE_E_PARSE_ERROR);
  CHECK_MESSAGE_HAS("017f22e2-79b0-7cc3-98c4-dc0c0c07398g");
  CHECK_MESSAGE_HAS("35");
  /* A NUL inside the input used to end the message there, before the position and rule. */
  CHECK_STATUS(idforge_uuid_parse("017f22e2\0-79b0", 14, &u), IDFORGE_E_PARSE_ERROR);
  CHECK_MESSAGE_HAS("017f22e2\\x00-79b0");
  CHECK_MESSAGE_HAS("position");
  CHECK_STATUS(idforge_uuid_parse("", 0, &u), IDFORGE_E_PARSE_ERROR);
  CHECK_STATUS(idforge_uuid_parse(NULL, 4, &u), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_uuid_parse(canonical, 36, NULL), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_uuid_format(&u, text, 36), IDFORGE_E_BUFFER_TOO_SMALL);
  CHECK_STATUS(idforge_uuid_format(NULL, text, sizeof text), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_uuid_format(&u, NULL, 37), IDFORGE_E_INVALID_ARGUMENT);
}

static void test_ulid(void) {
  idforge_ulid prev, cur, batch[300], parsed;
  idforge_ulid_gen* gen = NULL;
  char text[IDFORGE_ULID_TEXT_SIZE];
  int i;
  CHECK_STATUS(idforge_make_ulid(&prev), IDFORGE_OK);
  for (i = 0; i < 1000; ++i) {
    CHECK_STATUS(idforge_make_ulid(&cur), IDFORGE_OK);
    CHECK(memcmp(prev.bytes, cur.bytes, 16) < 0);
    prev = cur;
  }
  CHECK_STATUS(idforge_ulid_format(&cur, text, sizeof text), IDFORGE_OK);
  CHECK(strlen(text) == 26);
  CHECK_STATUS(idforge_ulid_parse(text, 26, &parsed), IDFORGE_OK);
  CHECK(memcmp(parsed.bytes, cur.bytes, 16) == 0);
  CHECK_STATUS(idforge_ulid_parse("01ARZ3NDEKTSV4RRFFQ69G5FAU", 26, &parsed),
               IDFORGE_E_PARSE_ERROR);
  CHECK_MESSAGE_HAS("01ARZ3NDEKTSV4RRFFQ69G5FAU");
  CHECK_STATUS(idforge_ulid_parse("8ZZZZZZZZZZZZZZZZZZZZZZZZZ", 26, &parsed),
               IDFORGE_E_PARSE_ERROR);
  CHECK_STATUS(idforge_ulid_format(&cur, text, 26), IDFORGE_E_BUFFER_TOO_SMALL);
  CHECK_STATUS(idforge_ulid_format(NULL, text, 27), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_ulid_format(&cur, NULL, 27), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_ulid_parse(NULL, 1, &parsed), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_ulid_parse(text, 26, NULL), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_make_ulid(NULL), IDFORGE_E_INVALID_ARGUMENT);

  CHECK_STATUS(idforge_ulid_gen_new(&gen), IDFORGE_OK);
  CHECK_STATUS(idforge_ulid_gen_next(gen, &prev), IDFORGE_OK);
  CHECK_STATUS(idforge_ulid_gen_next_batch(gen, batch, 300), IDFORGE_OK);
  CHECK(memcmp(prev.bytes, batch[0].bytes, 16) < 0);
  for (i = 1; i < 300; ++i) CHECK(memcmp(batch[i - 1].bytes, batch[i].bytes, 16) < 0);
  CHECK_STATUS(idforge_ulid_gen_next_batch(gen, NULL, 2), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_ulid_gen_next(NULL, &cur), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_ulid_gen_next(gen, NULL), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_ulid_gen_new(NULL), IDFORGE_E_INVALID_ARGUMENT);
  idforge_ulid_gen_free(gen);
  idforge_ulid_gen_free(NULL);
}

static void test_snowflake_fixed(void) {
  idforge_snowflake* gen = NULL;
  uint64_t a = 0, b = 0, node = 99, batch[5000];
  size_t written = 99, i, needed = 0;
  idforge_snowflake_parts parts;
  char spec[256];
  CHECK_STATUS(idforge_snowflake_new("twitter", 7, NULL, &gen), IDFORGE_OK);
  CHECK_STATUS(idforge_snowflake_next(gen, &a), IDFORGE_OK);
  CHECK_STATUS(idforge_snowflake_next(gen, &b), IDFORGE_OK);
  CHECK(b > a);
  CHECK_STATUS(idforge_snowflake_node(gen, &node), IDFORGE_OK);
  CHECK(node == 7);
  CHECK_STATUS(idforge_snowflake_next_batch(gen, batch, 5000, &written), IDFORGE_OK);
  CHECK(written == 5000);
  CHECK(batch[0] > b);
  for (i = 1; i < 5000; ++i) CHECK(batch[i] > batch[i - 1]);
  CHECK_STATUS(idforge_snowflake_decompose("twitter", b, &parts), IDFORGE_OK);
  CHECK(parts.node == 7 && parts.worker == 7 && parts.datacenter == 0);
  CHECK(parts.unix_ms > 1700000000000LL);
  CHECK_STATUS(idforge_snowflake_compose(NULL, &parts, &a), IDFORGE_OK);
  CHECK(a == b);
  parts.node = 1024;
  CHECK_STATUS(idforge_snowflake_compose("twitter", &parts, &a), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("1024");
  CHECK_STATUS(idforge_snowflake_compose("twitter", NULL, &a), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_snowflake_compose("twitter", &parts, NULL), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_snowflake_decompose("twitter", UINT64_C(1) << 63, &parts),
               IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("sign bit");
  CHECK_STATUS(idforge_snowflake_decompose("twitter", 1, NULL), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_snowflake_layout(gen, spec, sizeof spec, &needed), IDFORGE_OK);
  CHECK(needed == strlen(spec) + 1 && strstr(spec, "time=41") != NULL);
  CHECK_STATUS(idforge_snowflake_layout(gen, spec, 3, &needed), IDFORGE_E_BUFFER_TOO_SMALL);
  CHECK(needed > 3);
  CHECK_STATUS(idforge_snowflake_layout(NULL, spec, 3, &needed), IDFORGE_E_INVALID_ARGUMENT);
  /* rebind belongs to a forked child; in the parent it is refused. */
  CHECK_STATUS(idforge_snowflake_rebind(gen, 8), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_snowflake_rebind(gen, -1), IDFORGE_E_INVALID_ARGUMENT);
  /* A fixed node is registered like a leased one: released, it is a lease given back. */
  CHECK_STATUS(idforge_snowflake_release(gen), IDFORGE_OK);
  CHECK_STATUS(idforge_snowflake_next(gen, &a), IDFORGE_E_LEASE_ERROR);
  CHECK_MESSAGE_HAS("node 7 was released");
  CHECK_STATUS(idforge_snowflake_next_batch(gen, batch, 10, &written), IDFORGE_E_LEASE_ERROR);
  CHECK(written == 0);
  CHECK_STATUS(idforge_snowflake_next(NULL, &a), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_snowflake_next(gen, NULL), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_snowflake_next_batch(gen, NULL, 1, &written), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_snowflake_node(gen, NULL), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_snowflake_release(NULL), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_snowflake_rebind(NULL, 1), IDFORGE_E_INVALID_ARGUMENT);
  idforge_snowflake_free(gen);
  idforge_snowflake_free(NULL);
}

static void test_snowflake_errors(void) {
  idforge_snowflake* gen = (idforge_snowflake*)&failures; /* set to NULL on failure */
  CHECK_STATUS(idforge_snowflake_new("twitter", 1024, NULL, &gen), IDFORGE_E_NODE_OUT_OF_RANGE);
  CHECK(gen == NULL);
  CHECK_MESSAGE_HAS("1024");
  CHECK_STATUS(idforge_snowflake_new("time=41,worker=10,seq=20", 1, NULL, &gen),
               IDFORGE_E_INVALID_LAYOUT);
  CHECK_STATUS(idforge_snowflake_new("no-such-preset", 1, NULL, &gen), IDFORGE_E_PARSE_ERROR);
  CHECK_MESSAGE_HAS("no-such-preset");
  CHECK_STATUS(idforge_snowflake_new("twitter", -1, NULL, &gen), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("lease store");
  CHECK_STATUS(idforge_snowflake_new("twitter", -1, "nosuch:x", &gen), IDFORGE_E_PARSE_ERROR);
  CHECK_MESSAGE_HAS("nosuch:x");
  /* A node named by the URL and locked nowhere: two processes given it would collide. */
  {
    /* A long URL is quoted more than once (the URL, then its path in the cause): the
       message keeps its head and its tail, 1024 bytes at most. */
    static char url[6000];
    memcpy(url, "file:/tmp/", 10);
    memset(url + 10, 'a', sizeof url - 11);
    url[sizeof url - 1] = '\0';
    CHECK(idforge_snowflake_new("twitter", -1, url, &gen) != IDFORGE_OK);
    CHECK(strlen(idforge_last_error()) <= 1024);
    CHECK_MESSAGE_HAS("file:/tmp/aaaa");
  }
  CHECK_STATUS(idforge_snowflake_new("twitter", -1, "static:5", &gen), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("static:5");
  CHECK_MESSAGE_HAS("state=DIR");
  CHECK_STATUS(idforge_snowflake_new("twitter", -1, "ordinal:api-3", &gen),
               IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("ordinal:api-3");
  CHECK_STATUS(idforge_snowflake_new("twitter", -1, "redis://127.0.0.1:1?timeout=200", &gen),
               IDFORGE_E_STORE_UNREACHABLE);
  CHECK_MESSAGE_HAS("127.0.0.1:1");
  CHECK_STATUS(idforge_snowflake_new("twitter", 1, NULL, NULL), IDFORGE_E_INVALID_ARGUMENT);
}

static void test_snowflake_leased(const char* dir) {
  char url[512];
  idforge_snowflake *a = NULL, *b = NULL, *c = NULL;
  uint64_t na = 0, nb = 0, ida = 0, idb = 0;
  int status = 0;
  pid_t pid;
  snprintf(url, sizeof url, "file:%s", dir);
  CHECK_STATUS(idforge_snowflake_new("twitter", IDFORGE_NODE_ANY, url, &a), IDFORGE_OK);
  CHECK_STATUS(idforge_snowflake_new("twitter", IDFORGE_NODE_ANY, url, &b), IDFORGE_OK);
  CHECK_STATUS(idforge_snowflake_node(a, &na), IDFORGE_OK);
  CHECK_STATUS(idforge_snowflake_node(b, &nb), IDFORGE_OK);
  CHECK(na != nb);
  CHECK_STATUS(idforge_snowflake_next(a, &ida), IDFORGE_OK);
  CHECK_STATUS(idforge_snowflake_next(b, &idb), IDFORGE_OK);
  CHECK(ida != idb);
  /* A fixed node already held by a live holder is refused. */
  CHECK_STATUS(idforge_snowflake_new("twitter", (int64_t)na, url, &c), IDFORGE_E_LEASE_ERROR);
  CHECK_MESSAGE_HAS(dir);
  /* In the parent a leased handle cannot be rebound. */
  CHECK_STATUS(idforge_snowflake_rebind(a, IDFORGE_NODE_ANY), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("forked child");

  fflush(NULL);
  pid = fork();
  if (pid == 0) {
    /* The child: the parent's node ID refuses until the handle leases its own. */
    uint64_t id = 0, node = 0;
    int bad = 0;
    if (idforge_snowflake_next(a, &id) != IDFORGE_E_FORKED) bad |= 1;
    if (!strstr(idforge_last_error(), "fork")) bad |= 2;
    if (idforge_snowflake_rebind(a, IDFORGE_NODE_ANY) != IDFORGE_OK) bad |= 4;
    if (idforge_snowflake_node(a, &node) != IDFORGE_OK || node == na || node == nb) bad |= 8;
    if (idforge_snowflake_next(a, &id) != IDFORGE_OK || id == ida) bad |= 16;
    if (idforge_reseed() != IDFORGE_OK) bad |= 32;
    if (bad)
      fprintf(stderr, "child: failed checks %d; last error: %s\n", bad, idforge_last_error());
    idforge_snowflake_free(a); /* the child's own lease, released */
    _exit(bad ? 1 : 0);        /* b: the parent's, left alone */
  }
  CHECK(pid > 0);
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  /* The parent still issues on its own lease. */
  CHECK_STATUS(idforge_snowflake_next(a, &idb), IDFORGE_OK);
  CHECK(idb > ida);
  CHECK_STATUS(idforge_snowflake_release(a), IDFORGE_OK);
  CHECK_STATUS(idforge_snowflake_next(a, &idb), IDFORGE_E_LEASE_ERROR);
  /* Its node ID is free again: a fixed request for it succeeds now. */
  CHECK_STATUS(idforge_snowflake_new("twitter", (int64_t)na, url, &c), IDFORGE_OK);
  idforge_snowflake_free(c);
  idforge_snowflake_free(a);
  idforge_snowflake_free(b);
}

static void test_snowflake_fixed_fork(void) {
  idforge_snowflake* gen = NULL;
  uint64_t parent_id = 0;
  int status = 0;
  pid_t pid;
  CHECK_STATUS(idforge_snowflake_new("discord", 5, NULL, &gen), IDFORGE_OK);
  CHECK_STATUS(idforge_snowflake_next(gen, &parent_id), IDFORGE_OK);
  fflush(NULL);
  pid = fork();
  if (pid == 0) {
    uint64_t id = 0, node = 0;
    int bad = 0;
    if (idforge_snowflake_next(gen, &id) != IDFORGE_E_FORKED) bad |= 1;
    if (idforge_snowflake_rebind(gen, -3) != IDFORGE_E_INVALID_ARGUMENT) bad |= 2;
    if (idforge_snowflake_rebind(gen, 6) != IDFORGE_OK) bad |= 4;
    if (idforge_snowflake_node(gen, &node) != IDFORGE_OK || node != 6) bad |= 8;
    if (idforge_snowflake_next(gen, &id) != IDFORGE_OK || id == parent_id) bad |= 16;
    /* A rebind that fails (node 5 is the parent's, locked by a live process) leaves the
     * handle without a node: every call refuses, none crashes, and a rebind to a free node
     * works. It crashed (SIGSEGV) in next() before. */
    if (idforge_snowflake_free(gen), idforge_snowflake_new("discord", 27, NULL, &gen) != IDFORGE_OK)
      bad |= 32;
    else {
      pid_t grandchild = fork();
      if (grandchild == 0) {
        int b = 0;
        if (idforge_snowflake_rebind(gen, 5) == IDFORGE_OK) b |= 1;
        if (idforge_snowflake_next(gen, &id) != IDFORGE_E_FORKED) b |= 2;
        if (!strstr(idforge_last_error(), "rebind failed")) b |= 4;
        if (idforge_snowflake_next_batch(gen, &id, 1, NULL) != IDFORGE_E_FORKED) b |= 8;
        if (idforge_snowflake_node(gen, &node) != IDFORGE_E_FORKED) b |= 16;
        if (idforge_snowflake_release(gen) != IDFORGE_OK) b |= 32; /* nothing to give back */
        if (idforge_snowflake_rebind(gen, 5) == IDFORGE_OK) b |= 64;
        if (idforge_snowflake_rebind(gen, 28) != IDFORGE_OK) b |= 128;
        if (idforge_snowflake_next(gen, &id) != IDFORGE_OK) b |= 256;
        if (b) fprintf(stderr, "grandchild: failed checks %d: %s\n", b, idforge_last_error());
        idforge_snowflake_free(gen);
        _exit(b ? 1 : 0);
      }
      {
        int st = 0;
        if (waitpid(grandchild, &st, 0) != grandchild || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
          bad |= 64;
      }
    }
    if (bad)
      fprintf(stderr, "child: failed checks %d; last error: %s\n", bad, idforge_last_error());
    _exit(bad ? 1 : 0);
  }
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  idforge_snowflake_free(gen);
}

/* A fixed node without a store: one live handle per node in the process, a handle opened
 * again continues above the last one, and the lock and mark sit in IDFORGE_LEASE_DIR. On
 * 87a909d 1,000 rounds of new -> 20 IDs -> free repeated 19,920 of 20,000 IDs, and two live
 * handles on one node 10,000 of 20,000. */
static int cmp_u64(const void* a, const void* b) {
  const uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? -1 : x > y;
}

static void test_snowflake_fixed_registry(const char* dir) {
  enum { kRounds = 1000, kEach = 20 };
  static uint64_t ids[kRounds * kEach];
  idforge_snowflake *a = NULL, *b = NULL;
  size_t i, written = 0, repeats = 0;
  char path[600];
  FILE* f;
  for (i = 0; i < kRounds; ++i) {
    CHECK_STATUS(idforge_snowflake_new("twitter", 1, NULL, &a), IDFORGE_OK);
    if (!a) return;
    CHECK_STATUS(idforge_snowflake_next_batch(a, ids + i * kEach, kEach, &written), IDFORGE_OK);
    idforge_snowflake_free(a);
  }
  qsort(ids, kRounds * kEach, sizeof ids[0], cmp_u64);
  for (i = 1; i < kRounds * kEach; ++i) repeats += ids[i] == ids[i - 1];
  CHECK(repeats == 0);
  /* The second live handle on node 1 is refused naming the first; another node is not. */
  CHECK_STATUS(idforge_snowflake_new("twitter", 1, NULL, &a), IDFORGE_OK);
  CHECK_STATUS(idforge_snowflake_new("twitter", 1, NULL, &b), IDFORGE_E_LEASE_ERROR);
  CHECK_MESSAGE_HAS("held by a live generator of this process");
  CHECK(b == NULL);
  CHECK_STATUS(idforge_snowflake_new("twitter", 2, NULL, &b), IDFORGE_OK);
  idforge_snowflake_free(b);
  /* Released, the node is free in the process again, and continues above. */
  CHECK_STATUS(idforge_snowflake_next(a, &ids[0]), IDFORGE_OK);
  CHECK_STATUS(idforge_snowflake_release(a), IDFORGE_OK);
  CHECK_STATUS(idforge_snowflake_new("twitter", 1, NULL, &b), IDFORGE_OK);
  CHECK_STATUS(idforge_snowflake_next(b, &ids[1]), IDFORGE_OK);
  CHECK(ids[1] > ids[0]);
  idforge_snowflake_free(b);
  idforge_snowflake_free(a);
  /* The lock and the mark are in the folder IDFORGE_LEASE_DIR names. */
  snprintf(path, sizeof path, "%s/node-1.mark", dir);
  f = fopen(path, "r");
  CHECK(f != NULL);
  if (f) fclose(f);
  /* An empty or unusable folder is refused naming the variable, before anything issues. */
  setenv("IDFORGE_LEASE_DIR", "", 1);
  CHECK_STATUS(idforge_snowflake_new("twitter", 3, NULL, &a), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("IDFORGE_LEASE_DIR is set but empty");
  setenv("IDFORGE_LEASE_DIR", "/tmp/a?b", 1);
  CHECK_STATUS(idforge_snowflake_new("twitter", 3, NULL, &a), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("may not contain '?' or '&'");
  setenv("IDFORGE_LEASE_DIR", dir, 1);
}

/* Two handles of one process on two stores that both hand out node 0: the second refused. */
static void test_snowflake_two_stores_one_node(const char* dir) {
  char url_a[600], url_b[600];
  idforge_snowflake *a = NULL, *b = NULL;
  snprintf(url_a, sizeof url_a, "file:%s/store-a", dir);
  snprintf(url_b, sizeof url_b, "file:%s/store-b", dir);
  CHECK_STATUS(idforge_snowflake_new("twitter", IDFORGE_NODE_ANY, url_a, &a), IDFORGE_OK);
  CHECK_STATUS(idforge_snowflake_new("twitter", IDFORGE_NODE_ANY, url_b, &b),
               IDFORGE_E_LEASE_ERROR);
  CHECK_MESSAGE_HAS("held by a live generator of this process");
  idforge_snowflake_free(a);
}

/* One node number, one live handle; one layout per node for the process's life; no two
 * layouts whose node fields coincide. Twitter spelled as its spec, or a layout with the node's
 * bits in the same place, on another store, made the same IDs as twitter on that node (1,000
 * of 2,000 equal); reopened after free with the epoch 1 s later, 823,000 of 2,275,000; two
 * layouts whose node fields coincide on different node numbers (worker=10 node 1,
 * worker=11,seq=11 node 2), 195,192 of 400,000. */
static void test_snowflake_one_node_one_layout(const char* dir) {
  char url_b[600];
  idforge_snowflake *a = NULL, *b = NULL;
  uint64_t first = 0, again = 0;
  snprintf(url_b, sizeof url_b, "file:%s/store-other", dir);
  CHECK_STATUS(idforge_snowflake_new("twitter", 40, NULL, &a), IDFORGE_OK);
  CHECK_STATUS(idforge_snowflake_next(a, &first), IDFORGE_OK);
  /* The same layout spelled as its spec: the same layout, held. */
  CHECK_STATUS(
      idforge_snowflake_new("time=41,dc=5,worker=5,seq=12,epoch=1288834974657", 40, url_b, &b),
      IDFORGE_E_LEASE_ERROR);
  CHECK_MESSAGE_HAS("node 40 is held by a live generator of this process (layout 'twitter'");
  CHECK(b == NULL);
  /* Another layout on the node while it is live: held. */
  CHECK_STATUS(
      idforge_snowflake_new("time=41,dc=0,worker=10,seq=12,epoch=1288834974657", 40, url_b, &b),
      IDFORGE_E_LEASE_ERROR);
  idforge_snowflake_free(a);
  /* Freed, then the epoch 1 s later on the node (in another store): its IDs of now are
   * twitter's of 1 s ago, so it starts above the last tick issued, a second from now: the
   * first call refuses as a clock behind that tick (the C ABI waits 5 ms), never issues below
   * it. 823,000 of 2,275,000 IDs repeated before. */
  {
    uint64_t shifted = 0;
    CHECK_STATUS(
        idforge_snowflake_new("time=41,dc=5,worker=5,seq=12,epoch=1288834975657", 40, url_b, &b),
        IDFORGE_OK);
    if (b) {
      const idforge_status st = idforge_snowflake_next(b, &shifted);
      CHECK(st == IDFORGE_E_CLOCK_MOVED_BACKWARDS || (st == IDFORGE_OK && shifted > first));
      idforge_snowflake_free(b);
      b = NULL;
    }
  }
  /* The same layout again, in another store: above the last ID. */
  CHECK_STATUS(
      idforge_snowflake_new("time=41,dc=5,worker=5,seq=12,epoch=1288834974657", 40, url_b, &b),
      IDFORGE_OK);
  CHECK_STATUS(idforge_snowflake_next(b, &again), IDFORGE_OK);
  CHECK(again > first);
  idforge_snowflake_free(b);
  b = NULL;
  /* Node fields that coincide: worker=11,seq=11 node 80 puts 40 where twitter puts its node. */
  CHECK_STATUS(idforge_snowflake_new("time=41,dc=0,worker=11,seq=11", 80, url_b, &b),
               IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("puts the same bits where node 40 of layout");
  /* Node 83 there puts 41 where twitter puts its node, a node no twitter generator of this
   * process used: allowed. */
  CHECK_STATUS(idforge_snowflake_new("time=41,dc=0,worker=11,seq=11", 83, url_b, &b), IDFORGE_OK);
  idforge_snowflake_free(b);
}

static void test_options_and_quote(void) {
  char out[64];
  size_t needed = 0;
  CHECK_STATUS(
      idforge_check_option(IDFORGE_OPTIONS_SNOWFLAKE, IDFORGE_CAMEL_CASE, "x", "leaseStore", 10),
      IDFORGE_OK);
  CHECK_STATUS(idforge_check_option(IDFORGE_OPTIONS_SNOWFLAKE, IDFORGE_CAMEL_CASE, "new Snowflake",
                                    "lease_store", 11),
               IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS(
      "new Snowflake: unknown option 'lease_store': it takes layout, node, leaseStore");
  CHECK_MESSAGE_HAS("did you mean 'leaseStore'?");
  CHECK_STATUS(idforge_check_option(IDFORGE_OPTIONS_MASK, IDFORGE_SNAKE_CASE, "mask", "key\x1b", 5),
               IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_check_option(IDFORGE_OPTIONS_MASK, IDFORGE_SNAKE_CASE, "mask", "k\033", 2),
               IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("'k\\x1b'");
  CHECK_STATUS(idforge_check_option((idforge_options)9, IDFORGE_SNAKE_CASE, "x", "mode", 4),
               IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_quote("a\nb\xff", 4, 64, out, sizeof out, &needed), IDFORGE_OK);
  CHECK(strcmp(out, "a\\nb\\xff") == 0);
  CHECK(needed == strlen(out) + 1);
  CHECK_STATUS(idforge_quote("abc", 3, 8, out, sizeof out, NULL), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_quote("abcdef", 6, 64, NULL, 0, &needed), IDFORGE_E_BUFFER_TOO_SMALL);
  CHECK(needed == 7);
}

static void test_inspect(void) {
  char out[2048];
  size_t needed = 0;
  const char* v7 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
  CHECK_STATUS(idforge_inspect_json(v7, strlen(v7), NULL, out, sizeof out, &needed), IDFORGE_OK);
  CHECK(needed == strlen(out) + 1);
  CHECK(strstr(out, "\"kind\":\"uuid\"") != NULL);
  CHECK(strstr(out, "\"unix_ms\":1645557742000") != NULL);
  CHECK(strstr(out, "\"warning\":") != NULL);
  CHECK_STATUS(idforge_inspect_json("1288834974657", 13, "twitter", out, sizeof out, NULL),
               IDFORGE_OK);
  CHECK(strstr(out, "\"kind\":\"snowflake\"") != NULL);
  CHECK_STATUS(idforge_inspect_json(v7, strlen(v7), NULL, out, 10, &needed),
               IDFORGE_E_BUFFER_TOO_SMALL);
  CHECK(needed > 10);
  CHECK_STATUS(idforge_inspect_json(v7, strlen(v7), NULL, NULL, 0, &needed),
               IDFORGE_E_BUFFER_TOO_SMALL);
  CHECK_STATUS(idforge_inspect_json("not an id", 9, NULL, out, sizeof out, &needed),
               IDFORGE_E_PARSE_ERROR);
  CHECK_MESSAGE_HAS("not an id");
  CHECK_STATUS(idforge_inspect_json("\xff\xfe", 2, NULL, out, sizeof out, &needed),
               IDFORGE_E_PARSE_ERROR);
  CHECK_STATUS(idforge_inspect_json("1", 1, "bogus-layout", out, sizeof out, &needed),
               IDFORGE_E_PARSE_ERROR);
  CHECK_STATUS(idforge_inspect_json(NULL, 3, NULL, out, sizeof out, &needed),
               IDFORGE_E_INVALID_ARGUMENT);
}

/* A NULL output buffer with room claimed is a bad argument, not a short buffer; a length no
 * text can have is a bad argument, not an internal error. */
static void test_bad_buffers_and_lengths(void) {
  idforge_snowflake* gen = NULL;
  idforge_uuid u;
  idforge_ulid l;
  size_t needed = 1;
  CHECK_STATUS(idforge_snowflake_new("twitter", 3, NULL, &gen), IDFORGE_OK);
  CHECK_STATUS(idforge_snowflake_layout(gen, NULL, 500, NULL), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("idforge_snowflake_layout: out must not be NULL");
  CHECK_STATUS(idforge_snowflake_layout(gen, NULL, 0, &needed), IDFORGE_E_BUFFER_TOO_SMALL);
  CHECK(needed > 1);
  idforge_snowflake_free(gen);
  CHECK_STATUS(idforge_inspect_json("123", 3, NULL, NULL, 500, NULL), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("idforge_inspect_json: out must not be NULL");
  needed = 1;
  CHECK_STATUS(idforge_inspect_json("123", 3, NULL, NULL, 0, &needed), IDFORGE_E_BUFFER_TOO_SMALL);
  CHECK(needed > 1);
  CHECK_STATUS(idforge_uuid_parse("abc", SIZE_MAX, &u), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("idforge_uuid_parse: len ");
  CHECK_STATUS(idforge_ulid_parse("abc", SIZE_MAX, &l), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("idforge_ulid_parse: len ");
  CHECK_STATUS(idforge_inspect_json("abc", SIZE_MAX, NULL, NULL, 0, NULL),
               IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("idforge_inspect_json: len ");
}

/* `idforge_c_api_test issue N LAYOUT`: N IDs of a fixed node 1 on stdout, one a line (for
 * restart_clock_back.sh, which runs it again with the clock set back). */
static int issue(long n, const char* layout) {
  idforge_snowflake* gen = NULL;
  uint64_t id;
  long i;
  idforge_status made = idforge_snowflake_new(layout, 1, NULL, &gen);
  if (made != IDFORGE_OK) {
    fprintf(stderr, "%s: %s\n", idforge_status_name(made), idforge_last_error());
    return 3;
  }
  for (i = 0; i < n; ++i) {
    idforge_status s = idforge_snowflake_next(gen, &id);
    if (s != IDFORGE_OK) {
      fprintf(stderr, "%s: %s\n", idforge_status_name(s), idforge_last_error());
      idforge_snowflake_free(gen);
      return 4;
    }
    printf("%llu\n", (unsigned long long)id);
  }
  idforge_snowflake_free(gen);
  return 0;
}

int main(int argc, char** argv) {
  char dir[] = "/tmp/idforge-c-test-XXXXXX";
  if (argc == 4 && strcmp(argv[1], "issue") == 0) return issue(atol(argv[2]), argv[3]);
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  {
    /* Fixed nodes keep their lock and mark here, not under the working directory. */
    char leases[600];
    snprintf(leases, sizeof leases, "%s/leases", dir);
    setenv("IDFORGE_LEASE_DIR", leases, 1);
  }
  test_status_names();
  test_uuid4();
  test_uuid7();
  test_uuid_text();
  test_ulid();
  test_snowflake_fixed();
  test_snowflake_errors();
  test_snowflake_leased(dir);
  test_snowflake_fixed_fork();
  test_snowflake_fixed_registry(getenv("IDFORGE_LEASE_DIR"));
  test_snowflake_two_stores_one_node(dir);
  test_snowflake_one_node_one_layout(dir);
  test_options_and_quote();
  test_inspect();
  test_bad_buffers_and_lengths();
  {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  }
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  puts("c_api_test: all checks passed");
  return 0;
}
