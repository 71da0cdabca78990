/* The masking functions of the PostgreSQL extension (idforge_pg_mask.c). */
#ifndef IDFORGE_PG_MASK_H
#define IDFORGE_PG_MASK_H

/* Defines idforge.mask_key_file; _PG_init calls it. */
void idforge_mask_define_settings(void);

#endif /* IDFORGE_PG_MASK_H */
