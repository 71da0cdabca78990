#!/usr/bin/env bash
# mariadb.sh start|stop|status
# MariaDB 10.11 from Debian on 127.0.0.1, run as root, each instance's data and socket under
# $IDFORGE_DATA/mariadb/NAME. Root logs in without a password over loopback and the socket.
# Instances (ports move by IDFORGE_PORT_OFFSET):
#   main     port 13306  general use (index lab, ...), 64 MiB buffer pool
#   ticket1..ticket3  ports 13307..13309  small ticket servers (8 MiB buffer pool, 8 MiB redo
#            log): separate processes so a test can freeze or stop one without the others.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
data="${IDFORGE_DATA:-$root/.data}/mariadb"
off=${IDFORGE_PORT_OFFSET:-0}
instances=("main:$((13306 + off))" "ticket1:$((13307 + off))" "ticket2:$((13308 + off))" "ticket3:$((13309 + off))")

dir_of() { if [ "$1" = main ]; then echo "$data"; else echo "$data/$1"; fi; }
pidfile_of() { echo "$(dir_of "$1")/mariadbd.pid"; }
sock_of() { echo "$(dir_of "$1")/mariadbd.sock"; }
running() { local p; p="$(pidfile_of "$1")"; [ -f "$p" ] && kill -0 "$(cat "$p")" 2>/dev/null; }
answers() { mariadb-admin --socket="$(sock_of "$1")" -uroot --connect-timeout=2 ping >/dev/null 2>&1; }

sizes() {  # name -> server options that size it
  if [ "$1" = main ]; then
    echo "--innodb-buffer-pool-size=64M"
  else
    echo "--innodb-buffer-pool-size=8M --innodb-log-file-size=8M --innodb-log-buffer-size=1M" \
      "--key-buffer-size=1M --aria-pagecache-buffer-size=1M --max-connections=120" \
      "--table-open-cache=200 --performance-schema=OFF"
  fi
}

launch() {  # name port: installs if needed and starts in the background
  local name="$1" port="$2" dir
  dir="$(dir_of "$name")"
  # Temporary tables in a folder of the instance's own, not the shared /tmp: a bootstrap once
  # failed there ("Could not remove temporary table '/tmp/#sql-temptable-…', error: 2", then
  # "Unknown table 'mysql.tmp_user_sys'") while other tests created and removed files in /tmp.
  mkdir -p "$dir/tmp"
  if [ ! -d "$dir/db/mysql" ]; then
    # shellcheck disable=SC2046
    mariadb-install-db --user=root --datadir="$dir/db" --auth-root-authentication-method=normal \
      --skip-test-db --tmpdir="$dir/tmp" $(sizes "$name") >"$dir/install.log" 2>&1 ||
      { cat "$dir/install.log" >&2; rm -rf "$dir/db"; return 1; }
  fi
  if ! running "$name"; then
    # Loopback-only TCP; root over TCP from 127.0.0.1 uses the passwordless root account.
    # shellcheck disable=SC2046
    nohup mariadbd --user=root --datadir="$dir/db" --socket="$(sock_of "$name")" --port="$port" \
      --bind-address=127.0.0.1 --pid-file="$(pidfile_of "$name")" --skip-name-resolve \
      --tmpdir="$dir/tmp" \
      --innodb-flush-log-at-trx-commit=2 $(sizes "$name") \
      --log-error="$dir/error.log" >/dev/null 2>&1 &
  fi
}

await() {  # name port: bounded wait until it answers, then the TCP root account
  local name="$1" port="$2" dir
  dir="$(dir_of "$name")"
  for _ in $(seq 1 120); do
    if answers "$name"; then break; fi
    sleep 0.25
  done
  if ! answers "$name"; then
    echo "mariadb: instance $name (port $port) does not answer; see $dir/error.log" >&2
    tail -20 "$dir/error.log" >&2 || true
    return 1
  fi
  mariadb --socket="$(sock_of "$name")" -uroot -e "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'; GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;"
}

stop_one() {  # name
  running "$1" || return 0
  local pid
  pid="$(cat "$(pidfile_of "$1")")"
  kill -CONT "$pid" 2>/dev/null || true  # a test may have left it frozen
  kill "$pid"
  for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  if kill -0 "$pid" 2>/dev/null; then echo "mariadb: $1 ($pid) did not stop" >&2; return 1; fi
}

case "${1:-}" in
  start)
    # Install and start every instance at once, then wait for each: start-up time is the
    # slowest instance's, not the sum.
    for inst in "${instances[@]}"; do launch "${inst%%:*}" "${inst##*:}"; done
    urls=()
    for inst in "${instances[@]}"; do
      await "${inst%%:*}" "${inst##*:}"
      [ "${inst%%:*}" = main ] || urls+=("mariadb://root@127.0.0.1:${inst##*:}/idforge")
    done
    main_port="${instances[0]##*:}"
    echo "IDFORGE_MARIADB_URL=mariadb://root@127.0.0.1:$main_port/mysql"
    echo "IDFORGE_MARIADB_SOCKET=$(sock_of main)"
    echo "IDFORGE_MARIADB_PORT=$main_port"
    echo "IDFORGE_MARIADB_TICKET_URLS=$(IFS=,; echo "${urls[*]}")"
    ;;
  stop)
    rc=0
    for inst in "${instances[@]}"; do stop_one "${inst%%:*}" || rc=1; done
    exit $rc
    ;;
  status)
    for inst in "${instances[@]}"; do
      if running "${inst%%:*}"; then state=running; else state=stopped; fi
      echo "mariadb ${inst%%:*} (port ${inst##*:}): $state"
    done
    ;;
  *)
    echo "usage: mariadb.sh start|stop|status" >&2
    exit 2
    ;;
esac
