#!/usr/bin/env bash
# extensions/sqlite/bench.sh [ROUNDS] [N]
# Times the extension's functions against SQLite's own idioms for random keys (randomblob(16),
# lower(hex(randomblob(16)))) in one sqlite3 process per round:
#   SELECT count(f) FROM generate_series(1, N)
# for each row below, ROUNDS rounds (default 5) of N calls (default 1 000 000), and prints one
# Markdown table of medians. The series alone is timed as the baseline and subtracted, so
# "net ns per call" is what one call of f adds to a row. CPU time (user + sys of the sqlite3
# process, from its .timer) is the figure compared, because the machine is shared and wall time
# includes other people's work; wall time is shown beside it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${IDFORGE_BUILD_DIR:-$root/build}"
rounds="${1:-5}" n="${2:-1000000}"
ext="$build/extensions/sqlite/libidforge_sqlite"
[ -f "$ext.so" ] || { echo "bench.sh: $ext.so missing: cmake --build build --target idforge_sqlite" >&2; exit 1; }

# label|expression; the first row is the baseline, the next two the peers the ratios divide by.
rows=(
  "series alone (baseline)|value"
  "randomblob(16)|randomblob(16)"
  "lower(hex(randomblob(16)))|lower(hex(randomblob(16)))"
  "uuid7_blob()|uuid7_blob()"
  "uuid7()|uuid7()"
  "uuid4()|uuid4()"
  "ulid()|ulid()"
  "snowflake(), twitter (4,096 per ms ceiling)|snowflake()"
  "snowflake(), wide layout|snowflake_wide"
  "uuid_str(uuid7_blob())|uuid_str(uuid7_blob())"
  "uuid_blob(uuid7())|uuid_blob(uuid7())"
  "idforge_mask(value, 'u63', 'raw')|idforge_mask(value, 'u63', 'raw')"
  "idforge_mask(value) (public ID)|idforge_mask(value)"
  "idforge_unmask(idforge_mask(value))|idforge_unmask(idforge_mask(value))"
)
# The masking rows' keyring: a fixed benchmark key from the environment (never a real one).
export IDFORGE_MASK_KEYS="1:6f1c2a9e4b7d3f8a0c5e1b9d7a3f6c2e8b4d0a7f3c9e5b1d8a6f2c4e0b7d9a31"
unset IDFORGE_MASK_KEY_FILE

script() {
  printf '.load %s\n.timer on\n' "$ext"
  local r expr
  for r in "${rows[@]}"; do
    expr="${r#*|}"
    case "$expr" in
      snowflake\(\)) printf ".print --\nSELECT idforge_node(1, 'twitter') >= 0;\n" ;;
      snowflake_wide) printf ".print --\nSELECT idforge_node(2, 'time=41,dc=0,worker=4,seq=18') >= 0;\n"
                      expr="snowflake()" ;;
    esac
    printf 'SELECT count(%s) FROM generate_series(1, %d);\n' "$expr" "$n"
  done
}

results="$(mktemp)"
trap 'rm -f "$results"' EXIT
for ((round = 1; round <= rounds; round++)); do
  # The .timer line after each count; node-setting statements are separated by "--" lines.
  script | sqlite3 -batch :memory: | awk -v round="$round" '
    /^--$/ { skip = 1; next }
    /^Run Time:/ { if (skip) { skip = 0; next } print round, i++, $4, $6 + $8 }' >>"$results"
done

labels=$(printf '%s\n' "${rows[@]}" | cut -d'|' -f1)
awk -v n="$n" -v rounds="$rounds" -v labels="$labels" '
  function median(a, k,   i, j, t) {
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  { real[$2, ++count_r[$2]] = $3; cpu[$2, ++count_c[$2]] = $4; rows = $2 + 1 > rows ? $2 + 1 : rows }
  END {
    split(labels, name, "\n")
    for (r = 0; r < rows; r++) {
      delete a; for (k = 1; k <= count_r[r]; k++) a[k] = real[r, k]; mr[r] = median(a, count_r[r])
      delete a; for (k = 1; k <= count_c[r]; k++) a[k] = cpu[r, k]; mc[r] = median(a, count_c[r])
    }
    printf "%d calls per row, medians of %d rounds\n\n", n, rounds
    print "| row | wall s (median) | CPU s (median) | net CPU ns per call | ÷ randomblob(16) | ÷ lower(hex(randomblob(16))) |"
    print "|---|---|---|---|---|---|"
    base = mc[0]; p1 = mc[1] - base; p2 = mc[2] - base
    for (r = 0; r < rows; r++) {
      net = (mc[r] - base) * 1e9 / n
      if (r == 0) printf "| %s | %.3f | %.3f | — | — | — |\n", name[r + 1], mr[r], mc[r]
      else printf "| %s | %.3f | %.3f | %.1f | %.2f× | %.2f× |\n", name[r + 1], mr[r], mc[r], net,
                  (mc[r] - base) / p1, (mc[r] - base) / p2
    }
  }' "$results"
