#!/usr/bin/env bash
# A fixed idforge.node travels with the data directory: a standby made by pg_basebackup -R and
# promoted while its primary still runs, and a backup restored to a new timeline, carry the
# primary's node ID and durable mark. On PostgreSQL 15 instances of their own: the mark
# records the system identifier and timeline (and a mark without them is read, then
# rewritten with them); the promoted standby refuses idforge_snowflake() naming the mark's
# timeline and system and its own, with the fix in the HINT, idforge_status() says not
# ready, the other generators work, and the primary keeps issuing; with its own
# idforge.node the promoted server issues beside the primary with no ID in common and above
# every ID it carries. The restored backup refuses likewise; once the primary is stopped a
# superuser accepts the mark (idforge_accept_mark(), refused to other roles) and it issues
# as the old node above every ID the primary issued, also after a restart.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
port_p=$((15456 + ${IDFORGE_PORT_OFFSET:-0}))
port_s=$((15457 + ${IDFORGE_PORT_OFFSET:-0}))
port_r=$((15458 + ${IDFORGE_PORT_OFFSET:-0}))
port_c=$((15459 + ${IDFORGE_PORT_OFFSET:-0}))
PGI_NAME=promote_primary PGI_PORT=$port_p
# shellcheck source=pg_instance.sh
. "$here/pg_instance.sh"
pgi_need_installed
use() {  # primary | standby | restored | copy: the instance the pgi_* functions act on
  PGI_NAME="promote_$1"
  case "$1" in
    primary) PGI_PORT=$port_p ;;
    standby) PGI_PORT=$port_s ;;
    restored) PGI_PORT=$port_r ;;
    copy) PGI_PORT=$port_c ;;
  esac
  pgi_dir="$IDFORGE_PG_WORK/$PGI_NAME"
  pgi_data="$pgi_dir/data"
  mark_file="$pgi_data/idforge_snowflake.mark"
}
cleanup() {
  local i
  for i in primary standby restored copy; do use "$i"; pgi_stop immediate; done
}
trap cleanup EXIT
fails=0
check() {  # name condition...
  local name="$1"; shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name" >&2; fails=$((fails + 1)); fi
}
contains() { grep -qF -- "$2" <<<"$1"; }
lacks() { ! grep -qF -- "$2" <<<"$1"; }
is_id() { [[ "$1" =~ ^[0-9]+$ ]]; }
sql() { pgi_psql -d postgres -c "$1"; }
try_sql() { pgi_psql -d postgres -c "$1" 2>&1 || true; }  # output or the error with its HINT
status() { sql "SELECT idforge_status()->>'$1'"; }  # one field
fail_log() { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
until_primary() {  # waits (bounded: 30 s) until the instance has left recovery
  for _ in $(seq 1 150); do
    [ "$(try_sql "SELECT pg_is_in_recovery()")" = f ] && return 0
    sleep 0.2
  done
  echo "postgres on port $PGI_PORT is still in recovery" >&2
  return 1
}
# A copy of the primary's data directory, taken while it runs (pg_basebackup args after the name).
backup() {  # name [pg_basebackup options...]
  local name="$1"; shift
  use "$name"
  pgi_stop immediate
  rm -rf "$pgi_dir"
  mkdir -p "$pgi_dir"
  pgi_reach "$pgi_dir"
  chown postgres:postgres "$pgi_dir"
  as_pg "$pg_bin/pg_basebackup" -h 127.0.0.1 -p "$port_p" -U postgres -D "$pgi_data" -c fast \
    -X stream --no-sync "$@" >"$pgi_dir/basebackup.log" 2>&1 || { cat "$pgi_dir/basebackup.log" >&2; exit 1; }
  # The copied postgresql.conf names the primary's port and socket folder: later lines win.
  pgi_conf "port = $PGI_PORT"
  pgi_conf "unix_socket_directories = '$pgi_data'"
}
n_ids=200000

# 1. The primary, node 7: the mark records the system identifier and the timeline.
use primary
pgi_init <<CONF
shared_preload_libraries = 'idforge'
idforge.node = 7
CONF
pgi_start || fail_log
sql "CREATE EXTENSION idforge" >/dev/null
sql "CREATE ROLE app LOGIN" >/dev/null
sql "CREATE TABLE carried AS SELECT idforge_snowflake() AS id FROM generate_series(1, 1000)" >/dev/null
system_id="$(sql "SELECT system_identifier FROM pg_control_system()")"
check "primary: the mark records the system identifier ($system_id)" \
  contains "$(cat "$mark_file")" "system $system_id"
check "primary: the mark records timeline 1" contains "$(cat "$mark_file")" "timeline 1"
check "primary: idforge_status() names both" \
  test "$(status mark_system_identifier)/$(status mark_timeline)/$(status system_identifier)/$(status timeline)" \
  = "$system_id/1/$system_id/1"
# A mark of an earlier version (layout and node only): read as this server's, then rewritten
# with both.
pgi_stop fast
head -3 "$mark_file" | as_pg tee "$mark_file.old" >/dev/null
as_pg mv "$mark_file.old" "$mark_file"
check "old mark: no system line" lacks "$(cat "$mark_file")" "system"
pgi_start || fail_log
out="$(try_sql "SELECT idforge_snowflake()")"
check "old mark: issues ($out)" is_id "$out"
check "old mark: rewritten with system and timeline" \
  contains "$(cat "$mark_file")" "node 7
system $system_id
timeline 1"
check "primary: ready" test "$(status ready)" = true
sql "INSERT INTO carried SELECT idforge_snowflake() FROM generate_series(1, 1000)" >/dev/null

# 2. A standby (pg_basebackup -R) and a backup, both carrying node 7 and the mark.
backup standby -R
backup restored
# Restored as point-in-time recovery does it: recovery.signal, to the end of the WAL it has,
# then a new timeline.
as_pg touch "$pgi_data/recovery.signal"
pgi_conf "restore_command = 'false'"
use primary
sql "INSERT INTO carried SELECT idforge_snowflake() FROM generate_series(1, 1000)" >/dev/null

use standby
pgi_start || fail_log
check "standby: in recovery" test "$(sql "SELECT pg_is_in_recovery()")" = t
out="$(try_sql "SELECT idforge_snowflake()")"
check "standby: refuses ($out)" contains "$out" "cannot issue IDs on a server in recovery (a standby)"
check "standby: the hint warns of the carried node" \
  contains "$out" "This standby carries the primary's idforge.node and durable mark"
check "standby: the hint says what to do" contains "$out" "Give it its own idforge.node"
check "standby: the old reassurance is gone" lacks "$out" "a promoted standby issues with its own"
check "standby: not ready" test "$(status ready)" = false

# 3. Promoted while the primary runs: refuses, naming where the mark was written and where
# it is now, with the fix; not ready; the other generators work; the primary issues on.
as_pg "$pg_bin/pg_ctl" -D "$pgi_data" -w -t 30 promote >/dev/null
until_primary || fail_log
out="$(try_sql "SELECT idforge_snowflake()")"
check "promoted: refuses ($out)" \
  contains "$out" "the durable mark \"idforge_snowflake.mark\" was written on timeline 1 of database system $system_id, and this server is on timeline 2 of database system $system_id"
check "promoted: says why" \
  contains "$out" "a promoted standby or a restored backup shares the old primary's node ID (idforge.node = 7)"
check "promoted: nothing issued" contains "$out" "nothing issued"
check "promoted: the hint names its own node" contains "$out" "HINT:  Give this server its own idforge.node"
check "promoted: the hint names the lease store" contains "$out" "idforge.lease_store"
check "promoted: the hint names the accept" contains "$out" "SELECT idforge_accept_mark()"
check "promoted: not ready" test "$(status ready)" = false
not_ready="$(status not_ready)"
check "promoted: not_ready says why ($not_ready)" \
  contains "$not_ready" "written on timeline 1 of database system $system_id, and this server is on timeline 2"
check "promoted: status names the timelines" test "$(status mark_timeline)/$(status timeline)" = 1/2
check "promoted: uuidv7() works" test "$(sql "SELECT uuid_extract_version(uuidv7())")" = 7
check "promoted: idforge_ulid() works" test "$(sql "SELECT length(idforge_ulid())")" = 26
check "promoted: the decoders work" \
  test "$(sql "SELECT idforge_snowflake_time(max(id)) IS NOT NULL FROM carried")" = t
out="$(pgi_psql -U app -d postgres -c "SELECT idforge_accept_mark()" 2>&1 || true)"
check "promoted: another role may not accept ($out)" contains "$out" "permission denied for function idforge_accept_mark"
check "promoted: the mark untouched" contains "$(cat "$mark_file")" "timeline 1"
pgi_stop fast
pgi_start || fail_log
out="$(try_sql "SELECT idforge_snowflake()")"
check "promoted, restarted: still refuses" contains "$out" "shares the old primary's node ID"
use primary
out="$(try_sql "SELECT idforge_snowflake()")"
check "primary: issues on ($out)" is_id "$out"
check "primary: ready" test "$(status ready)" = true

# 4. The promoted server with its own node (8): issues beside the primary, at the same time,
# with no ID in common, above every ID it carries; its mark becomes its own.
use standby
carried_max="$(sql "SELECT max(id) FROM carried")"
pgi_conf "idforge.node = 8"
pgi_stop fast
pgi_start || fail_log
check "own node: ready" test "$(status ready)" = true
issue_all() {  # instance file: n_ids IDs into a table and a file
  use "$1"
  sql "CREATE TABLE issued AS SELECT n, idforge_snowflake() AS id FROM generate_series(1, $n_ids) n" >/dev/null
  sql "COPY (SELECT id FROM issued ORDER BY n) TO STDOUT" >"$2"
}
ids_p="$IDFORGE_PG_WORK/promote_ids_primary" ids_s="$IDFORGE_PG_WORK/promote_ids_standby"
issue_all primary "$ids_p" &
pid_p=$!
issue_all standby "$ids_s" &
pid_s=$!
wait "$pid_p" || { echo "FAIL: the primary's IDs" >&2; fails=$((fails + 1)); }
wait "$pid_s" || { echo "FAIL: the promoted server's IDs" >&2; fails=$((fails + 1)); }
check "both issued $n_ids" test "$(wc -l <"$ids_p")/$(wc -l <"$ids_s")" = "$n_ids/$n_ids"
common="$(comm -12 <(sort "$ids_p") <(sort "$ids_s") | wc -l)"
check "no ID issued by both ($common in common)" test "$common" = 0
use standby
check "own node: every ID carries node 8" \
  test "$(sql "SELECT count(*) FROM issued WHERE (id >> 12) & 1023 <> 8")" = 0
check "own node: every ID above the $carried_max it carries" \
  test "$(sql "SELECT count(*) FROM issued WHERE id <= $carried_max")" = 0
check "own node: the mark is its own" contains "$(cat "$mark_file")" "node 8
system $system_id
timeline 2"
use primary
check "primary: every ID carries node 7" \
  test "$(sql "SELECT count(*) FROM issued WHERE (id >> 12) & 1023 <> 7")" = 0
primary_max="$(sql "SELECT max(id) FROM issued")"

# 4b. A base backup started as is (no recovery.signal, no standby.signal) while the primary
# runs: it replays to consistency and goes on on the primary's own timeline 1, with the same
# system identifier; only its backup_label.old tells it from the primary. Before, it reported
# ready and issued 631,473 of the primary's 1,000,000 IDs again.
use primary
sql "INSERT INTO carried SELECT idforge_snowflake() FROM generate_series(1, 1000)" >/dev/null
backup copy
pgi_start || fail_log
until_primary || fail_log
check "copy: on the primary's timeline 1" test "$(status timeline)" = 1
check "copy: the same system" test "$(status system_identifier)" = "$system_id"
out="$(try_sql "SELECT idforge_snowflake()")"
check "copy: refuses ($out)" contains "$out" "was written before this data directory was started from a base backup"
check "copy: nothing issued" contains "$out" "nothing issued"
check "copy: the hint names the accept" contains "$out" "SELECT idforge_accept_mark()"
check "copy: not ready" test "$(status ready)" = false
check "copy: not_ready says why" contains "$(status not_ready)" "started from a base backup"
check "copy: status names its backup" test -n "$(status backup)"
use primary
out="$(try_sql "SELECT idforge_snowflake()")"
check "primary: still issues beside the copy ($out)" is_id "$out"
check "primary: records no backup" test -z "$(status backup)"
use copy
pgi_stop immediate

# 5. The backup restored to a new timeline refuses likewise; with the primary stopped for
# good, a superuser accepts the mark, and it issues as node 7 above every ID the primary
# issued, also after a restart.
use restored
pgi_start || fail_log
until_primary || fail_log
check "restored: on timeline 2" test "$(status timeline)" = 2
out="$(try_sql "SELECT idforge_snowflake()")"
check "restored: refuses ($out)" \
  contains "$out" "was written on timeline 1 of database system $system_id, and this server is on timeline 2"
check "restored: not ready" test "$(status ready)" = false
use primary
pgi_stop fast
use restored
out="$(try_sql "SELECT idforge_accept_mark()")"
check "restored: accepted ($out)" contains "$out" "accepted: the durable mark"
check "restored: says what it became" \
  contains "$out" "is now this server's (timeline 2 of database system $system_id)"
check "restored: the accept is logged" contains "$(cat "$pgi_dir/server.log")" "was accepted as this server's"
check "restored: ready" test "$(status ready)" = true
out="$(try_sql "SELECT idforge_snowflake()")"
check "restored: issues ($out)" is_id "$out"
check "restored: as node 7" test "$(( (out >> 12) & 1023 ))" = 7
check "restored: above every ID the primary issued" test "$out" -gt "$primary_max"
check "restored: the mark is its own" contains "$(cat "$mark_file")" "timeline 2"
check "restored: the mark records its backup" contains "$(cat "$mark_file")" "backup "
out="$(try_sql "SELECT idforge_accept_mark()")"
check "restored: a second accept has nothing to do ($out)" contains "$out" "nothing to accept"
pgi_stop fast
pgi_start || fail_log
out="$(try_sql "SELECT idforge_snowflake()")"
check "restored, restarted: issues ($out)" is_id "$out"

[ "$fails" = 0 ] || { echo "$fails check(s) failed" >&2; exit 1; }
echo "a promoted standby and a restored backup never issue the old primary's IDs"
