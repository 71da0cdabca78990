/* The C face of idforge's masking (idforge/mask.hpp, idforge/public_id.hpp) for the
 * PostgreSQL extension's idforge_mask() family (idforge_pg_mask.c).
 *
 * The keyring is this process's (one backend): idf_mask_load() reads it from the file the
 * setting idforge.mask_key_file names, or from the environment (IDFORGE_MASK_KEY_FILE,
 * IDFORGE_MASK_KEYS) when the setting is empty, and keeps it until the setting's
 * generation changes. Every other function masks with the keyring loaded last. None lets a
 * C++ exception out: each returns IDF_MASK_OK or one of the classes below, with a one-line
 * message in err (IDF_ERR_SIZE bytes) that names the value and the rule, never a secret.
 */
#ifndef IDFORGE_PG_MASK_SHIM_H
#define IDFORGE_PG_MASK_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Room for a public ID and its terminator (core's kMaxPublicIdSize + 1). */
#define IDF_PUBLIC_ID_SIZE 28
/* key_id argument: the keyring's primary key (its first entry). */
#define IDF_MASK_PRIMARY (-1)

typedef enum idf_mask_status {
  IDF_MASK_OK = 0,
  IDF_MASK_NO_KEY = 1,     /* no keyring: the setting is empty and so is the environment */
  IDF_MASK_KEY_ERROR = 2,  /* the keyring cannot be read or parsed; a key ID it lacks */
  IDF_MASK_BAD_VALUE = 3,  /* a value outside the mode's domain, an unknown mode or alphabet */
  IDF_MASK_BAD_TEXT = 4,   /* a public ID of a wrong length or character, or mistyped */
  IDF_MASK_NOT_OURS = 5,   /* a public ID made with a key this keyring lacks, or another secret */
  IDF_MASK_WRONG_KIND = 6, /* a public ID of another mode than the function returns */
} idf_mask_status;

/* Makes the keyring of key_file (NULL or "": the environment) this process's, reading it
 * when nothing is loaded yet or generation differs from the one it was loaded under. A
 * failed load keeps nothing, so the next call tries again. */
int idf_mask_load(const char* key_file, uint64_t generation, char* err);

/* Where the keyring came from and its key IDs ("file 'k.txt': keys 2, 1"), into out. */
int idf_mask_describe(char* out, size_t size, char* err);

/* A bigint's public ID (u63) under key_id in alphabet ("base58", "base62"), into out. */
int idf_mask_bigint_public(int64_t value, const char* alphabet, int key_id,
                           char out[IDF_PUBLIC_ID_SIZE], char* err);

/* A UUID's public ID: mode "auto" (v7 for a UUIDv7, else u128), "u128" or "v7". */
int idf_mask_uuid_public(const unsigned char value[16], const char* mode, const char* alphabet,
                         int key_id, char out[IDF_PUBLIC_ID_SIZE], char* err);

/* A bigint masked (unmask = 0) or unmasked (unmask = 1), raw, under key_id. */
int idf_mask_bigint_raw(int64_t value, int key_id, int unmask, int64_t* out, char* err);

/* A UUID masked or unmasked, raw, under key_id. mode: "u128", "v7", or "auto" (masking: v7
 * for a UUIDv7, else u128; unmasking: v7 for a UUIDv4 of the RFC 9562 variant, else u128). */
int idf_mask_uuid_raw(const unsigned char value[16], const char* mode, int key_id, int unmask,
                      unsigned char out[16], char* err);

/* Reads a public ID of len bytes in alphabet with the keyring. want_uuid = 0: it must be of
 * mode u63 and its value lands in *out_bigint; 1: a UUID mode, into out_uuid. */
int idf_unmask_public(const char* text, size_t len, const char* alphabet, int want_uuid,
                      int64_t* out_bigint, unsigned char out_uuid[16], char* err);

#ifdef __cplusplus
}
#endif

#endif /* IDFORGE_PG_MASK_SHIM_H */
