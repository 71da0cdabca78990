#!/usr/bin/env bash
# postgres.sh start|stop|status
# PostgreSQL 15 from Debian on 127.0.0.1, run as the postgres user (initdb refuses root).
# Instances, each in its own folder under $IDFORGE_DATA/postgres with its socket there too:
#   main     port 15432  general use (segment tables, index lab, ...)
#   ticket1..ticket4  ports 15433..15436  small ticket servers; separate instances so a
#            test or a demo can take one down without touching the others.
# Trust authentication on loopback only; nothing listens elsewhere.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
data="${IDFORGE_DATA:-$root/.data}/postgres"
bin=/usr/lib/postgresql/15/bin
off=${IDFORGE_PORT_OFFSET:-0}
instances=("main:$((15432 + off))" "ticket1:$((15433 + off))" "ticket2:$((15434 + off))" "ticket3:$((15435 + off))" "ticket4:$((15436 + off))")

as_pg() {
  if [ "$(id -un)" = postgres ]; then "$@"; else runuser -u postgres -- "$@"; fi
}

# The postgres user must be able to pass through every folder above its data (initdb and
# the server chdir there). A checkout under a private folder (mktemp -d makes 0700) would
# stop it, so folders it cannot pass get search permission only (o+x: no listing).
reach_for_postgres() {  # dir
  local d="$1"
  as_pg test -x "$d" 2>/dev/null && return 0
  [ "$(id -u)" = 0 ] || { echo "postgres: the postgres user cannot reach $d" >&2; return 1; }
  while [ "$d" != / ]; do
    as_pg test -x "$d" 2>/dev/null || chmod o+x "$d"
    d="$(dirname "$d")"
  done
  as_pg test -x "$1" || { echo "postgres: the postgres user cannot reach $1" >&2; return 1; }
}

running() {  # dir -> 0 when a postmaster for dir is alive
  local pidfile="$1/postmaster.pid"
  [ -f "$pidfile" ] && kill -0 "$(head -1 "$pidfile")" 2>/dev/null
}

start_one() {  # name port
  local dir="$data/$1" port="$2" extra=""
  if [ "$1" != main ]; then extra="-c shared_buffers=16MB -c max_connections=60"; fi
  if [ ! -f "$dir/PG_VERSION" ]; then
    mkdir -p "$dir"
    chown postgres:postgres "$data" "$dir"
    chmod 700 "$dir"
    as_pg "$bin/initdb" -D "$dir" -A trust -U postgres --no-sync >"$data/$1.initdb.log" 2>&1 || {
      cat "$data/$1.initdb.log" >&2; return 1; }
  fi
  if ! running "$dir"; then
    as_pg "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 30 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off $extra" start >/dev/null || {
      echo "postgres: instance $1 on port $port did not start; see $dir/server.log" >&2
      tail -20 "$dir/server.log" >&2; return 1; }
  fi
  # Bounded wait until it answers queries (pg_ctl -w waits for the socket already).
  for _ in $(seq 1 60); do
    if "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; then return 0; fi
    sleep 0.5
  done
  echo "postgres: instance $1 on port $port does not answer" >&2
  return 1
}

stop_one() {  # name
  local dir="$data/$1"
  if running "$dir"; then
    as_pg "$bin/pg_ctl" -D "$dir" -m fast -w -t 30 stop >/dev/null
  fi
}

case "${1:-}" in
  start)
    mkdir -p "$data"
    chown postgres:postgres "$data"
    reach_for_postgres "$data"
    urls=()
    for inst in "${instances[@]}"; do
      start_one "${inst%%:*}" "${inst##*:}"
      [ "${inst%%:*}" = main ] || urls+=("postgres://postgres@127.0.0.1:${inst##*:}/postgres")
    done
    echo "IDFORGE_PG_URL=postgres://postgres@127.0.0.1:${instances[0]##*:}/postgres"
    echo "IDFORGE_PG_BIN=$bin"
    echo "IDFORGE_PG_TICKET_URLS=$(IFS=,; echo "${urls[*]}")"
    ;;
  stop)
    rc=0
    for inst in "${instances[@]}"; do stop_one "${inst%%:*}" || rc=1; done
    exit $rc
    ;;
  status)
    for inst in "${instances[@]}"; do
      if running "$data/${inst%%:*}"; then state=running; else state=stopped; fi
      echo "postgres ${inst%%:*} (port ${inst##*:}): $state"
    done
    ;;
  *)
    echo "usage: postgres.sh start|stop|status" >&2
    exit 2
    ;;
esac
