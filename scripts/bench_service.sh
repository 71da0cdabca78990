#!/usr/bin/env bash
# bench_service.sh [CLIENTS] [SECONDS]      e.g.  bash scripts/bench_service.sh 16,64 10
# Load benchmark of `idforge serve` on loopback, side by side with its peers in one run, at
# each number of clients in the comma-separated CLIENTS (default 16,64): wrk against
# GET /v1/ids/snowflake (one ID a request), `redis-benchmark -t incr`, `pgbench` running
# SELECT nextval(...), and wrk against ?count=1000 (batches). Both load generators use two
# threads. Redis and PostgreSQL: the ones in IDFORGE_REDIS_URL / IDFORGE_PG_URL when set
# (scripts/services.sh), otherwise private instances started here in a temporary folder on
# ports 16399 / 16499 (PostgreSQL as user postgres) and stopped at the end.
# Prints Markdown tables (requests/s, IDs/s, p50 and p99 latency in ms, and the CPU time the
# server and the load generator each spent per request: on a machine where both share the
# cores, the client's cost per request bounds the server's rate too) and the ratios the
# service is held to: single IDs >= 1.5x Redis INCR requests/s with p99 <= 1.5x Redis's,
# batches of 1,000 >= 99% of the layout's ceiling (one node, twitter: 4,096,000 IDs/s).
# IDFORGE_BENCH_PERF=FILE: also record `perf` on the server during the single-ID runs and
# write the hottest symbols to FILE.
# IDFORGE_BIN=PATH: measure that idforge binary instead of build/src/cli/idforge.
# IDFORGE_BENCH_PIN=1: the servers (idforge serve with one I/O thread, and a private Redis)
# on CPU 0 and the load generators (one thread each) on CPU 1, so each ratio is per core.
# IDFORGE_BENCH_STRACE=1: after the runs, count the server's system calls (strace -c -f)
# during a 3-second single-ID run at the first number of clients, per request.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
clients="${1:-16,64}"
secs="${2:-10}"
threads=2
server_cpu=() client_cpu_set=() io_threads=()
if [ "${IDFORGE_BENCH_PIN:-0}" = 1 ]; then
  [ "$(nproc)" -ge 2 ] || { echo "bench_service: IDFORGE_BENCH_PIN needs 2 CPUs" >&2; exit 1; }
  threads=1
  server_cpu=(taskset -c 0) client_cpu_set=(taskset -c 1) io_threads=(--io-threads 1)
  unset IDFORGE_REDIS_URL  # a Redis started elsewhere is not pinned: start a private one
fi
idf="${IDFORGE_BIN:-$root/build/src/cli/idforge}"
[ -x "$idf" ] || bash "$root/scripts/build.sh" >/dev/null
for tool in wrk redis-benchmark pgbench; do
  command -v "$tool" >/dev/null || { echo "bench_service: $tool is missing (bash scripts/setup.sh)" >&2; exit 1; }
done
IFS=, read -r -a client_counts <<<"$clients"
max_clients=0
for c in "${client_counts[@]}"; do [ "$c" -gt "$max_clients" ] && max_clients=$c; done

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
declare -A rps p99
rows=()
row() {  # key, label, clients, requests/s, IDs/s, p50, p99, server CPU us/request, client's
  rps[$1]="$4" p99[$1]="$7"
  rows+=("| $2 | $3 | $(printf '%.0f' "$4") | $(printf '%.0f' "$5") | $6 | $7 | $8 | $9 |")
}
# CPU seconds (user + system, all threads) a process has used so far.
proc_cpu() { awk -v t="$(getconf CLK_TCK)" '{ printf "%.3f", ($14 + $15) / t }' "/proc/$1/stat"; }
# Redis's own account of its CPU seconds (works for an instance started elsewhere too).
redis_cpu() {
  redis-cli -h "$redis_host" -p "$redis_port" info cpu | tr -d '\r' |
    awk -F: '$1 == "used_cpu_user" || $1 == "used_cpu_sys" { s += $2 } END { printf "%.3f", s }'
}
# Microseconds of CPU per request: (after - before) seconds over requests/s x run seconds.
per_req_us() { awk -v a="$1" -v b="$2" -v r="$3" -v s="$secs" 'BEGIN { if (r > 0) printf "%.1f", (b - a) * 1e6 / (r * s); else print "-" }'; }
# timed OUT CMD...: runs CMD with its output in OUT and leaves the user + system CPU seconds
# it used in $client_cpu.
timed() {
  local out="$1" TIMEFORMAT='%U %S' t
  shift
  t="$({ time "$@" >"$out" 2>&1; } 2>&1)"
  client_cpu="$(awk '{ printf "%.3f", $1 + $2 }' <<<"$t")"
}

# --- the three servers --------------------------------------------------------------
"${server_cpu[@]}" "$idf" serve --port 0 --access-log off --max-connections 1024 "${io_threads[@]}" --data "$tmp/data" >"$tmp/serve.out" 2>"$tmp/serve.err" &
serve_pid=$!
url=""
for _ in $(seq 100); do
  url="$(sed -n 's/^idforge serve: listening on //p' "$tmp/serve.out")"
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "bench_service: idforge serve did not start: $(cat "$tmp/serve.err")" >&2; exit 1; }
ceiling="$("$idf" layout twitter --json | grep -o '"max_ids_per_second":[0-9.]*' | cut -d: -f2)"

redis_host=127.0.0.1 redis_port=16399
if [ -n "${IDFORGE_REDIS_URL:-}" ]; then
  hp="${IDFORGE_REDIS_URL#redis://}"
  hp="${hp%%/*}"
  redis_host="${hp%:*}" redis_port="${hp##*:}"
else
  mkdir -p "$tmp/redis"
  "${server_cpu[@]}" redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp/redis" \
    --daemonize no >"$tmp/redis/log" 2>&1 &
  redis_pid=$!
  for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
fi

pg_conn=()
if [ -n "${IDFORGE_PG_URL:-}" ]; then
  pg_conn=("$IDFORGE_PG_URL")
else
  pg_port=16499
  pg_data="$tmp/pg/data"
  mkdir -p "$tmp/pg" && chown postgres "$tmp/pg"
  runuser -u postgres -- /usr/lib/postgresql/15/bin/initdb -D "$pg_data" -A trust -U postgres >/dev/null
  runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D "$pg_data" -w -l "$tmp/pg/log" \
    -o "-p $pg_port -k $tmp/pg -c listen_addresses=127.0.0.1 -c max_connections=$((max_clients + 20))" start >/dev/null
  pg_conn=(-h 127.0.0.1 -p "$pg_port" -U postgres postgres)
fi
psql -q "${pg_conn[@]}" -c "CREATE SEQUENCE IF NOT EXISTS idforge_bench_seq" >/dev/null
echo "SELECT nextval('idforge_bench_seq');" >"$tmp/nextval.sql"

# --- the runs -----------------------------------------------------------------------
run_wrk() {  # key, label, clients, path, ids per request
  local perf_pid=""
  if [ -n "${IDFORGE_BENCH_PERF:-}" ] && [ "$5" = 1 ]; then
    perf record -F 999 -g -p "$serve_pid" -o "$tmp/perf.$3.data" -- sleep "$secs" >/dev/null 2>&1 &
    perf_pid=$!
  fi
  local before after
  before="$(proc_cpu "$serve_pid")"
  timed "$tmp/wrk.txt" "${client_cpu_set[@]}" wrk -t"$threads" -c"$3" -d"${secs}s" --latency "${url}${4#/}"
  after="$(proc_cpu "$serve_pid")"
  [ -n "$perf_pid" ] && wait "$perf_pid" || true
  if grep -q "Non-2xx\|Socket errors" "$tmp/wrk.txt"; then
    echo "bench_service: errors from $4:" >&2; cat "$tmp/wrk.txt" >&2; exit 1
  fi
  local r p50 p
  r="$(awk '/^Requests\/sec:/ { print $2 }' "$tmp/wrk.txt")"
  p50="$(to_ms "$(awk '$1 == "50%" { print $2 }' "$tmp/wrk.txt")")"
  p="$(to_ms "$(awk '$1 == "99%" { print $2 }' "$tmp/wrk.txt")")"
  row "$1" "$2" "$3" "$r" "$(awk -v r="$r" -v n="$5" 'BEGIN { printf "%.0f", r * n }')" "$p50" "$p" \
    "$(per_req_us "$before" "$after" "$r")" "$(per_req_us 0 "$client_cpu" "$r")"
}

run_redis() {  # key, clients
  local r p50 p before after start end run_s
  before="$(redis_cpu)"
  start="$(date +%s.%N)"
  timed "$tmp/redis.csv" "${client_cpu_set[@]}" redis-benchmark -h "$redis_host" -p "$redis_port" -t incr -c "$2" --threads "$threads" \
    -n "$((60000 * secs))" --csv
  end="$(date +%s.%N)"
  after="$(redis_cpu)"
  IFS=, read -r _ r _ _ p50 _ p _ < <(tail -n 1 "$tmp/redis.csv" | tr -d '"')
  # redis-benchmark runs a request count, not a time: per request over the requests it made.
  run_s="$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
  row "$1" "Redis 7 INCR (redis-benchmark --threads $threads)" "$2" "$r" "$r" "$p50" "$p" \
    "$(secs="$run_s" per_req_us "$before" "$after" "$r")" "$(secs="$run_s" per_req_us 0 "$client_cpu" "$r")"
}

run_pg() {  # key, clients
  rm -f "$tmp"/pglog.*
  (cd "$tmp" && timed "$tmp/pgbench.txt" "${client_cpu_set[@]}" pgbench -n -M prepared -c "$2" -j "$threads" -T "$secs" -f nextval.sql \
    -l --log-prefix=pglog "${pg_conn[@]}" && echo "$client_cpu" >"$tmp/pgbench.cpu")
  local r n p50 p
  r="$(awk '/^tps = / { print $3; exit }' "$tmp/pgbench.txt")"
  # Per-transaction log: the third column is the latency in microseconds.
  cat "$tmp"/pglog.* | awk '{ print $3 }' | sort -n >"$tmp/pglat"
  n="$(wc -l <"$tmp/pglat")"
  p50="$(awk -v k="$(((n + 1) / 2))" 'NR == k { printf "%.3f", $1 / 1000 }' "$tmp/pglat")"
  p="$(awk -v k="$(((n * 99 + 99) / 100))" 'NR == k { printf "%.3f", $1 / 1000 }' "$tmp/pglat")"
  # The server's CPU is spread over one backend per client: not counted here.
  row "$1" "PostgreSQL 15 SELECT nextval (pgbench -M prepared -j $threads)" "$2" "$r" "$r" "$p50" "$p" \
    "-" "$(per_req_us 0 "$(cat "$tmp/pgbench.cpu")" "$r")"
}

summary=()
for c in "${client_counts[@]}"; do
  rows=()
  run_wrk "one.$c" "idforge serve, 1 Snowflake per request (wrk -t$threads)" "$c" "/v1/ids/snowflake" 1
  run_redis "redis.$c" "$c"
  run_pg "pg.$c" "$c"
  run_wrk "batch.$c" "idforge serve, 1,000 Snowflakes per request (wrk -t$threads)" "$c" "/v1/ids/snowflake?count=1000" 1000
  echo
  echo "$c clients, ${secs} s per run:"
  echo
  echo "| what | clients | requests/s | IDs/s | p50 ms | p99 ms | server CPU us/request | client CPU us/request |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  printf '%s\n' "${rows[@]}"
  summary+=("$(awk -v c="$c" -v a="${rps[one.$c]}" -v r="${rps[redis.$c]}" -v pa="${p99[one.$c]}" \
    -v pr="${p99[redis.$c]}" -v b="${rps[batch.$c]}" -v ceil="$ceiling" 'BEGIN {
      printf "- %s clients: single IDs %.2fx Redis INCR requests/s (target >= 1.5), p99 %.2fx Redis'"'"'s (target <= 1.5); batches of 1,000 at %.1f%% of the ceiling of %.0f IDs/s (target >= 99%%)",
        c, a / r, pa / pr, 100 * b * 1000 / ceil, ceil }')")
done
echo
[ "${IDFORGE_BENCH_PIN:-0}" = 1 ] && echo "(pinned: servers on CPU 0, load generators on CPU 1, one thread each)"
printf '%s\n' "${summary[@]}"
if [ "${IDFORGE_BENCH_STRACE:-0}" = 1 ]; then
  command -v strace >/dev/null || { echo "bench_service: strace is missing" >&2; exit 1; }
  c="${client_counts[0]}"
  strace -c -f -o "$tmp/strace.txt" -p "$serve_pid" &
  strace_pid=$!
  sleep 0.5
  "${client_cpu_set[@]}" wrk -t"$threads" -c"$c" -d3s "${url}v1/ids/snowflake" >"$tmp/wrk.strace.txt" 2>&1
  sleep 0.5
  kill -INT "$strace_pid" 2>/dev/null || true
  wait "$strace_pid" 2>/dev/null || true
  n="$(awk '/requests in/ { print $1 }' "$tmp/wrk.strace.txt")"
  echo
  echo "system calls of idforge serve under strace -c -f, $c clients, $n requests (3 s; strace slows it):"
  echo
  echo "| syscall | calls | per request |"
  echo "|---|---:|---:|"
  awk -v n="$n" '$NF ~ /^[a-z_0-9]+$/ && $4 ~ /^[0-9]+$/ && $NF != "total" {
      printf "| %s | %d | %.3f |\n", $NF, $4, $4 / n }' "$tmp/strace.txt" | sort -t'|' -k3 -rn | head -12
fi
if [ -n "${IDFORGE_BENCH_PERF:-}" ]; then
  for c in "${client_counts[@]}"; do
    echo "== $c clients, single IDs: perf report --no-children (top 40) =="
    perf report -i "$tmp/perf.$c.data" --no-children --percent-limit 0.7 --stdio 2>/dev/null |
      grep -v '^#' | grep -v '^$' | grep '%' | head -40
  done >"$IDFORGE_BENCH_PERF"
  echo "perf: $IDFORGE_BENCH_PERF"
fi
