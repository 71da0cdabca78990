#!/usr/bin/env bash
# bench_service.sh [CONNECTIONS] [SECONDS]
# Load benchmark of `idforge serve` on loopback, in one run with its baselines at the same
# number of clients: wrk against GET /v1/ids/snowflake (one ID, then batches of 1,000),
# `redis-benchmark -t incr`, and `pgbench` running SELECT nextval(...).
# Redis and PostgreSQL: the ones in IDFORGE_REDIS_URL / IDFORGE_PG_URL when set (from
# scripts/services.sh), otherwise private instances started here in a temporary folder on
# ports 16399 / 16499 (PostgreSQL as user postgres) and stopped at the end.
# Prints a Markdown table: requests/s, IDs/s, p50 and p99 latency in ms.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
conns="${1:-16}"
secs="${2:-10}"
threads=2
idf="$root/build/src/cli/idforge"
[ -x "$idf" ] || bash "$root/scripts/build.sh" >/dev/null
for tool in wrk redis-benchmark pgbench; do
  command -v "$tool" >/dev/null || { echo "bench_service: $tool is missing (bash scripts/setup.sh)" >&2; exit 1; }
done

tmp="$(mktemp -d /tmp/idforge-bench.XXXXXX)"
chmod 755 "$tmp"
serve_pid="" redis_pid="" pg_data=""
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null || true
  [ -n "$redis_pid" ] && kill "$redis_pid" 2>/dev/null && wait "$redis_pid" 2>/dev/null || true
  if [ -n "$pg_data" ]; then
    runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D "$pg_data" stop -m fast >/dev/null 2>&1 || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# wrk latency "222.00us" / "9.02ms" / "1.20s" -> ms
to_ms() { awk -v v="$1" 'BEGIN { u = v; sub(/^[0-9.]+/, "", u); n = v + 0;
  if (u == "us") n /= 1000; else if (u == "s") n *= 1000; else if (u == "m") n *= 60000; printf "%.3f", n }'; }
rows=()
row() { rows+=("| $1 | $conns | $2 | $3 | $4 | $5 |"); }

# --- idforge serve ------------------------------------------------------------------
"$idf" serve --port 0 --access-log off --max-connections 1024 --data "$tmp/data" >"$tmp/serve.out" 2>"$tmp/serve.err" &
serve_pid=$!
url=""
for _ in $(seq 100); do
  url="$(sed -n 's/^idforge serve: listening on //p' "$tmp/serve.out")"
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "bench_service: idforge serve did not start: $(cat "$tmp/serve.err")" >&2; exit 1; }

run_wrk() {  # label, path, ids per request
  wrk -t"$threads" -c"$conns" -d"${secs}s" --latency "${url}${2#/}" >"$tmp/wrk.txt"
  if grep -q "Non-2xx" "$tmp/wrk.txt"; then echo "bench_service: errors from $2:" >&2; cat "$tmp/wrk.txt" >&2; exit 1; fi
  local rps p50 p99
  rps="$(awk '/^Requests\/sec:/ { print $2 }' "$tmp/wrk.txt")"
  p50="$(to_ms "$(awk '$1 == "50%" { print $2 }' "$tmp/wrk.txt")")"
  p99="$(to_ms "$(awk '$1 == "99%" { print $2 }' "$tmp/wrk.txt")")"
  row "$1" "$(printf '%.0f' "$rps")" "$(awk -v r="$rps" -v n="$3" 'BEGIN { printf "%.0f", r * n }')" "$p50" "$p99"
}
run_wrk "idforge serve, 1 Snowflake per request (wrk)" "/v1/ids/snowflake" 1
run_wrk "idforge serve, 1,000 Snowflakes per request (wrk)" "/v1/ids/snowflake?count=1000" 1000
kill "$serve_pid"
wait "$serve_pid" 2>/dev/null || true
serve_pid=""

# --- Redis INCR ---------------------------------------------------------------------
redis_host=127.0.0.1 redis_port=16399
if [ -n "${IDFORGE_REDIS_URL:-}" ]; then
  hp="${IDFORGE_REDIS_URL#redis://}"
  hp="${hp%%/*}"
  redis_host="${hp%:*}" redis_port="${hp##*:}"
else
  mkdir -p "$tmp/redis"
  redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp/redis" \
    --daemonize no >"$tmp/redis/log" 2>&1 &
  redis_pid=$!
  for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
fi
redis-benchmark -h "$redis_host" -p "$redis_port" -t incr -c "$conns" -n "$((60000 * secs))" --csv >"$tmp/redis.csv"
IFS=, read -r _ rps _ _ p50 _ p99 _ < <(tail -n 1 "$tmp/redis.csv" | tr -d '"')
row "Redis 7 INCR (redis-benchmark)" "$(printf '%.0f' "$rps")" "$(printf '%.0f' "$rps")" "$p50" "$p99"

# --- PostgreSQL nextval -------------------------------------------------------------
pg_conn=()
if [ -n "${IDFORGE_PG_URL:-}" ]; then
  pg_conn=("$IDFORGE_PG_URL")
else
  pg_port=16499
  pg_data="$tmp/pg/data"
  mkdir -p "$tmp/pg" && chown postgres "$tmp/pg"
  runuser -u postgres -- /usr/lib/postgresql/15/bin/initdb -D "$pg_data" -A trust -U postgres >/dev/null
  runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D "$pg_data" -w -l "$tmp/pg/log" \
    -o "-p $pg_port -k $tmp/pg -c listen_addresses=127.0.0.1 -c max_connections=$((conns + 20))" start >/dev/null
  pg_conn=(-h 127.0.0.1 -p "$pg_port" -U postgres postgres)
fi
psql -q "${pg_conn[@]}" -c "CREATE SEQUENCE IF NOT EXISTS idforge_bench_seq" >/dev/null
echo "SELECT nextval('idforge_bench_seq');" >"$tmp/nextval.sql"
(cd "$tmp" && pgbench -n -M prepared -c "$conns" -j "$threads" -T "$secs" -f nextval.sql -l --log-prefix=pglog \
  "${pg_conn[@]}" >"$tmp/pgbench.txt" 2>&1)
rps="$(awk '/^tps = / { print $3; exit }' "$tmp/pgbench.txt")"
# Per-transaction log: the third column is the latency in microseconds.
cat "$tmp"/pglog.* | awk '{ print $3 }' | sort -n >"$tmp/pglat"
n="$(wc -l <"$tmp/pglat")"
p50="$(awk -v k="$(((n + 1) / 2))" 'NR == k { printf "%.3f", $1 / 1000 }' "$tmp/pglat")"
p99="$(awk -v k="$(((n * 99 + 99) / 100))" 'NR == k { printf "%.3f", $1 / 1000 }' "$tmp/pglat")"
row "PostgreSQL 15 SELECT nextval (pgbench, prepared)" "$(printf '%.0f' "$rps")" "$(printf '%.0f' "$rps")" "$p50" "$p99"

echo "| what | clients | requests/s | IDs/s | p50 ms | p99 ms |"
echo "|---|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
