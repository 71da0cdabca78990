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

-- Volatility and parallel safety.
SELECT p.oid::regprocedure AS function, provolatile, proparallel
  FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'idforge'
  ORDER BY 1::text;

DROP TABLE orders;
DROP EXTENSION idforge;
