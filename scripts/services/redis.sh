#!/usr/bin/env bash
# redis.sh start|stop|status: one Redis 7 on 127.0.0.1:16379, no persistence, data under
# $IDFORGE_DATA/redis. Node-ID leases (src/coord) are tested against it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
data="${IDFORGE_DATA:-$root/.data}/redis"
port="${IDFORGE_REDIS_PORT:-$((16379 + ${IDFORGE_PORT_OFFSET:-0}))}"
pidfile="$data/redis.pid"

running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

case "${1:-}" in
  start)
    mkdir -p "$data"
    if ! running; then
      redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$data" \
        --daemonize yes --pidfile "$pidfile" --logfile "$data/redis.log" >/dev/null
    fi
    for _ in $(seq 1 100); do
      if redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null | grep -q PONG; then
        echo "IDFORGE_REDIS_URL=redis://127.0.0.1:$port"
        exit 0
      fi
      sleep 0.1
    done
    echo "redis.sh: redis-server did not answer on 127.0.0.1:$port within 10 s (see $data/redis.log)" >&2
    exit 1
    ;;
  stop)
    if running; then
      pid="$(cat "$pidfile")"
      kill -CONT "$pid" 2>/dev/null || true  # a pause test may have left it stopped
      kill "$pid"
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$pidfile"
    ;;
  status)
    if running; then echo "redis: running, pid $(cat "$pidfile"), port $port"; else echo "redis: stopped"; exit 1; fi
    ;;
  *)
    echo "usage: redis.sh start|stop|status" >&2
    exit 2
    ;;
esac
