-- idforge for PostgreSQL: IDs made inside the database (docs/DATABASE.md).
\echo Use "CREATE EXTENSION idforge" to load this file. \quit

-- One Snowflake generator shared by every backend of the cluster (needs
-- shared_preload_libraries = 'idforge'); layout and node from idforge.layout / idforge.node.
CREATE FUNCTION idforge_snowflake() RETURNS bigint
  AS 'MODULE_PATHNAME', 'pg_idforge_snowflake' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

-- Where the shared generator's node ID comes from (idforge.node or idforge.lease_store) and,
-- leased, the lease's state, node, fence, the store's mark and the last error (docs/DATABASE.md).
CREATE FUNCTION idforge_status() RETURNS jsonb
  AS 'MODULE_PATHNAME', 'pg_idforge_status' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

-- The time of a Snowflake under the configured layout (STABLE: it reads idforge.layout).
CREATE FUNCTION idforge_snowflake_time(bigint) RETURNS timestamptz
  AS 'MODULE_PATHNAME', 'pg_idforge_snowflake_time' LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- PostgreSQL 18's names and semantics: ms timestamp, 12 bits of sub-ms fraction,
-- monotonic within a backend; the interval moves the timestamp.
CREATE FUNCTION uuidv7() RETURNS uuid
  AS 'MODULE_PATHNAME', 'pg_idforge_uuidv7' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
CREATE FUNCTION uuidv7(shift interval) RETURNS uuid
  AS 'MODULE_PATHNAME', 'pg_idforge_uuidv7_interval' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

-- PostgreSQL 17's names and semantics.
CREATE FUNCTION uuid_extract_timestamp(uuid) RETURNS timestamptz
  AS 'MODULE_PATHNAME', 'pg_idforge_uuid_extract_timestamp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_extract_version(uuid) RETURNS smallint
  AS 'MODULE_PATHNAME', 'pg_idforge_uuid_extract_version' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION idforge_uuid4() RETURNS uuid
  AS 'MODULE_PATHNAME', 'pg_idforge_uuid4' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
CREATE FUNCTION idforge_ulid() RETURNS text
  AS 'MODULE_PATHNAME', 'pg_idforge_ulid' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
CREATE FUNCTION idforge_typeid(prefix text) RETURNS text
  AS 'MODULE_PATHNAME', 'pg_idforge_typeid' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

-- What `idforge inspect --json` prints (STABLE: Snowflakes are read under idforge.layout).
CREATE FUNCTION idforge_inspect(text) RETURNS jsonb
  AS 'MODULE_PATHNAME', 'pg_idforge_inspect' LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- Public IDs (docs/PUBLIC-IDS.md): keyed, reversible masking of bigint and uuid keys, with
-- the keyring of idforge.mask_key_file (else the server's environment); keys are never SQL
-- arguments. STABLE, not IMMUTABLE: the result depends on that setting, which a reload
-- changes (a rotation), so it must not be folded into a plan or an expression index.
-- key_id -1: the keyring's primary (its first entry).
CREATE FUNCTION idforge_mask_keys() RETURNS text
  AS 'MODULE_PATHNAME', 'pg_idforge_mask_keys' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION idforge_mask(value bigint, alphabet text DEFAULT 'base58',
                             key_id integer DEFAULT -1) RETURNS text
  AS 'MODULE_PATHNAME', 'pg_idforge_mask_bigint' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION idforge_mask(value uuid, mode text DEFAULT 'auto', alphabet text DEFAULT 'base58',
                             key_id integer DEFAULT -1) RETURNS text
  AS 'MODULE_PATHNAME', 'pg_idforge_mask_uuid' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION idforge_unmask(public_id text, alphabet text DEFAULT 'base58') RETURNS bigint
  AS 'MODULE_PATHNAME', 'pg_idforge_unmask_bigint' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION idforge_unmask_uuid(public_id text, alphabet text DEFAULT 'base58') RETURNS uuid
  AS 'MODULE_PATHNAME', 'pg_idforge_unmask_uuid' LANGUAGE C STABLE STRICT PARALLEL SAFE;
-- Raw forms: a positive bigint stays a positive bigint; a UUIDv7 becomes a valid UUIDv4
-- (mode auto or v7), any other UUID 128 masked bits (u128, not a valid UUID).
CREATE FUNCTION idforge_mask_raw(value bigint, key_id integer DEFAULT -1) RETURNS bigint
  AS 'MODULE_PATHNAME', 'pg_idforge_mask_raw_bigint' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION idforge_unmask_raw(masked bigint, key_id integer DEFAULT -1) RETURNS bigint
  AS 'MODULE_PATHNAME', 'pg_idforge_unmask_raw_bigint' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION idforge_mask_raw(value uuid, mode text DEFAULT 'auto',
                                 key_id integer DEFAULT -1) RETURNS uuid
  AS 'MODULE_PATHNAME', 'pg_idforge_mask_raw_uuid' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION idforge_unmask_raw(masked uuid, mode text DEFAULT 'auto',
                                   key_id integer DEFAULT -1) RETURNS uuid
  AS 'MODULE_PATHNAME', 'pg_idforge_unmask_raw_uuid' LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- After a promotion or a restore, keeping the node (docs/DATABASE.md): makes the durable mark
-- that this idforge.node wrote on another timeline or database system this server's own, so
-- idforge_snowflake() issues after it. Only once the server that wrote it issues no more IDs;
-- superusers only (nothing here can see whether the old server still runs).
CREATE FUNCTION idforge_accept_mark() RETURNS text
  AS 'MODULE_PATHNAME', 'pg_idforge_accept_mark' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
REVOKE ALL ON FUNCTION idforge_accept_mark() FROM PUBLIC;
