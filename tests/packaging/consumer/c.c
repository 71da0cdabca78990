/* idforge::c alone, from C: a UUIDv7 and two Snowflakes from a fixed node, through libidforge.so.
 */
#include <idforge/idforge.h>

#include <stdio.h>

int main(void) {
  idforge_uuid u;
  char text[IDFORGE_UUID_TEXT_SIZE];
  idforge_snowflake* gen = NULL;
  uint64_t a = 0, b = 0;
  if (idforge_make_uuid7(&u) != IDFORGE_OK ||
      idforge_uuid_format(&u, text, sizeof text) != IDFORGE_OK ||
      idforge_snowflake_new("twitter", 7, NULL, &gen) != IDFORGE_OK ||
      idforge_snowflake_next(gen, &a) != IDFORGE_OK ||
      idforge_snowflake_next(gen, &b) != IDFORGE_OK || b <= a) {
    fprintf(stderr, "c: %s\n", idforge_last_error());
    return 1;
  }
  idforge_snowflake_free(gen);
  printf("c: uuid7 %s, snowflakes increase\n", text);
  return 0;
}
