#!/usr/bin/env bash
# ID functions inside PostgreSQL 15 under concurrent clients, in ONE run on one instance of its
# own (idforge preloaded, a fixed idforge.node): idforge_snowflake(), idforge's uuidv7(),
# gen_random_uuid() and, when its extension is installed, pg_uuidv7's uuid_generate_v7()
# (github.com/fboulnois/pg_uuidv7, built from source: `make && make install` in a checkout)
# as the peers. Each transaction is one statement that makes N IDs, so the rows measure the
# functions under contention rather than the statement path:
#   pgbench -n -M prepared -T $T -c $C -j 2 -f 'SELECT count(f()) FROM generate_series(1, N)'
# IDs/s = TPS x N. Rounds interleave the functions, so noise hits every row alike; prints a
# Markdown table of medians (docs/BENCHMARKS.md). Needs root (the server runs as the postgres
# user) and the extension installed (cmake --install build --component pg_extension).
# idforge.layout is IDFORGE_BENCH_LAYOUT (default twitter, whose 12 sequence bits in a 1 ms tick
# cap one node at 4,096,000 IDs/s; a layout with more sequence bits shows the generator's own
# cost under contention).
# Usage: bash extensions/postgres/bench/pgbench_parallel.sh [rounds=3] [seconds=10] [clients=8]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
rounds="${1:-3}" T="${2:-10}" C="${3:-8}" N=10000
export IDFORGE_PG_WORK="${IDFORGE_PG_WORK:-$root/build/pgext-bench}"
PGI_NAME=bench_parallel PGI_PORT=$((15460 + ${IDFORGE_PORT_OFFSET:-0}))
mkdir -p "$IDFORGE_PG_WORK"
# shellcheck source=../test/pg_instance.sh
. "$here/../test/pg_instance.sh"
pgi_need_installed
trap 'pgi_stop fast' EXIT
pgi_init <<CONF
shared_preload_libraries = 'idforge'
idforge.node = 1
idforge.layout = '${IDFORGE_BENCH_LAYOUT:-twitter}'
max_connections = 40
CONF
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
pgi_psql -d postgres -c "CREATE EXTENSION idforge" >/dev/null
funcs=("idforge_snowflake()" "uuidv7()" "gen_random_uuid()")
if pgi_psql -d postgres -c "CREATE EXTENSION pg_uuidv7" >/dev/null 2>&1; then
  funcs+=("uuid_generate_v7()")
else
  echo "pg_uuidv7 is not installed: its row is left out (build it from source to add it)" >&2
fi
declare -A ids
for r in $(seq 1 "$rounds"); do
  for f in "${funcs[@]}"; do
    echo "SELECT count($f) FROM generate_series(1, $N);" >"$pgi_dir/parallel.sql"
    t=$(pgbench -n -M prepared -T "$T" -c "$C" -j 2 -h 127.0.0.1 -p "$PGI_PORT" -U postgres \
          -f "$pgi_dir/parallel.sql" postgres 2>&1 | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
    ids[$f]="${ids[$f]:-} $(awk -v t="$t" -v n="$N" 'BEGIN { printf "%.0f", t * n }')"
    echo "round $r: $f tps=$t" >&2
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
base=$(echo "${ids["uuidv7()"]}" | median)
echo "$C clients (pgbench -j 2), $T s a row, $N IDs a statement, idforge.layout = '${IDFORGE_BENCH_LAYOUT:-twitter}'; medians of $rounds rounds"
echo
echo "| function | M IDs/s (median) | ÷ uuidv7() (idforge) |"
echo "|---|---:|---:|"
for f in "${funcs[@]}"; do
  v=$(echo "${ids[$f]}" | median)
  awk -v f="$f" -v v="$v" -v b="$base" 'BEGIN { printf "| `%s` | %.2f | %.2f |\n", f, v / 1e6, v / b }'
done
