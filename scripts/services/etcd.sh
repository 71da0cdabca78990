#!/usr/bin/env bash
# etcd.sh start|stop|status: etcd 3.4 on 127.0.0.1, data under $IDFORGE_DATA/etcd:
#   - a single member "solo" (client 12379, peer 12380);
#   - a three-member cluster a,b,c (clients 22379/22479/22579, peers 22380/22480/22580),
#     for failover tests that kill its leader.
# Each member's PID is in DIR/NAME.pid and the command that (re)starts it in DIR/NAME.start,
# so a test that killed a member can bring it back (it rejoins from its data dir).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
data="${IDFORGE_DATA:-$root/.data}/etcd"
cluster="$data/cluster"
members=(solo a b c)
off=${IDFORGE_PORT_OFFSET:-0}
declare -A client=([solo]=$((12379 + off)) [a]=$((22379 + off)) [b]=$((22479 + off)) [c]=$((22579 + off)))
declare -A peer=([solo]=$((12380 + off)) [a]=$((22380 + off)) [b]=$((22480 + off)) [c]=$((22580 + off)))

dir_of() { if [ "$1" = solo ]; then echo "$data/solo"; else echo "$cluster"; fi; }
running() { local f; f="$(dir_of "$1")/$1.pid"; [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null; }

write_start_script() {
  local m="$1" d initial token
  d="$(dir_of "$m")"
  if [ "$m" = solo ]; then
    initial="solo=http://127.0.0.1:${peer[solo]}"
    token=idforge-solo
  else
    token=idforge-cluster
    initial="a=http://127.0.0.1:${peer[a]},b=http://127.0.0.1:${peer[b]},c=http://127.0.0.1:${peer[c]}"
  fi
  cat >"$d/$m.start" <<SCRIPT
#!/usr/bin/env bash
# Starts etcd member $m in the background and writes its PID to $d/$m.pid.
nohup etcd --name $m --data-dir "$d/$m.data" \\
  --listen-client-urls http://127.0.0.1:${client[$m]} --advertise-client-urls http://127.0.0.1:${client[$m]} \\
  --listen-peer-urls http://127.0.0.1:${peer[$m]} --initial-advertise-peer-urls http://127.0.0.1:${peer[$m]} \\
  --initial-cluster $initial --initial-cluster-state new --initial-cluster-token $token \\
  --heartbeat-interval 100 --election-timeout 1000 --logger zap --log-outputs "$d/$m.log" \\
  </dev/null >/dev/null 2>&1 &
echo \$! >"$d/$m.pid"
SCRIPT
}

healthy() { curl -s -m 2 "http://127.0.0.1:${client[$1]}/health" 2>/dev/null | grep -q '"health":"true"'; }

case "${1:-}" in
  start)
    mkdir -p "$data/solo" "$cluster"
    for m in "${members[@]}"; do
      write_start_script "$m"
      running "$m" || bash "$(dir_of "$m")/$m.start"
    done
    for m in "${members[@]}"; do
      ok=0
      for _ in $(seq 1 150); do if healthy "$m"; then ok=1; break; fi; sleep 0.1; done
      if [ "$ok" -ne 1 ]; then
        echo "etcd.sh: member $m did not report healthy on 127.0.0.1:${client[$m]} within 15 s (see $(dir_of "$m")/$m.log)" >&2
        exit 1
      fi
    done
    echo "IDFORGE_ETCD_URL=etcd://127.0.0.1:${client[solo]}"
    echo "IDFORGE_ETCD_CLUSTER_URL=etcd://127.0.0.1:${client[a]},127.0.0.1:${client[b]},127.0.0.1:${client[c]}"
    echo "IDFORGE_ETCD_CLUSTER_DIR=$cluster"
    echo "IDFORGE_ETCD_CLUSTER_MEMBERS=a:${client[a]},b:${client[b]},c:${client[c]}"
    ;;
  stop)
    for m in "${members[@]}"; do
      f="$(dir_of "$m")/$m.pid"
      if running "$m"; then
        pid="$(cat "$f")"
        kill -CONT "$pid" 2>/dev/null || true
        kill "$pid"
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
      fi
      rm -f "$f"
    done
    ;;
  status)
    rc=0
    for m in "${members[@]}"; do
      if running "$m"; then echo "etcd $m: running, pid $(cat "$(dir_of "$m")/$m.pid"), client port ${client[$m]}"
      else echo "etcd $m: stopped"; rc=1; fi
    done
    exit $rc
    ;;
  *)
    echo "usage: etcd.sh start|stop|status" >&2
    exit 2
    ;;
esac
