#!/usr/bin/env bash
# The extension's failure paths on a PostgreSQL 15 of its own: not preloaded, a bad layout
# or node, a durable mark ahead of the clock after a restart (wait, or refuse naming how far
# behind), a corrupt mark, and a real clock moved back (libfaketime) after a crash.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PGI_NAME=failure PGI_PORT=$((15451 + ${IDFORGE_PORT_OFFSET:-0}))
# shellcheck source=pg_instance.sh
. "$here/pg_instance.sh"
pgi_need_installed
trap 'pgi_stop immediate' EXIT
fails=0
check() {  # name condition...
  local name="$1"; shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name" >&2; fails=$((fails + 1)); fi
}
contains() { grep -qF -- "$2" <<<"$1"; }
mark_file="$pgi_data/idforge_snowflake.mark"
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# 1. Not preloaded: idforge_snowflake() refuses with the fix; the rest works.
pgi_init </dev/null
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
pgi_psql -d postgres -c "CREATE EXTENSION idforge" >/dev/null
out="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()" 2>&1 || true)"
check "not preloaded: error names the fix" contains "$out" "shared_preload_libraries"
check "not preloaded: uuidv7() works" test "$(pgi_psql -d postgres -c "SELECT uuid_extract_version(uuidv7())")" = 7
pgi_stop fast

# 2. A bad layout or node stops the server from starting, with the value and the rule.
pgi_conf "shared_preload_libraries = 'idforge'"
pgi_conf "idforge.layout = 'twiter'"
pgi_start && { echo "FAIL: started with idforge.layout = twiter" >&2; fails=$((fails + 1)); pgi_stop immediate; }
check "bad layout: log names setting and value" \
  contains "$(cat "$pgi_dir/server.log")" "idforge.layout = 'twiter'"
check "bad layout: log names the rule" contains "$(cat "$pgi_dir/server.log")" "preset"
pgi_conf "idforge.layout = 'twitter'"
pgi_conf "idforge.node = 1024"
: | as_pg tee "$pgi_dir/server.log" >/dev/null 2>&1 || true
pgi_start && { echo "FAIL: started with idforge.node = 1024" >&2; fails=$((fails + 1)); pgi_stop immediate; }
check "bad node: log names node, layout and range" \
  contains "$(cat "$pgi_dir/server.log")" "idforge.layout = 'twitter', idforge.node = '1024'"
check "bad node: log names the range" contains "$(cat "$pgi_dir/server.log")" "1023"
pgi_conf "idforge.node = '-1'"
pgi_start && { echo "FAIL: started with idforge.node = -1" >&2; fails=$((fails + 1)); pgi_stop immediate; }
check "negative node: refused" contains "$(cat "$pgi_dir/server.log")" "idforge.node = '-1'"
pgi_conf "idforge.node = 'five'"
pgi_start && { echo "FAIL: started with idforge.node = five" >&2; fails=$((fails + 1)); pgi_stop immediate; }
check "non-numeric node: refused" contains "$(cat "$pgi_dir/server.log")" "node 'five' is not a whole number"
pgi_conf "idforge.node = 3"
pgi_conf "idforge.max_clock_wait_ms = 5000"

# 3. A mark 2.5 s ahead of the clock (as after a crash with the clock behind): the first ID
# waits until the clock passes it and lies after it.
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
first="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()")"
check "a mark file is written" test -s "$mark_file"
pgi_stop fast
mark=$(($(now_ms) + 2500))
echo "$mark" | as_pg tee "$mark_file" >/dev/null
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
t0=$(now_ms)
after="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()")"
t1=$(now_ms)
after_ms=$(( (after >> 22) + 1288834974657 ))
check "mark ahead: the first ID lies after the mark ($after_ms > $mark)" test "$after_ms" -gt "$mark"
check "mark ahead: it waited for the clock ($((t1 - t0)) ms)" test $((t1 - t0)) -ge 1000
check "mark ahead: IDs only increase" test "$after" -gt "$first"

# 4. A mark 60 s ahead: beyond idforge.max_clock_wait_ms, refused naming how far behind;
# nothing issued and the mark untouched.
pgi_stop fast
mark=$(($(now_ms) + 60000))
echo "$mark" | as_pg tee "$mark_file" >/dev/null
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
out="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()" 2>&1 || true)"
check "mark far ahead: refused naming how far behind" contains "$out" "ms behind the last issued ID"
check "mark far ahead: refused naming the bound" contains "$out" "idforge.max_clock_wait_ms = 5000"
check "mark far ahead: mark untouched" test "$(cat "$mark_file")" = "$mark"

# 5. A corrupt mark: refused naming the file and the rule.
pgi_stop fast
echo "12x" | as_pg tee "$mark_file" >/dev/null
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
out="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()" 2>&1 || true)"
check "corrupt mark: names the file and the value" contains "$out" "idforge_snowflake.mark\" in the data directory: mark '12x'"

# 6. A crash, then the server's real clock 30 s behind (libfaketime): refused, never a
# repeat; with the clock back, IDs continue after every one issued before the crash.
pgi_stop fast
as_pg rm -f "$mark_file"
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
before="$(pgi_psql -d postgres -c "SELECT max(idforge_snowflake()) FROM generate_series(1, 1000)")"
pgi_stop immediate
faketime_lib="$(ls /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 2>/dev/null || true)"
if [ -n "$faketime_lib" ]; then
  pgi_start LD_PRELOAD="$faketime_lib" FAKETIME="-30s" || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
  out="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()" 2>&1 || true)"
  check "clock 30 s behind after a crash: refused naming how far behind" contains "$out" "ms behind the last issued ID"
  pgi_stop immediate
else
  echo "FAIL: libfaketime is missing (scripts/packages.txt: libfaketime)" >&2; fails=$((fails + 1))
fi
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
next="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()")"
check "after the crash: the next ID is above every earlier one" test "$next" -gt "$before"
pgi_stop fast

[ "$fails" = 0 ] || { echo "$fails check(s) failed" >&2; exit 1; }
echo "all failure paths behave"
