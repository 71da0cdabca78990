#!/usr/bin/env bash
# mariadb.sh start|stop|status
# MariaDB 10.11 from Debian on 127.0.0.1:13306, run as root, data and socket under
# $IDFORGE_DATA/mariadb. Root logs in without a password over loopback and the socket.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="${IDFORGE_DATA:-$root/.data}/mariadb"
port=$((13306 + ${IDFORGE_PORT_OFFSET:-0}))
pidfile="$dir/mariadbd.pid"
sock="$dir/mariadbd.sock"

running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }
answers() { mariadb-admin --socket="$sock" -uroot --connect-timeout=2 ping >/dev/null 2>&1; }

case "${1:-}" in
  start)
    mkdir -p "$dir"
    if [ ! -d "$dir/db/mysql" ]; then
      mariadb-install-db --user=root --datadir="$dir/db" --auth-root-authentication-method=normal \
        --skip-test-db >"$dir/install.log" 2>&1 || { cat "$dir/install.log" >&2; exit 1; }
    fi
    if ! running; then
      # Loopback-only TCP; root over TCP from 127.0.0.1 uses the passwordless root account.
      nohup mariadbd --user=root --datadir="$dir/db" --socket="$sock" --port=$port \
        --bind-address=127.0.0.1 --pid-file="$pidfile" --skip-name-resolve \
        --innodb-buffer-pool-size=64M --innodb-flush-log-at-trx-commit=2 \
        --log-error="$dir/error.log" >/dev/null 2>&1 &
    fi
    for _ in $(seq 1 120); do
      if answers; then break; fi
      sleep 0.25
    done
    if ! answers; then
      echo "mariadb: no answer on $sock; see $dir/error.log" >&2
      tail -20 "$dir/error.log" >&2 || true
      exit 1
    fi
    # Root over TCP from 127.0.0.1 needs its own passwordless account.
    mariadb --socket="$sock" -uroot -e "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'; GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;"
    echo "IDFORGE_MARIADB_URL=mariadb://root@127.0.0.1:$port/mysql"
    echo "IDFORGE_MARIADB_SOCKET=$sock"
    echo "IDFORGE_MARIADB_PORT=$port"
    ;;
  stop)
    if running; then
      pid="$(cat "$pidfile")"
      kill "$pid"
      for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      if kill -0 "$pid" 2>/dev/null; then echo "mariadb: $pid did not stop" >&2; exit 1; fi
    fi
    ;;
  status)
    if running; then echo "mariadb (port $port): running"; else echo "mariadb (port $port): stopped"; fi
    ;;
  *)
    echo "usage: mariadb.sh start|stop|status" >&2
    exit 2
    ;;
esac
