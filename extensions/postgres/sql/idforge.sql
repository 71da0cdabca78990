-- idforge inside PostgreSQL 15 with shared_preload_libraries = 'idforge', idforge.node = 5.
CREATE EXTENSION idforge;
SET timezone = 'UTC';
SHOW idforge.layout;
SHOW idforge.node;

-- Snowflake: strictly increasing, distinct, carrying node 5 and the time of now.
CREATE TEMP TABLE s AS SELECT n, idforge_snowflake() AS id FROM generate_series(1, 20000) n;
SELECT count(DISTINCT id) AS distinct_ids FROM s;
SELECT bool_and(id > prev) AS increasing
  FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM s) x WHERE prev IS NOT NULL;
SELECT bool_and((id >> 12) & 1023 = 5) AS node_5 FROM s;
SELECT abs(extract(epoch FROM idforge_snowflake_time(idforge_snowflake()) - clock_timestamp())) < 5
  AS time_is_now;
-- What the generator stands on: node 5 from idforge.node, and the mark file, read at the
-- first ID, a little ahead of the clock (the reserve window).
SELECT st->'ready' AS ready, st->'not_ready' AS not_ready,
       st->>'node_from' AS node_from, st->>'state' AS state, st->'node' AS node,
       st->'lease_store' AS lease_store, st->>'layout' AS layout,
       (st->>'mark_unix_ms')::bigint BETWEEN (st->>'now_unix_ms')::bigint - 5000
                                         AND (st->>'now_unix_ms')::bigint + 5000 AS mark_near_now
  FROM idforge_status() st;
-- Twitter's own example ID.
SELECT idforge_snowflake_time(1212161502634033152);
-- A signed layout never has the top bit set.
SELECT idforge_snowflake_time(-1);

-- As a column default.
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT idforge_snowflake(), note text);
INSERT INTO orders (note) SELECT 'order ' || n FROM generate_series(1, 1000) n;
SELECT count(*) AS orders, count(DISTINCT id) AS distinct_ids FROM orders;
SELECT bool_and(id > prev) AS increasing
  FROM (SELECT id, lag(id) OVER (ORDER BY note COLLATE "C") AS prev FROM orders
        WHERE note IN ('order 1', 'order 2', 'order 3')) x WHERE prev IS NOT NULL;

-- uuidv7() as PostgreSQL 18: version 7, RFC variant, increasing within a backend, now.
SELECT uuid_extract_version(uuidv7()) AS v7, uuid_extract_version(idforge_uuid4()) AS v4;
SELECT bool_and(u > prev) AS increasing
  FROM (SELECT u, lag(u) OVER (ORDER BY n) AS prev
          FROM (SELECT n, uuidv7() AS u FROM generate_series(1, 20000) n) a) b
  WHERE prev IS NOT NULL;
SELECT count(DISTINCT idforge_uuid4()) AS distinct_v4 FROM generate_series(1, 1000);
SELECT abs(extract(epoch FROM uuid_extract_timestamp(uuidv7()) - clock_timestamp())) < 1 AS v7_is_now;
SELECT abs(extract(epoch FROM uuid_extract_timestamp(uuidv7(interval '-1 day')) - clock_timestamp())
           + 86400) < 1 AS shifted_back_a_day;
SELECT abs(extract(epoch FROM uuid_extract_timestamp(uuidv7(interval '1 year')) - clock_timestamp()))
       > 300 * 86400 AS shifted_a_year;
SELECT uuidv7(interval '-100 years');
-- A shift past timestamptz's range is named as such (it wraps around inside PostgreSQL).
SELECT uuidv7(interval '292230 years');
SELECT uuidv7(interval '9000 years');
-- uuid_extract_timestamp / uuid_extract_version as PostgreSQL 17: RFC 9562 test vectors.
SELECT uuid_extract_timestamp('C232AB00-9414-11EC-B3C8-9F6BDECED846') AS v1_time,
       uuid_extract_version('C232AB00-9414-11EC-B3C8-9F6BDECED846') AS v1;
SELECT uuid_extract_timestamp('017F22E2-79B0-7CC3-98C4-DC0C0C07398F') AS v7_time,
       uuid_extract_version('017F22E2-79B0-7CC3-98C4-DC0C0C07398F') AS v7;
-- v6 and v4 carry no timestamp here (as in PostgreSQL 17); not the RFC variant: no version.
SELECT uuid_extract_timestamp('1EC9414C-232A-6B00-B3C8-9F6BDECED846') IS NULL AS v6_null,
       uuid_extract_timestamp(gen_random_uuid()) IS NULL AS v4_null,
       uuid_extract_version('00000000-0000-0000-0000-000000000000') IS NULL AS nil_null,
       uuid_extract_version('017F22E2-79B0-7CC3-D8C4-DC0C0C07398F') IS NULL AS variant_110_null;

-- ULID and TypeID.
SELECT length(u) AS ulid_length, u ~ '^[0-9A-HJKMNP-TV-Z]{26}$' AS crockford
  FROM (SELECT idforge_ulid() AS u) x;
SELECT bool_and(u > prev) AS increasing
  FROM (SELECT u, lag(u) OVER (ORDER BY n) AS prev
          FROM (SELECT n, idforge_ulid() AS u FROM generate_series(1, 5000) n) a) b
  WHERE prev IS NOT NULL;
SELECT t ~ '^user_[0-7][0-9a-hjkmnp-tv-z]{25}$' AS typeid_shape,
       idforge_inspect(t) ->> 'kind' AS kind, idforge_inspect(t) ->> 'version' AS version
  FROM (SELECT idforge_typeid('user') AS t) x;
SELECT idforge_typeid('User');

-- inspect: the fields of `idforge inspect --json`.
SELECT jsonb_pretty(idforge_inspect('01ARZ3NDEKTSV4RRFFQ69G5FAV'));
SELECT jsonb_pretty(idforge_inspect('1212161502634033152'));
SELECT idforge_inspect('017f22e2-79b0-7cc3-98c4-dc0c0c07398f') ->> 'unix_ms' AS unix_ms;
SELECT idforge_inspect('not an id!');

-- Public IDs with the keyring of idforge.mask_key_file: 'mask.keys' in the data directory,
-- key 2 (the primary) and key 1 (an older key). Fixed test keys, so the values below are
-- known answers: they must never change between releases, and equal what `idforge mask`
-- prints with the same keyring.
SHOW idforge.mask_key_file;
SELECT idforge_mask_keys();
SELECT idforge_mask(4001) AS public_id, idforge_mask(4001, 'base62') AS base62,
       idforge_mask(4001, 'base58', 1) AS with_key_1, idforge_mask_raw(4001) AS raw,
       idforge_mask_raw(4001, 1) AS raw_key_1;
SELECT idforge_mask('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid) AS v7_public,
       idforge_mask_raw('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid) AS v7_as_v4,
       idforge_mask_raw('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid, 'u128') AS u128,
       idforge_mask('c232ab00-9414-11ec-b3c8-9f6bdeced846'::uuid) AS v1_public;
-- Round trips: public and raw, every mode, the last bigint, an older key's IDs.
SELECT idforge_unmask(idforge_mask(4001)) AS public, idforge_unmask('BuHxLsmXrRBr9bcj') AS key_1,
       idforge_unmask(idforge_mask(4001, 'base62'), 'base62') AS base62,
       idforge_unmask_raw(idforge_mask_raw(4001, 1), 1) AS raw_key_1,
       idforge_unmask_raw(idforge_mask_raw(9223372036854775807)) AS max_bigint;
SELECT count(*) FILTER (WHERE idforge_unmask(idforge_mask(g)) = g) AS public_ok,
       count(*) FILTER (WHERE idforge_unmask_raw(idforge_mask_raw(g)) = g) AS raw_ok,
       count(DISTINCT idforge_mask_raw(g)) AS distinct_raw, bool_and(idforge_mask_raw(g) > 0) AS positive,
       count(*) FILTER (WHERE idforge_mask_raw(g + 1) > idforge_mask_raw(g)) BETWEEN 4700 AND 5300
         AS order_hidden
  FROM generate_series(1, 10000) g;
CREATE TEMP TABLE u AS SELECT uuidv7() AS v7, gen_random_uuid() AS v4 FROM generate_series(1, 1000);
SELECT count(*) FILTER (WHERE idforge_unmask_uuid(idforge_mask(v7)) = v7 AND length(idforge_mask(v7)) = 26)
         AS v7_public,
       count(*) FILTER (WHERE idforge_unmask_uuid(idforge_mask(v4)) = v4 AND length(idforge_mask(v4)) = 27)
         AS u128_public,
       count(*) FILTER (WHERE uuid_extract_version(idforge_mask_raw(v7)) = 4
                          AND idforge_unmask_raw(idforge_mask_raw(v7)) = v7) AS v7_as_v4_raw,
       count(*) FILTER (WHERE idforge_unmask_raw(idforge_mask_raw(v4), 'u128') = v4) AS u128_raw,
       count(*) FILTER (WHERE idforge_unmask_uuid(idforge_mask(v7, 'u128', 'base62'), 'base62') = v7)
         AS v7_as_u128_base62
  FROM u;
-- STRICT: NULL in, NULL out.
SELECT idforge_mask(NULL::bigint) IS NULL AS n1, idforge_unmask(NULL) IS NULL AS n2,
       idforge_mask_raw(NULL::uuid) IS NULL AS n3;
-- Errors name the value and the rule.
SELECT idforge_mask(0);
SELECT idforge_mask_raw(-5);
SELECT idforge_unmask_raw(0);
SELECT idforge_mask(4001, 'base64');
SELECT idforge_mask(4001, 'base58', 7);
SELECT idforge_mask_raw(4001, 99);
SELECT idforge_mask('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid, 'u63');
SELECT idforge_mask('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid, 'v8');
SELECT idforge_mask_raw('c232ab00-9414-11ec-b3c8-9f6bdeced846'::uuid, 'v7');
SELECT idforge_unmask_raw('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid, 'v7');
SELECT idforge_unmask('abc');
SELECT idforge_unmask('0oP7xDtLY9So2RTp');
SELECT idforge_unmask('5oP7xDtLY9So2Ré');
-- Mistyped: two neighbours swapped, one character changed.
SELECT idforge_unmask('o5P7xDtLY9So2RTp');
SELECT idforge_unmask('5oP7xDtLY9So2RTq');
-- A public ID of the other kind.
SELECT idforge_unmask(idforge_mask('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid));
SELECT idforge_unmask_uuid(idforge_mask(4001));
-- STABLE (the keyring can change on reload): not in an index; the setting only in
-- postgresql.conf, never with SET.
CREATE TEMP TABLE p (id bigint);
CREATE INDEX ON p (idforge_mask(id));
SET idforge.mask_key_file = 'other.keys';

-- Volatility and parallel safety.
SELECT p.oid::regprocedure AS function, provolatile, proparallel
  FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'idforge'
  ORDER BY 1::text;

DROP TABLE orders;
DROP EXTENSION idforge;
