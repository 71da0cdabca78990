#!/usr/bin/env bash
# idforge_mask_raw() and idforge_mask() inside PostgreSQL 15 beside the server's own hashint8()
# and the series alone, in ONE run on one instance of its own (not preloaded; a fixed
# benchmark key in idforge.mask_key_file), rounds interleaved so noise hits every row alike:
#   SELECT count(f(g)) FROM generate_series(1, 1000000) g   (psql \timing: wall ms per 10^6 calls)
# Prints a Markdown table of medians (docs/BENCHMARKS.md). Needs root (the server runs as the
# postgres user) and the extension installed (or IDFORGE_PG_BINDIR/PKGLIBDIR/SHAREDIR naming
# a relocated copy that holds it, docs/DATABASE.md).
# Usage: bash extensions/postgres/bench/mask_series.sh [rounds=3]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
rounds="${1:-3}"
export IDFORGE_PG_WORK="${IDFORGE_PG_WORK:-$root/build/pgext-bench}"
PGI_NAME=mask_bench PGI_PORT=$((15455 + ${IDFORGE_PORT_OFFSET:-0}))
mkdir -p "$IDFORGE_PG_WORK"
# shellcheck source=../test/pg_instance.sh
. "$here/../test/pg_instance.sh"
pgi_need_installed
trap 'pgi_stop fast' EXIT
pgi_init <<CONF
idforge.mask_key_file = 'bench.keys'
CONF
echo "1:6f1c2a9e4b7d3f8a0c5e1b9d7a3f6c2e8b4d0a7f3c9e5b1d8a6f2c4e0b7d9a31" |
  as_pg tee "$pgi_data/bench.keys" >/dev/null
chmod 0600 "$pgi_data/bench.keys"
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
pgi_psql -d postgres -c "CREATE EXTENSION idforge" >/dev/null

rows=(
  "count(g)"
  "count(hashint8(g))"
  "count(idforge_mask_raw(g))"
  "count(idforge_mask(g))"
  "count(idforge_unmask_raw(idforge_mask_raw(g)))"
)
results="$(mktemp)"
trap 'rm -f "$results"; pgi_stop fast' EXIT
for ((round = 1; round <= rounds; round++)); do
  {
    echo '\timing on'
    echo "SELECT idforge_mask_raw(1);"  # the keyring read before the timed rows
    for r in "${rows[@]}"; do echo "SELECT $r FROM generate_series(1, 1000000) g;"; done
  } | pgi_psql -d postgres | awk '/^Time:/ { if (seen++) print i++, $2 }' >>"$results"
done
labels=$(printf '%s\n' "${rows[@]}")
awk -v rounds="$rounds" -v labels="$labels" '
  function median(a, k,   i, j, t) {
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  { ms[$1, ++count[$1]] = $2; rows = $1 + 1 > rows ? $1 + 1 : rows }
  END {
    split(labels, name, "\n")
    for (r = 0; r < rows; r++) { delete a; for (k = 1; k <= count[r]; k++) a[k] = ms[r, k]; m[r] = median(a, count[r]) }
    printf "10^6 calls per row, medians of %d rounds\n\n", rounds
    print "| SELECT ... FROM generate_series(1, 1000000) g | wall ms per 10^6 calls (median) | net ns per call | ÷ hashint8 |"
    print "|---|---:|---:|---:|"
    base = m[0]; peer = m[1] - base
    for (r = 0; r < rows; r++) {
      if (r == 0) printf "| `%s` (baseline) | %.0f | — | — |\n", name[r + 1], m[r]
      else printf "| `%s` | %.0f | %.0f | %.1f× |\n", name[r + 1], m[r], m[r] - base, (m[r] - base) / peer
    }
  }' "$results"
