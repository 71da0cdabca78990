/* Masking through the C ABI: keyrings from a file, the environment and text; raw and public
 * forms against the committed known answers (tests/core/mask_vectors_test.cpp); rotation;
 * every error path with its status and message; one keyring used by many threads. Plain C99
 * with checks that print what failed and exit 1. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

#define CHECK_MESSAGE_LACKS(part)                                                \
  do {                                                                           \
    if (strstr(idforge_last_error(), (part))) {                                  \
      fprintf(stderr, "%s:%d: last error '%s' shows '%s'\n", __FILE__, __LINE__, \
              idforge_last_error(), (part));                                     \
      ++failures;                                                                \
    }                                                                            \
  } while (0)

/* The public test keys of tests/core/mask_support.hpp (never use them anywhere else). */
#define COUNTING "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
#define DESCENDING "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0efeeedecebeae9e8e7e6e5e4e3e2e1e0"

static idforge_mask_keyring* ring_of(const char* text) {
  idforge_mask_keyring* kr = NULL;
  idforge_status s = idforge_mask_keyring_from_text(text, strlen(text), &kr);
  if (s != IDFORGE_OK) {
    fprintf(stderr, "keyring '%s': %s\n", text, idforge_last_error());
    ++failures;
  }
  return kr;
}

static idforge_uuid uuid_of(const char* text) {
  idforge_uuid u;
  memset(&u, 0, sizeof u);
  CHECK_STATUS(idforge_uuid_parse(text, strlen(text), &u), IDFORGE_OK);
  return u;
}

static int uuid_is(const idforge_uuid* u, const char* text) {
  char buf[IDFORGE_UUID_TEXT_SIZE];
  return idforge_uuid_format(u, buf, sizeof buf) == IDFORGE_OK && strcmp(buf, text) == 0;
}

/* The known answers of key 1 = COUNTING: the C ABI maps exactly as core does. */
static void test_known_answers(void) {
  idforge_mask_keyring* kr = ring_of("1:" COUNTING);
  uint64_t m = 0, back = 0;
  char pub[IDFORGE_PUBLIC_ID_TEXT_SIZE];
  idforge_uuid v7 = uuid_of("017f22e2-79b0-7cc3-98c4-dc0c0c07398f"), out;
  idforge_public_id info;
  CHECK_STATUS(idforge_mask_u63(kr, IDFORGE_MASK_KEY_PRIMARY, 4001, &m), IDFORGE_OK);
  CHECK(m == 8888165847862036857ull);
  CHECK_STATUS(idforge_unmask_u63(kr, 1, m, &back), IDFORGE_OK);
  CHECK(back == 4001);
  CHECK_STATUS(idforge_mask_u63(kr, 1, 9223372036854775807ull, &m), IDFORGE_OK);
  CHECK(m == 970847276949345342ull);
  CHECK_STATUS(idforge_mask_public_u63(kr, -1, 4001, IDFORGE_BASE58, pub, sizeof pub), IDFORGE_OK);
  CHECK(strcmp(pub, "MddbJ9eWq3n1mGH2") == 0);
  CHECK_STATUS(idforge_mask_public_u63(kr, -1, 4001, IDFORGE_BASE62, pub, 17), IDFORGE_OK);
  CHECK(strcmp(pub, "AaZtQ4anDKrkd562") == 0);
  CHECK_STATUS(idforge_unmask_public(kr, "AaZtQ4anDKrkd562", 16, IDFORGE_BASE62, IDFORGE_MASK_AUTO,
                                     IDFORGE_MASK_KEY_PRIMARY, &info),
               IDFORGE_OK);
  CHECK(info.mode == IDFORGE_MASK_U63 && info.key_id == 1 && info.value == 4001);

  /* v7 -> a v4-shaped UUID and back, raw and public; AUTO picks V7 for a UUIDv7. */
  CHECK_STATUS(idforge_mask_uuid(kr, -1, IDFORGE_MASK_AUTO, &v7, &out), IDFORGE_OK);
  CHECK(uuid_is(&out, "0dde117f-3573-4008-bf85-de15727c4cd1"));
  CHECK_STATUS(idforge_unmask_uuid(kr, -1, IDFORGE_MASK_AUTO, &out, &out), IDFORGE_OK);
  CHECK(uuid_is(&out, "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"));
  CHECK_STATUS(
      idforge_mask_public_uuid(kr, -1, IDFORGE_MASK_V7, &v7, IDFORGE_BASE58, pub, sizeof pub),
      IDFORGE_OK);
  CHECK(strcmp(pub, "2Z1WBwQe58xTLy7NrhuepCgabz") == 0);
  CHECK_STATUS(
      idforge_unmask_public(kr, pub, strlen(pub), IDFORGE_BASE58, IDFORGE_MASK_V7, 1, &info),
      IDFORGE_OK);
  CHECK(info.mode == IDFORGE_MASK_V7 && info.key_id == 1 && info.value == 0);
  CHECK(uuid_is(&info.uuid, "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"));

  /* The same UUID as U128: the whole 128 bits. */
  CHECK_STATUS(idforge_mask_uuid(kr, -1, IDFORGE_MASK_U128, &v7, &out), IDFORGE_OK);
  CHECK(uuid_is(&out, "fd57639d-7de2-5d5b-80e6-ecc65a67977f"));
  CHECK_STATUS(idforge_unmask_uuid(kr, -1, IDFORGE_MASK_U128, &out, &out), IDFORGE_OK);
  CHECK(uuid_is(&out, "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"));
  CHECK_STATUS(
      idforge_mask_public_uuid(kr, -1, IDFORGE_MASK_U128, &v7, IDFORGE_BASE58, pub, sizeof pub),
      IDFORGE_OK);
  CHECK(strcmp(pub, "YHTGk5gzei7o2jitbPFkwgR412g") == 0);
  CHECK_STATUS(
      idforge_unmask_public(kr, pub, strlen(pub), IDFORGE_BASE58, IDFORGE_MASK_AUTO, -1, &info),
      IDFORGE_OK);
  CHECK(info.mode == IDFORGE_MASK_U128);
  CHECK(uuid_is(&info.uuid, "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"));
  /* AUTO on a UUID that is not a v7 is U128. */
  {
    idforge_uuid v4 = uuid_of("919108f7-52d1-4320-9bac-f847db4148a8");
    CHECK_STATUS(idforge_mask_uuid(kr, -1, IDFORGE_MASK_AUTO, &v4, &out), IDFORGE_OK);
    CHECK(uuid_is(&out, "5986d403-d9b8-3300-706a-f85f5e1de524"));
    CHECK_STATUS(idforge_unmask_uuid(kr, -1, IDFORGE_MASK_U128, &out, &out), IDFORGE_OK);
    CHECK(uuid_is(&out, "919108f7-52d1-4320-9bac-f847db4148a8"));
  }
  idforge_mask_keyring_free(kr);
  idforge_mask_keyring_free(NULL);
}

/* Keys rotate: the new primary masks, the old key still unmasks what it made. */
static void test_rotation(void) {
  idforge_mask_keyring* old_ring = ring_of("1:" COUNTING);
  idforge_mask_keyring* rotated = ring_of("2:" DESCENDING "\n1:" COUNTING " # retired\n");
  char old_pub[IDFORGE_PUBLIC_ID_TEXT_SIZE], new_pub[IDFORGE_PUBLIC_ID_TEXT_SIZE];
  unsigned ids[4] = {99, 99, 99, 99};
  size_t count = 0;
  uint64_t m = 0, back = 0;
  idforge_public_id info;
  CHECK_STATUS(idforge_mask_public_u63(old_ring, -1, 4001, IDFORGE_BASE58, old_pub, sizeof old_pub),
               IDFORGE_OK);
  CHECK_STATUS(idforge_mask_public_u63(rotated, -1, 4001, IDFORGE_BASE58, new_pub, sizeof new_pub),
               IDFORGE_OK);
  CHECK(strcmp(old_pub, new_pub) != 0);
  CHECK_STATUS(
      idforge_unmask_public(rotated, old_pub, 16, IDFORGE_BASE58, IDFORGE_MASK_AUTO, -1, &info),
      IDFORGE_OK);
  CHECK(info.key_id == 1 && info.value == 4001);
  CHECK_STATUS(
      idforge_unmask_public(rotated, new_pub, 16, IDFORGE_BASE58, IDFORGE_MASK_AUTO, -1, &info),
      IDFORGE_OK);
  CHECK(info.key_id == 2 && info.value == 4001);
  /* Raw values carry no key ID: the old key is named. */
  CHECK_STATUS(idforge_mask_u63(old_ring, -1, 4001, &m), IDFORGE_OK);
  CHECK_STATUS(idforge_unmask_u63(rotated, 1, m, &back), IDFORGE_OK);
  CHECK(back == 4001);
  CHECK_STATUS(idforge_unmask_u63(rotated, -1, m, &back), IDFORGE_OK);
  CHECK(back != 4001);
  /* The key IDs, primary first, and the count query. */
  CHECK_STATUS(idforge_mask_keyring_ids(rotated, ids, 4, &count), IDFORGE_OK);
  CHECK(count == 2 && ids[0] == 2 && ids[1] == 1 && ids[2] == 99);
  CHECK_STATUS(idforge_mask_keyring_ids(rotated, NULL, 0, &count), IDFORGE_E_BUFFER_TOO_SMALL);
  CHECK(count == 2);
  CHECK_STATUS(idforge_mask_keyring_ids(rotated, ids, 1, &count), IDFORGE_E_BUFFER_TOO_SMALL);
  CHECK_MESSAGE_HAS("holds 2");
  CHECK_STATUS(idforge_mask_keyring_ids(rotated, NULL, 3, &count), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_mask_keyring_ids(NULL, ids, 4, &count), IDFORGE_E_INVALID_ARGUMENT);
  idforge_mask_keyring_free(old_ring);
  idforge_mask_keyring_free(rotated);
}

/* Reading a public ID: each check fails with its own status, and the message says which. */
static void test_public_read_errors(void) {
  idforge_mask_keyring* kr = ring_of("1:" COUNTING);
  idforge_mask_keyring* other_secret = ring_of("1:" DESCENDING);
  idforge_mask_keyring* other_id = ring_of("3:" COUNTING);
  idforge_public_id info;
  char typo[] = "MddbJ9eWq3n1mGH2";
  memset(&info, 0x5a, sizeof info);
  typo[4] = 'K';
  CHECK_STATUS(idforge_unmask_public(kr, typo, 16, IDFORGE_BASE58, IDFORGE_MASK_AUTO, -1, &info),
               IDFORGE_E_PARSE_ERROR);
  CHECK_MESSAGE_HAS("mistyped");
  CHECK(info.key_id == 0x5a5a5a5a); /* untouched on failure */
  CHECK_STATUS(idforge_unmask_public(kr, "MddbJ9eWq3n1mGH", 15, IDFORGE_BASE58, IDFORGE_MASK_AUTO,
                                     -1, &info),
               IDFORGE_E_PARSE_ERROR);
  CHECK_MESSAGE_HAS("15 characters");
  CHECK_STATUS(idforge_unmask_public(kr, "MddbJ9eWq3n1mG0O", 16, IDFORGE_BASE58, IDFORGE_MASK_AUTO,
                                     -1, &info),
               IDFORGE_E_PARSE_ERROR);
  CHECK_MESSAGE_HAS("'0' is not a base58 character");
  /* A base62 ID read as base58 fails: this one passes the check character by chance, and
   * then its keyed tag does not match. */
  CHECK_STATUS(idforge_unmask_public(kr, "AaZtQ4anDKrkd562", 16, IDFORGE_BASE58, IDFORGE_MASK_AUTO,
                                     -1, &info),
               IDFORGE_E_NOT_OURS);
  /* Bytes that are not UTF-8, and a NUL, are characters outside the alphabet; the message
   * shows them escaped and whole (a raw NUL would end it). */
  CHECK_STATUS(idforge_unmask_public(kr, "MddbJ9eWq3n1mG\xff\xfe", 16, IDFORGE_BASE58,
                                     IDFORGE_MASK_AUTO, -1, &info),
               IDFORGE_E_PARSE_ERROR);
  CHECK_MESSAGE_HAS("position 14");
  CHECK_MESSAGE_HAS("'\\xff' is not a base58 character");
  CHECK_STATUS(idforge_unmask_public(kr, "MddbJ9eW\0q3n1mGH", 16, IDFORGE_BASE58, IDFORGE_MASK_AUTO,
                                     -1, &info),
               IDFORGE_E_PARSE_ERROR);
  CHECK_MESSAGE_HAS("'\\x00' is not a base58 character");
  /* Made with another secret under the same key ID: not ours. */
  CHECK_STATUS(idforge_unmask_public(other_secret, "MddbJ9eWq3n1mGH2", 16, IDFORGE_BASE58,
                                     IDFORGE_MASK_AUTO, -1, &info),
               IDFORGE_E_NOT_OURS);
  CHECK_MESSAGE_HAS("keyed check does not match");
  CHECK_MESSAGE_LACKS(DESCENDING);
  /* Made with a key ID the keyring does not hold. */
  CHECK_STATUS(idforge_unmask_public(other_id, "MddbJ9eWq3n1mGH2", 16, IDFORGE_BASE58,
                                     IDFORGE_MASK_AUTO, -1, &info),
               IDFORGE_E_KEY_ERROR);
  CHECK_MESSAGE_HAS("names mask key 1");
  CHECK_MESSAGE_HAS("it holds 3");
  /* Expected mode and key. */
  CHECK_STATUS(
      idforge_unmask_public(kr, "MddbJ9eWq3n1mGH2", 16, IDFORGE_BASE58, IDFORGE_MASK_V7, -1, &info),
      IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("is of mode u63, not v7");
  CHECK_STATUS(
      idforge_unmask_public(kr, "MddbJ9eWq3n1mGH2", 16, IDFORGE_BASE58, IDFORGE_MASK_U63, 2, &info),
      IDFORGE_E_KEY_ERROR);
  CHECK_MESSAGE_HAS("made with mask key 1, not 2");
  CHECK_STATUS(idforge_unmask_public(kr, "MddbJ9eWq3n1mGH2", 16, IDFORGE_BASE58,
                                     (idforge_mask_mode)7, -1, &info),
               IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("expect_mode 7");
  CHECK_STATUS(idforge_unmask_public(kr, "MddbJ9eWq3n1mGH2", 16, IDFORGE_BASE58, IDFORGE_MASK_AUTO,
                                     -2, &info),
               IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_unmask_public(kr, "MddbJ9eWq3n1mGH2", 16, (idforge_public_alphabet)2,
                                     IDFORGE_MASK_AUTO, -1, &info),
               IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("alphabet 2");
  CHECK_STATUS(idforge_unmask_public(kr, NULL, 16, IDFORGE_BASE58, IDFORGE_MASK_AUTO, -1, &info),
               IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_unmask_public(kr, "", 0, IDFORGE_BASE58, IDFORGE_MASK_AUTO, -1, &info),
               IDFORGE_E_PARSE_ERROR);
  CHECK_STATUS(
      idforge_unmask_public(kr, "x", SIZE_MAX, IDFORGE_BASE58, IDFORGE_MASK_AUTO, -1, &info),
      IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("idforge_unmask_public: len ");
  CHECK_STATUS(idforge_unmask_public(kr, "MddbJ9eWq3n1mGH2", 16, IDFORGE_BASE58, IDFORGE_MASK_AUTO,
                                     -1, NULL),
               IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_unmask_public(NULL, "MddbJ9eWq3n1mGH2", 16, IDFORGE_BASE58,
                                     IDFORGE_MASK_AUTO, -1, &info),
               IDFORGE_E_INVALID_ARGUMENT);
  idforge_mask_keyring_free(kr);
  idforge_mask_keyring_free(other_secret);
  idforge_mask_keyring_free(other_id);
}

/* Masking: values outside a mode's domain, keys not held, bad arguments. */
static void test_mask_errors(void) {
  idforge_mask_keyring* kr = ring_of("1:" COUNTING);
  uint64_t m = 0;
  char pub[IDFORGE_PUBLIC_ID_TEXT_SIZE];
  idforge_uuid v4 = uuid_of("919108f7-52d1-4320-9bac-f847db4148a8"), out;
  idforge_uuid v7 = uuid_of("017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
  CHECK_STATUS(idforge_mask_u63(kr, -1, 0, &m), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("value 0 is outside 1..9223372036854775807");
  CHECK_STATUS(idforge_mask_u63(kr, -1, 9223372036854775808ull, &m), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("9223372036854775808");
  CHECK_STATUS(idforge_unmask_u63(kr, -1, UINT64_MAX, &m), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("18446744073709551615");
  CHECK_STATUS(idforge_mask_public_u63(kr, -1, 0, IDFORGE_BASE58, pub, sizeof pub),
               IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("public ID of 0");
  CHECK_STATUS(idforge_mask_u63(kr, 2, 5, &m), IDFORGE_E_KEY_ERROR);
  CHECK_MESSAGE_HAS("mask key 2 is not in the keyring from keyring text (it holds 1)");
  CHECK_STATUS(idforge_mask_u63(kr, 58, 5, &m), IDFORGE_E_KEY_ERROR);
  CHECK_STATUS(idforge_mask_u63(kr, -7, 5, &m), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("key_id -7");
  CHECK_STATUS(idforge_mask_u63(NULL, -1, 5, &m), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_mask_u63(kr, -1, 5, NULL), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_unmask_u63(kr, -1, 5, NULL), IDFORGE_E_INVALID_ARGUMENT);

  /* V7 takes a UUIDv7 only; unmasking V7 a v4-shaped UUID only; U63 is not a UUID mode. */
  CHECK_STATUS(idforge_mask_uuid(kr, -1, IDFORGE_MASK_V7, &v4, &out), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("919108f7-52d1-4320-9bac-f847db4148a8 is not a UUIDv7");
  CHECK_STATUS(idforge_unmask_uuid(kr, -1, IDFORGE_MASK_V7, &v7, &out), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("is not a UUIDv4");
  CHECK_STATUS(idforge_mask_uuid(kr, -1, IDFORGE_MASK_U63, &v7, &out), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("takes an integer");
  CHECK_STATUS(idforge_mask_uuid(kr, -1, (idforge_mask_mode)9, &v7, &out),
               IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("mode 9");
  CHECK_STATUS(
      idforge_mask_public_uuid(kr, -1, IDFORGE_MASK_V7, &v4, IDFORGE_BASE58, pub, sizeof pub),
      IDFORGE_E_INVALID_ARGUMENT);
  CHECK_MESSAGE_HAS("is not a UUIDv7");
  CHECK_STATUS(idforge_mask_uuid(kr, -1, IDFORGE_MASK_AUTO, NULL, &out),
               IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_mask_uuid(kr, -1, IDFORGE_MASK_AUTO, &v7, NULL), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_unmask_uuid(NULL, -1, IDFORGE_MASK_AUTO, &v7, &out),
               IDFORGE_E_INVALID_ARGUMENT);

  /* Buffers: the exact size fits, one less does not. */
  CHECK_STATUS(idforge_mask_public_u63(kr, -1, 5, IDFORGE_BASE58, pub, 16),
               IDFORGE_E_BUFFER_TOO_SMALL);
  CHECK_STATUS(idforge_mask_public_uuid(kr, -1, IDFORGE_MASK_V7, &v7, IDFORGE_BASE58, pub, 27),
               IDFORGE_OK);
  CHECK(strlen(pub) == 26);
  CHECK_STATUS(idforge_mask_public_uuid(kr, -1, IDFORGE_MASK_U128, &v7, IDFORGE_BASE58, pub, 27),
               IDFORGE_E_BUFFER_TOO_SMALL);
  CHECK_MESSAGE_HAS("takes 28 bytes");
  CHECK_STATUS(idforge_mask_public_u63(kr, -1, 5, (idforge_public_alphabet)-1, pub, sizeof pub),
               IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_mask_public_u63(kr, -1, 5, IDFORGE_BASE58, NULL, 17),
               IDFORGE_E_INVALID_ARGUMENT);
  idforge_mask_keyring_free(kr);
}

/* Keyrings from a file, the environment and text; errors name the source and the entry,
 * never a secret. */
static void test_keyrings(const char* dir) {
  char path[512], line[IDFORGE_MASK_KEY_LINE_SIZE], line2[IDFORGE_MASK_KEY_LINE_SIZE];
  idforge_mask_keyring* kr = NULL;
  uint64_t a = 0, b = 0;
  FILE* f;
  const char* bad_secret = "1:" COUNTING "\n2:" DESCENDING "zz\n";
  const char* short_secret = "1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e";

  /* A fresh key: "ID:" and 64 hex digits, different each time. */
  CHECK_STATUS(idforge_mask_new_key(7, line, sizeof line), IDFORGE_OK);
  CHECK(strlen(line) == 66 && strncmp(line, "7:", 2) == 0);
  CHECK(strspn(line + 2, "0123456789abcdef") == 64);
  CHECK_STATUS(idforge_mask_new_key(7, line2, sizeof line2), IDFORGE_OK);
  CHECK(strcmp(line, line2) != 0);
  CHECK_STATUS(idforge_mask_new_key(58, line2, sizeof line2), IDFORGE_E_KEY_ERROR);
  CHECK_MESSAGE_HAS("mask key ID 58 is above the largest, 57");
  CHECK_STATUS(idforge_mask_new_key(7, line2, 67), IDFORGE_E_BUFFER_TOO_SMALL);
  CHECK_STATUS(idforge_mask_new_key(7, NULL, 68), IDFORGE_E_INVALID_ARGUMENT);

  /* From a file: the same keys as from text give the same mapping. */
  snprintf(path, sizeof path, "%s/mask.keys", dir);
  f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f) return;
  fprintf(f, "# test keyring\n%s\n", line);
  fclose(f);
  CHECK_STATUS(idforge_mask_keyring_from_file(path, &kr), IDFORGE_OK);
  CHECK_STATUS(idforge_mask_u63(kr, 7, 123456789, &a), IDFORGE_OK);
  idforge_mask_keyring_free(kr);
  kr = ring_of(line);
  CHECK_STATUS(idforge_mask_u63(kr, -1, 123456789, &b), IDFORGE_OK);
  CHECK(a == b && a != 123456789);
  idforge_mask_keyring_free(kr);

  /* From the environment: the file IDFORGE_MASK_KEY_FILE names wins over IDFORGE_MASK_KEYS. */
  unsetenv("IDFORGE_MASK_KEY_FILE");
  unsetenv("IDFORGE_MASK_KEYS");
  kr = (idforge_mask_keyring*)1;
  CHECK_STATUS(idforge_mask_keyring_from_environment(&kr), IDFORGE_E_KEY_ERROR);
  CHECK(kr == NULL);
  CHECK_MESSAGE_HAS("no mask key: set IDFORGE_MASK_KEYS");
  setenv("IDFORGE_MASK_KEYS", "1:" COUNTING, 1);
  CHECK_STATUS(idforge_mask_keyring_from_environment(&kr), IDFORGE_OK);
  CHECK_STATUS(idforge_mask_u63(kr, -1, 4001, &a), IDFORGE_OK);
  CHECK(a == 8888165847862036857ull);
  idforge_mask_keyring_free(kr);
  setenv("IDFORGE_MASK_KEY_FILE", path, 1);
  CHECK_STATUS(idforge_mask_keyring_from_environment(&kr), IDFORGE_OK);
  CHECK_STATUS(idforge_mask_u63(kr, 7, 123456789, &a), IDFORGE_OK);
  CHECK(a == b);
  idforge_mask_keyring_free(kr);
  setenv("IDFORGE_MASK_KEYS", "1:" COUNTING "zz", 1);
  unsetenv("IDFORGE_MASK_KEY_FILE");
  CHECK_STATUS(idforge_mask_keyring_from_environment(&kr), IDFORGE_E_KEY_ERROR);
  CHECK_MESSAGE_HAS("IDFORGE_MASK_KEYS: entry 1");
  CHECK_MESSAGE_LACKS(COUNTING);
  unsetenv("IDFORGE_MASK_KEYS");

  /* Errors: a missing file, malformed entries, a zero secret, nothing at all. */
  CHECK_STATUS(idforge_mask_keyring_from_file("/nonexistent/mask.keys", &kr), IDFORGE_E_KEY_ERROR);
  CHECK_MESSAGE_HAS("'/nonexistent/mask.keys' cannot be read");
  CHECK_STATUS(idforge_mask_keyring_from_text(bad_secret, strlen(bad_secret), &kr),
               IDFORGE_E_KEY_ERROR);
  CHECK_MESSAGE_HAS("keyring text: entry 2 (key ID '2')");
  CHECK_MESSAGE_LACKS(DESCENDING);
  CHECK_MESSAGE_LACKS(COUNTING);
  CHECK_STATUS(idforge_mask_keyring_from_text(short_secret, strlen(short_secret), &kr),
               IDFORGE_E_KEY_ERROR);
  CHECK_MESSAGE_HAS("62 characters");
  CHECK_MESSAGE_LACKS("0a0b0c");
  CHECK_STATUS(idforge_mask_keyring_from_text("1:" COUNTING ",1:" DESCENDING, 133, &kr),
               IDFORGE_E_KEY_ERROR);
  CHECK_MESSAGE_HAS("given twice");
  CHECK_STATUS(idforge_mask_keyring_from_text(
                   "4:0000000000000000000000000000000000000000000000000000000000000000", 66, &kr),
               IDFORGE_E_KEY_ERROR);
  CHECK_MESSAGE_HAS("all zero bytes");
  CHECK_STATUS(idforge_mask_keyring_from_text("# nothing\n", 10, &kr), IDFORGE_E_KEY_ERROR);
  CHECK_MESSAGE_HAS("no key in it");
  CHECK_STATUS(idforge_mask_keyring_from_text("", 0, &kr), IDFORGE_E_KEY_ERROR);
  CHECK_STATUS(idforge_mask_keyring_from_text(NULL, 0, &kr), IDFORGE_E_KEY_ERROR);
  CHECK_STATUS(idforge_mask_keyring_from_text(NULL, 5, &kr), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_mask_keyring_from_text("x", SIZE_MAX, &kr), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_mask_keyring_from_text("x", 1, NULL), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_mask_keyring_from_file(NULL, &kr), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_mask_keyring_from_file(path, NULL), IDFORGE_E_INVALID_ARGUMENT);
  CHECK_STATUS(idforge_mask_keyring_from_environment(NULL), IDFORGE_E_INVALID_ARGUMENT);
  unlink(path);
}

/* One keyring, eight threads, each masking and unmasking its own range in both forms: every
 * result equals what the main thread computes alone. */
#define THREADS 8
#define PER_THREAD 2000

struct job {
  const idforge_mask_keyring* kr;
  uint64_t first;
  uint64_t masked[PER_THREAD];
  int bad;
};

static void* run_job(void* arg) {
  struct job* j = (struct job*)arg;
  int i;
  for (i = 0; i < PER_THREAD; ++i) {
    uint64_t m = 0, back = 0;
    char pub[IDFORGE_PUBLIC_ID_TEXT_SIZE];
    idforge_public_id info;
    if (idforge_mask_u63(j->kr, -1, j->first + (uint64_t)i, &m) != IDFORGE_OK ||
        idforge_unmask_u63(j->kr, -1, m, &back) != IDFORGE_OK || back != j->first + (uint64_t)i ||
        idforge_mask_public_u63(j->kr, -1, back, IDFORGE_BASE62, pub, sizeof pub) != IDFORGE_OK ||
        idforge_unmask_public(j->kr, pub, strlen(pub), IDFORGE_BASE62, IDFORGE_MASK_U63, -1,
                              &info) != IDFORGE_OK ||
        info.value != back)
      ++j->bad;
    j->masked[i] = m;
  }
  return NULL;
}

static void test_threads(void) {
  idforge_mask_keyring* kr = ring_of("2:" DESCENDING " 1:" COUNTING);
  static struct job jobs[THREADS];
  pthread_t threads[THREADS];
  int t, i;
  for (t = 0; t < THREADS; ++t) {
    jobs[t].kr = kr;
    jobs[t].first = 1 + (uint64_t)t * 1000000007ull;
    jobs[t].bad = 0;
    CHECK(pthread_create(&threads[t], NULL, run_job, &jobs[t]) == 0);
  }
  for (t = 0; t < THREADS; ++t) CHECK(pthread_join(threads[t], NULL) == 0);
  for (t = 0; t < THREADS; ++t) {
    CHECK(jobs[t].bad == 0);
    for (i = 0; i < PER_THREAD; i += 97) {
      uint64_t m = 0;
      CHECK_STATUS(idforge_mask_u63(kr, -1, jobs[t].first + (uint64_t)i, &m), IDFORGE_OK);
      CHECK(m == jobs[t].masked[i]);
    }
  }
  idforge_mask_keyring_free(kr);
}

int main(void) {
  char dir[] = "/tmp/idforge-c-mask-XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  test_known_answers();
  test_rotation();
  test_public_read_errors();
  test_mask_errors();
  test_keyrings(dir);
  test_threads();
  rmdir(dir);
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  puts("c_mask_test: all checks passed");
  return 0;
}
