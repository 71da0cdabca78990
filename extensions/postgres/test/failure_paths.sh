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
greater() { [[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -gt "$2" ]; }  # an ID (not an error) above $2
mark_file="$pgi_data/idforge_snowflake.mark"
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# 1. Not preloaded: idforge_snowflake() refuses with the fix; the rest works.
pgi_init </dev/null
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
pgi_psql -d postgres -c "CREATE EXTENSION idforge" >/dev/null
out="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()" 2>&1 || true)"
check "not preloaded: error names the fix" contains "$out" "shared_preload_libraries"
out="$(pgi_psql -d postgres -c "SELECT idforge_status()" 2>&1 || true)"
check "not preloaded: idforge_status() names the fix" contains "$out" "shared_preload_libraries"
check "not preloaded: uuidv7() works" test "$(pgi_psql -d postgres -c "SELECT uuid_extract_version(uuidv7())")" = 7
# A typo in idforge.layout: the decoders refuse it naming it (never silently twitter).
pgi_conf "idforge.layout = 'sonyflak'"
as_pg "$pg_bin/pg_ctl" -D "$pgi_data" reload >/dev/null
out="$(pgi_psql -d postgres -c "SELECT idforge_snowflake_time(1)" 2>&1 || true)"
check "not preloaded, layout typo: decoder refuses naming it ($out)" contains "$out" "'sonyflak'"
check "not preloaded, layout typo: nothing decoded" test -z "$(grep -E '^[0-9]{4}-' <<<"$out" || true)"
out="$(pgi_psql -d postgres -c "SELECT idforge_inspect('1')" 2>&1 || true)"
check "not preloaded, layout typo: inspect refuses naming it" contains "$out" "sonyflak"
# A time beyond timestamptz's range: refused naming the ID, not a wrapped-around date.
pgi_conf "idforge.layout = 'time=63,dc=0,worker=0,seq=0'"
as_pg "$pg_bin/pg_ctl" -D "$pgi_data" reload >/dev/null
out="$(pgi_psql -d postgres -c "SELECT idforge_snowflake_time(9223372036854775807)" 2>&1 || true)"
check "time beyond timestamptz: refused naming ID and range ($out)" \
  contains "$out" "idforge_snowflake_time(9223372036854775807) under layout 'time=63,dc=0,worker=0,seq=0': its time"
check "time beyond timestamptz: names the rule" contains "$out" "outside timestamptz's range"
pgi_conf "idforge.layout = 'twitter'"
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
# The server's start eats into the 2.5 s (more than 2 s on a loaded machine), so what is
# checked is that the call returned only once the clock had passed the mark, not how long
# it took.
check "mark ahead: it returned once the clock passed the mark ($t1 >= $mark, began $((mark - t0)) ms before)" \
  test "$t1" -ge "$mark"
check "mark ahead: IDs only increase" test "$after" -gt "$first"

# 4. A mark 60 s ahead: beyond idforge.max_clock_wait_ms, refused naming how far behind;
# nothing issued and the mark untouched.
pgi_stop fast
mark=$(($(now_ms) + 60000))
echo "$mark" | as_pg tee "$mark_file" >/dev/null
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
out="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()" 2>&1 || true)"
check "mark far ahead: refused naming how far behind ($out)" contains "$out" "ms behind the durable mark $mark (Unix ms)"
check "mark far ahead: refused naming the bound" contains "$out" "more than the 5000 ms a first ID after a restart waits"
check "mark far ahead: mark untouched" test "$(cat "$mark_file")" = "$mark"

# 5. A corrupt mark: refused naming the file and the rule.
pgi_stop fast
echo "12x" | as_pg tee "$mark_file" >/dev/null
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
out="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()" 2>&1 || true)"
check "corrupt mark: names the file and the value" contains "$out" "idforge_snowflake.mark\" in the data directory: mark '12x'"

# 5b. A mark beyond the layout's time range: named as such, not "the time field has run out".
pgi_stop fast
echo "9223372036854775807" | as_pg tee "$mark_file" >/dev/null
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
out="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()" 2>&1 || true)"
check "mark beyond the layout: named ($out)" contains "$out" "durable mark 9223372036854775807 (Unix ms)"
check "mark beyond the layout: names the layout's end" contains "$out" "lies beyond the time range of layout 'twitter'"

# 5c. idforge.reserve_ms above idforge.max_clock_wait_ms: a mark up to reserve_ms ahead
# after a restart (by design) still issues, waiting for the mark, not blaming the clock;
# a clean shutdown writes the exact mark, so a clean restart has nothing to wait for.
pgi_stop fast
as_pg rm -f "$mark_file"
pgi_conf "idforge.reserve_ms = 8000"
pgi_conf "idforge.max_clock_wait_ms = 200"
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
first="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()")"
check "the mark file records layout and node" contains "$(cat "$mark_file")" "layout name=twitter,time=41"
check "the mark file records the node" contains "$(cat "$mark_file")" "node 3"
ahead="$(head -1 "$mark_file")"
pgi_stop fast
exact="$(head -1 "$mark_file")"
check "clean shutdown: the exact mark ($exact, was $ahead)" test "$exact" -lt "$ahead"
check "clean shutdown: the exact mark covers the last ID" \
  test "$exact" -ge $(( (first >> 22) + 1288834974657 ))
mark=$(($(now_ms) + 3000))
echo "$mark" | as_pg tee "$mark_file" >/dev/null
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
out="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()" 2>&1 || true)"
check "reserve_ms > max_clock_wait_ms: a mark 3 s ahead issues ($out)" greater "$out" "$first"
check "reserve_ms > max_clock_wait_ms: after the mark" \
  greater $(( (out >> 22) + 1288834974657 )) "$mark"
pgi_conf "idforge.reserve_ms = 1000"
pgi_conf "idforge.max_clock_wait_ms = 5000"

# 5d. Another layout or node than the mark file records: refused naming both and why;
# the operator may remove the mark to move on deliberately.
pgi_stop fast
pgi_conf "idforge.layout = 'discord'"
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
out="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()" 2>&1 || true)"
check "layout changed: refused naming both ($out)" contains "$out" "was written under layout 'name=twitter,time=41"
check "layout changed: names the new layout" contains "$out" "idforge.layout is now 'discord'"
check "layout changed: says why" contains "$out" "can equal or sort below IDs already issued"
pgi_stop fast
pgi_conf "idforge.layout = 'time=41,dc=5,worker=5,seq=12,epoch=1288834979657'"
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
out="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()" 2>&1 || true)"
check "twitter with epoch +5 s: refused" contains "$out" "was written under layout 'name=twitter"
pgi_stop fast
pgi_conf "idforge.layout = 'twitter'"
pgi_conf "idforge.node = 4"
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
out="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()" 2>&1 || true)"
check "node changed: refused naming both ($out)" contains "$out" "was written by node 3, but idforge.node is now 4"
as_pg rm -f "$mark_file"
out="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()" 2>&1 || true)"
check "mark removed (the operator's decision): issues again ($out)" greater "$out" 0
pgi_stop fast
pgi_conf "idforge.node = 3"

# 5e. A mark file the server cannot write: an idforge error with the file and the fix.
as_pg rm -f "$mark_file"
echo "$(now_ms)" | as_pg tee "$mark_file" >/dev/null
chmod 0444 "$mark_file"
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
out="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()" 2>&1 || true)"
check "read-only mark: an idforge error naming the file ($out)" contains "$out" "idforge_snowflake(): cannot write its durable mark"
check "read-only mark: says the fix" contains "$out" "write access"
chmod 0600 "$mark_file"

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
  check "clock 30 s behind after a crash: refused naming how far behind ($out)" contains "$out" "ms behind the durable mark"
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
