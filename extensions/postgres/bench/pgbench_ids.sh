#!/usr/bin/env bash
# ID functions inside PostgreSQL 15, in ONE run on one instance of its own (idforge
# preloaded): idforge_snowflake(), uuidv7(), gen_random_uuid(), nextval(), a PL/pgSQL
# UUIDv7 (the widely copied uuid_generate_v7 gist by kjmph) and Instagram's next_id()
# (PL/pgSQL from "Sharding & IDs at Instagram", 2012), both as published, written in below
# as benchmark peers. Two measures per function, rounds interleaved so noise hits all alike:
#   pgbench: -n -M prepared -T $T -c 2 -j 2, one `SELECT f()` a transaction: TPS (statements/s)
#   series:  SELECT count(f()) FROM generate_series(1, 1e6), psql \timing: wall ms per 1e6 calls
# Prints a Markdown table of medians (docs/BENCHMARKS.md). Needs root (the server runs as
# the postgres user) and the extension installed (cmake --install build --component pg_extension).
# Usage: bash extensions/postgres/bench/pgbench_ids.sh [rounds=3] [seconds=10]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
rounds="${1:-3}" T="${2:-10}"
export IDFORGE_PG_WORK="${IDFORGE_PG_WORK:-$root/build/pgext-bench}"
PGI_NAME=bench PGI_PORT=$((15453 + ${IDFORGE_PORT_OFFSET:-0}))
mkdir -p "$IDFORGE_PG_WORK"
# shellcheck source=../test/pg_instance.sh
. "$here/../test/pg_instance.sh"
pgi_need_installed
trap 'pgi_stop fast' EXIT
pgi_init <<CONF
shared_preload_libraries = 'idforge'
idforge.node = 1
CONF
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
pgi_psql -d postgres >/dev/null <<'SQL'
CREATE EXTENSION idforge;
CREATE SEQUENCE bench_seq;

-- kjmph's uuid_generate_v7() gist (PL/pgSQL), as published.
create or replace function uuid_generate_v7()
returns uuid
as $$
begin
  -- use random v4 uuid as starting point (which has the same variant we need)
  -- then overlay timestamp
  -- then set version 7 by flipping the 2 and 1 bit in the version 4 string
  return encode(
    set_bit(
      set_bit(
        overlay(uuid_send(gen_random_uuid())
                placing substring(int8send(floor(extract(epoch from clock_timestamp()) * 1000)::bigint) from 3)
                from 1 for 6
        ),
        52, 1
      ),
      53, 1
    ),
    'hex')::uuid;
end
$$
language plpgsql
volatile;

-- Instagram's next_id() ("Sharding & IDs at Instagram"), as published (schema-less).
CREATE SEQUENCE table_id_seq;
CREATE OR REPLACE FUNCTION next_id(OUT result bigint) AS $$
DECLARE
    our_epoch bigint := 1314220021721;
    seq_id bigint;
    now_millis bigint;
    shard_id int := 5;
BEGIN
    SELECT nextval('table_id_seq') % 1024 INTO seq_id;
    SELECT FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) INTO now_millis;
    result := (now_millis - our_epoch) << 23;
    result := result | (shard_id << 10);
    result := result | (seq_id);
END;
$$ LANGUAGE PLPGSQL;
SQL

funcs=("idforge_snowflake()" "uuidv7()" "gen_random_uuid()" "nextval('bench_seq')" "uuid_generate_v7()" "next_id()")
declare -A tps series
for r in $(seq 1 "$rounds"); do
  for f in "${funcs[@]}"; do
    echo "SELECT $f;" >"$pgi_dir/bench.sql"
    t=$(pgbench -n -M prepared -T "$T" -c 2 -j 2 -h 127.0.0.1 -p "$PGI_PORT" -U postgres \
          -f "$pgi_dir/bench.sql" postgres 2>&1 | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
    ms=$(psql -X -h 127.0.0.1 -p "$PGI_PORT" -U postgres -d postgres -c '\timing on' \
           -c "SELECT count($f) FROM generate_series(1, 1e6)" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
    tps[$f]="${tps[$f]:-} $t"
    series[$f]="${series[$f]:-} $ms"
    echo "round $r: $f tps=$t series_ms=$ms" >&2
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
base_tps=$(echo "${tps["gen_random_uuid()"]}" | median)
base_ms=$(echo "${series["next_id()"]}" | median)
echo "| function | pgbench TPS (median of $rounds) | TPS / gen_random_uuid() | ms per 1e6 calls, generate_series (median) | speed vs next_id() |"
echo "|---|---:|---:|---:|---:|"
for f in "${funcs[@]}"; do
  t=$(echo "${tps[$f]}" | median)
  ms=$(echo "${series[$f]}" | median)
  awk -v f="$f" -v t="$t" -v bt="$base_tps" -v ms="$ms" -v bm="$base_ms" \
    'BEGIN { printf "| `%s` | %.0f | %.2f | %.0f | %.1fx |\n", f, t, t / bt, ms, bm / ms }'
done
