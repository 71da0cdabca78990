#!/usr/bin/env bash
# 16 pgbench clients insert rows keyed by idforge_snowflake() into one table while the
# server is stopped with `pg_ctl stop -m immediate` (a crash) halfway and started again.
# Passes when: no duplicate-key error anywhere, every row is there, within each backend the
# keys increase in the order its rows were inserted, and every key issued after the crash
# is above every key issued before it. IDFORGE_PG_ROWS: rows in all (default 150000;
# docs/DATABASE.md has a 1M run).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PGI_NAME=pgbench PGI_PORT=$((15452 + ${IDFORGE_PORT_OFFSET:-0}))
# shellcheck source=pg_instance.sh
. "$here/pg_instance.sh"
pgi_need_installed
rows="${IDFORGE_PG_ROWS:-150000}"
clients=16
trap 'pgi_stop immediate' EXIT
pgi_init <<CONF
shared_preload_libraries = 'idforge'
idforge.node = 9
max_connections = 40
shared_buffers = 64MB
fsync = on
synchronous_commit = off
CONF
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
pgi_psql -d postgres >/dev/null <<'SQL'
CREATE EXTENSION idforge;
-- started: which run of the server (a backend's pid may come back after the restart).
CREATE TABLE t (id bigint PRIMARY KEY DEFAULT idforge_snowflake(), pid int NOT NULL,
                started timestamptz NOT NULL, ts timestamptz NOT NULL);
SQL
echo "INSERT INTO t (pid, started, ts) VALUES (pg_backend_pid(), pg_postmaster_start_time(), clock_timestamp());" \
  >"$pgi_dir/insert.sql"
bench() {  # transactions per client, log
  "$pg_bin/pgbench" -n -h 127.0.0.1 -p "$PGI_PORT" -U postgres -c "$clients" -j 2 -t "$1" \
    -f "$pgi_dir/insert.sql" postgres >"$2" 2>&1
}
count() { pgi_psql -d postgres -c "SELECT count(*) FROM t"; }
t0=$(date +%s%N)

# Run 1, stopped by a crash once half the rows are in (bounded: 300 s).
bench $(((rows + clients - 1) / clients)) "$pgi_dir/run1.log" &
bench_pid=$!
for _ in $(seq 1 1500); do
  [ "$(count 2>/dev/null || echo 0)" -ge $((rows / 2)) ] && break
  kill -0 "$bench_pid" 2>/dev/null || break
  sleep 0.2
done
pgi_stop immediate
wait "$bench_pid" || true  # its clients lose their connections
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
before=$(count)

# Run 2: the rest.
left=$((rows - before))
if [ "$left" -gt 0 ]; then
  bench $(((left + clients - 1) / clients)) "$pgi_dir/run2.log" || { cat "$pgi_dir/run2.log" >&2; exit 1; }
fi
t1=$(date +%s%N)

fails=0
check() {  # name condition...
  local name="$1"; shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name" >&2; fails=$((fails + 1)); fi
}
dups=$(cat "$pgi_dir"/run*.log "$pgi_dir/server.log" | grep -c "duplicate key" || true)
total=$(count)
runs=$(pgi_psql -d postgres -c "SELECT count(DISTINCT started) FROM t")
out_of_order=$(pgi_psql -d postgres -c "
  SELECT count(*) FROM (SELECT id, lag(id) OVER (PARTITION BY pid, started ORDER BY ts, id) AS prev
                          FROM t) x WHERE prev >= id")
crossed=$(pgi_psql -d postgres -c "
  WITH r AS (SELECT started, min(id) AS lo, max(id) AS hi FROM t GROUP BY started)
  SELECT count(*) FROM r a JOIN r b ON a.started < b.started WHERE b.lo <= a.hi")
check "no duplicate-key error ($dups)" test "$dups" = 0
check "all rows in: $total >= $rows" test "$total" -ge "$rows"
check "the crash came halfway: $before rows before it, 2 server runs" test "$runs" = 2
check "keys increase per backend in insertion order ($out_of_order out of order)" test "$out_of_order" = 0
check "every key after the crash is above every key before it" test "$crossed" = 0
echo "rows=$total before_crash=$before duplicates=$dups clients=$clients seconds=$(((t1 - t0) / 1000000000))"
pgi_stop fast
[ "$fails" = 0 ]
