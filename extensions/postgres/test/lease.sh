#!/usr/bin/env bash
# idforge.lease_store on PostgreSQL 15 instances of their own: two clusters on one file:
# store get different node IDs and issue no duplicate under concurrent load; a node fixed by
# idforge.node is registered (and refused when held); a restart resumes above the store's
# mark; a bad URL stops the server naming it; with the shared Redis (IDFORGE_REDIS_URL) a
# lease deleted in the store fences issuing with a clear ERROR, then resumes with a new
# lease and no ID at or below one issued before; a private Redis stopped fences issuing; the
# shared etcd (IDFORGE_ETCD_URL) as Redis. idforge_status() says the state at each step.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
port_a=$((15461 + ${IDFORGE_PORT_OFFSET:-0}))
port_b=$((15462 + ${IDFORGE_PORT_OFFSET:-0}))
redis_private_port=$((15463 + ${IDFORGE_PORT_OFFSET:-0}))
PGI_NAME=lease_a PGI_PORT=$port_a
# shellcheck source=pg_instance.sh
. "$here/pg_instance.sh"
pgi_need_installed
use() {  # a | b: the instance the pgi_* functions act on
  PGI_NAME="lease_$1"
  if [ "$1" = a ]; then PGI_PORT=$port_a; else PGI_PORT=$port_b; fi
  pgi_dir="$IDFORGE_PG_WORK/$PGI_NAME"
  pgi_data="$pgi_dir/data"
}
redis_pid=""
cleanup() {
  use a; pgi_stop immediate; use b; pgi_stop immediate
  if [ -n "$redis_pid" ]; then kill "$redis_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT
fails=0
check() {  # name condition...
  local name="$1"; shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name" >&2; fails=$((fails + 1)); fi
}
contains() { grep -qF -- "$2" <<<"$1"; }
is_id() { [[ "$1" =~ ^[0-9]+$ ]]; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
status() { pgi_psql -d postgres -c "SELECT idforge_status()->>'$1'"; }  # one field
id_ms() { echo $(( ($1 >> 22) + 1288834974657 )); }  # twitter
id_node() { echo $(( ($1 >> 12) & 1023 )); }
# The first ID read from stdin whose node is not $1. In shell arithmetic (64-bit): awk's
# doubles round a 61-bit ID, and a sequence near 4095 carries into the node bits.
not_on_node() {
  local id
  while read -r id; do
    (( ((id >> 12) & 1023) == $1 )) || { echo "$id"; return 0; }
  done
}
# The first ID once the worker holds a lease (bounded: 20 s); the last error otherwise.
first_id() {
  local out=""
  pgi_psql -d postgres -c "CREATE EXTENSION IF NOT EXISTS idforge" >/dev/null 2>&1 || true
  for _ in $(seq 1 100); do
    out="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()" 2>&1 || true)"
    [[ "$out" =~ ^[0-9]+$ ]] && { echo "$out"; return 0; }
    sleep 0.2
  done
  echo "$out"  # the caller's check fails on it (a failed substitution would end the script)
}
# Calls until the error contains $1 (bounded: 20 s); prints the last output.
until_error() {
  local out=""
  pgi_psql -d postgres -c "CREATE EXTENSION IF NOT EXISTS idforge" >/dev/null 2>&1 || true
  for _ in $(seq 1 100); do
    out="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()" 2>&1 || true)"
    contains "$out" "$1" && { echo "$out"; return 0; }
    sleep 0.2
  done
  echo "$out"  # the caller's check fails on it (a failed substitution would end the script)
}
store_dir="$IDFORGE_PG_WORK/lease_store"
rm -rf "$store_dir"; mkdir -p "$store_dir"; pgi_reach "$store_dir"; chown postgres:postgres "$store_dir"
store="file:$store_dir?ttl=3000"
setup() {  # a | b, lease store URL, extra settings...
  use "$1"
  local url="$2"; shift 2
  pgi_init </dev/null
  pgi_conf "shared_preload_libraries = 'idforge'"
  pgi_conf "idforge.lease_store = '$url'"
  for line in "$@"; do pgi_conf "$line"; done
}

# 1. A bad URL stops the server naming it and the rule.
setup a "nosuch:x"
pgi_start && { echo "FAIL: started with idforge.lease_store = nosuch:x" >&2; fails=$((fails + 1)); pgi_stop immediate; }
check "bad URL: the log names the setting and the value" \
  contains "$(cat "$pgi_dir/server.log")" "idforge.lease_store = 'nosuch:x'"
check "bad URL: the log says what a URL looks like" contains "$(cat "$pgi_dir/server.log")" "file:DIR"
pgi_conf "idforge.lease_store = 'file:$store_dir?ttl=abc'"
: | as_pg tee "$pgi_dir/server.log" >/dev/null 2>&1 || true
pgi_start && { echo "FAIL: started with ttl=abc" >&2; fails=$((fails + 1)); pgi_stop immediate; }
check "bad URL key: the log names the value" contains "$(cat "$pgi_dir/server.log")" "abc"
# Settings that can never lease stop the server too (not an "acquiring" retried forever),
# naming the value and the rule; later lines of postgresql.conf win.
refuses_start() {  # check name, words the log must hold, settings...
  local name="$1" words="$2"; shift 2
  for line in "$@"; do pgi_conf "$line"; done
  : | as_pg tee "$pgi_dir/server.log" >/dev/null 2>&1 || true
  if pgi_start; then
    echo "FAIL: $name: the server started" >&2; fails=$((fails + 1)); pgi_stop immediate; return
  fi
  check "$name: the log says why" contains "$(cat "$pgi_dir/server.log")" "$words"
}
refuses_start "static:5 alone (locks nothing: two clusters issued the same IDs)" "locks nothing" \
  "idforge.lease_store = 'static:5'"
refuses_start "static:1024 (outside twitter's nodes)" "1024" \
  "idforge.lease_store = 'static:1024?state=$store_dir'"
refuses_start "dc=32 (outside twitter's datacenters)" "dc=32 does not fit layout 'twitter'" \
  "idforge.lease_store = 'file:$store_dir?dc=32'"
refuses_start "a key given twice" "key 'ttl' is given twice" \
  "idforge.lease_store = 'file:$store_dir?ttl=1000&ttl=99999'"
refuses_start "bytes that are not UTF-8" "not UTF-8" \
  "idforge.lease_store = 'file:$store_dir/$(printf '\xe9')'"
refuses_start "idforge.node outside the store's dc" "node 5 is not in datacenter 1" \
  "idforge.lease_store = 'file:$store_dir?dc=1'" "idforge.node = 5"

# 2. Two clusters on one file: store: different node IDs; 4 sessions x 20000 IDs at once,
# no duplicate, each cluster's IDs carry its own node ID.
setup a "$store"
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
a1="$(first_id)"; check "cluster A issues under a lease ($a1)" is_id "$a1"
check "status: held" test "$(status state)" = held
check "status: ready" test "$(status ready)" = true
check "status: the store named" test "$(status lease_store)" = "$store"
check "status: the node in the IDs" test "$(status node)" = "$(id_node "$a1")"
check "status: the fence lies ahead" test "$(status fence_unix_ms)" -gt "$(now_ms)"
setup b "$store"
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
b1="$(first_id)"; check "cluster B issues under a lease ($b1)" is_id "$b1"
node_a="$(id_node "$a1")"; node_b="$(id_node "$b1")"
check "different node IDs ($node_a, $node_b)" test "$node_a" != "$node_b"
load="$IDFORGE_PG_WORK/lease_load"; rm -rf "$load"; mkdir -p "$load"
for c in a b; do
  use "$c"
  for s in 1 2; do
    timeout 120 psql -X -h 127.0.0.1 -p "$PGI_PORT" -U postgres -d postgres -At \
      -c "SELECT idforge_snowflake() FROM generate_series(1, 20000)" >"$load/$c$s" 2>&1 &
  done
done
wait
total="$(cat "$load"/* | grep -cE '^[0-9]+$' || true)"
check "concurrent load: 80000 IDs ($total)" test "$total" = 80000
check "concurrent load: no duplicate" test -z "$(cat "$load"/* | sort | uniq -d | head -1)"
check "cluster A's IDs carry node $node_a" test -z "$(cat "$load"/a* | not_on_node "$node_a")"
check "cluster B's IDs carry node $node_b" test -z "$(cat "$load"/b* | not_on_node "$node_b")"

# 3. A clean stop releases the node with the exact mark (not the reservation a TTL ahead).
use a
last_a="$(cat "$load"/a* | sort -n | tail -1)"
stopped_at="$(now_ms)"
pgi_stop fast
store_mark="$(head -1 "$store_dir/node-$node_a.mark")"
check "clean stop: the store's mark covers the last ID ($store_mark)" test "$store_mark" -ge "$(id_ms "$last_a")"
check "clean stop: the store's mark is the exact use, not the reservation" test "$store_mark" -le "$stopped_at"

# 4. A crash (no release), then a cluster without a mark file of its own on that node ID:
# it resumes above the store's mark, which lies ahead of the clock (the reservation).
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
before="$(pgi_psql -d postgres -c "SELECT max(idforge_snowflake()) FROM generate_series(1, 1000)")"
pgi_stop immediate
store_mark="$(head -1 "$store_dir/node-$node_a.mark")"
check "crash: the store keeps the reservation ($store_mark, ahead of $(now_ms))" test "$store_mark" -gt "$(now_ms)"
as_pg rm -f "$pgi_data/idforge_snowflake.mark"
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
after="$(first_id)"
check "restart: the same node ID again ($(id_node "$after"))" test "$(id_node "$after")" = "$node_a"
check "restart: resumes above the store's mark ($(id_ms "$after") > $store_mark)" \
  test "$(id_ms "$after")" -gt "$store_mark"
check "restart: above every ID before" test "$after" -gt "$before"

# 4b. The lease worker stalled (SIGSTOP): issuing stops at the fence, and the refusal says
# the worker did not renew, not that the store failed; SIGCONT: issuing resumes.
worker_pid="$(pgrep -f "idforge lease worker" -P "$(head -1 "$pgi_data/postmaster.pid")" | head -1 || true)"
check "the lease worker runs (pid '$worker_pid')" test -n "$worker_pid"
if [ -n "$worker_pid" ]; then
  kill -STOP "$worker_pid"
  out="$(until_error "fenced")"
  kill -CONT "$worker_pid"
  check "worker stalled: fenced ($out)" contains "$out" "the lease worker has not renewed it, though no renewal failed"
  again="$(first_id)"
  check "worker resumed: issues again ($again)" is_id "$again"
fi

# 4c. A store mark far ahead of the clock (50 s, beyond every wait): the lease is held, but
# status says plainly that no ID would be issued, and why.
pgi_stop fast
far_dir="$IDFORGE_PG_WORK/lease_far"; rm -rf "$far_dir"; mkdir -p "$far_dir"; chown postgres:postgres "$far_dir"
echo $(( $(now_ms) + 50000 )) | as_pg tee "$far_dir/node-0.mark" >/dev/null
pgi_conf "idforge.lease_store = 'file:$far_dir?nodes=1'"
as_pg rm -f "$pgi_data/idforge_snowflake.mark"
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
pgi_psql -d postgres -c "CREATE EXTENSION IF NOT EXISTS idforge" >/dev/null
for _ in $(seq 1 100); do [ "$(status state)" = held ] && break; sleep 0.2; done
check "far mark: the lease is held" test "$(status state)" = held
check "far mark: status says not ready" test "$(status ready)" = false
check "far mark: status says why ($(status not_ready))" contains "$(status not_ready)" "the clock is"
check "far mark: how far behind ($(status clock_behind_ms))" test "$(status clock_behind_ms)" -gt 40000
out="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()" 2>&1 || true)"
check "far mark: the ID is refused as status said" contains "$out" "behind the durable mark"
pgi_stop fast
pgi_conf "idforge.lease_store = '$store'"

# 5. idforge.node with idforge.lease_store: that node ID is registered; held, it is refused.
pgi_stop fast
use b; pgi_stop fast
setup a "$store" "idforge.node = 5"
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
fixed="$(first_id)"
check "fixed node: IDs carry node 5 ($fixed)" test "$(id_node "$fixed")" = 5
setup b "$store" "idforge.node = 5"
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
out="$(until_error "node 5")"
check "fixed node held elsewhere: refused naming state and store ($out)" \
  contains "$out" "acquiring: no node ID leased yet from idforge.lease_store 'file:$store_dir"
check "fixed node held elsewhere: names the node" contains "$out" "node 5"
check "status: acquiring" test "$(status state)" = acquiring
check "status: no node yet" test -z "$(status node)"
check "status: the last error names node 5" contains "$(status last_error)" "node 5"
pgi_stop fast; use a; pgi_stop fast

# 6. The shared Redis: the lease key deleted -> "lost", nothing issued; then a new lease and
# only IDs above every earlier one.
if [ -z "${IDFORGE_REDIS_URL:-}" ]; then
  if [ "${IDFORGE_REQUIRE_SERVICES:-0}" = 1 ]; then
    echo "FAIL: IDFORGE_REDIS_URL is not set (scripts/services.sh start)" >&2; fails=$((fails + 1))
  else
    echo "skip: the Redis part (IDFORGE_REDIS_URL is not set)"
  fi
else
  hp="${IDFORGE_REDIS_URL#redis://}"; hp="${hp%%/*}"; hp="${hp%%\?*}"
  prefix="idforge:pgtest:$$:"
  redis_store="redis://$hp?ttl=3000&prefix=$prefix"
  setup a "$redis_store"
  pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
  r1="$(first_id)"; check "redis: issues under a lease ($r1)" is_id "$r1"
  node_r="$(id_node "$r1")"
  before="$(pgi_psql -d postgres -c "SELECT max(idforge_snowflake()) FROM generate_series(1, 1000)")"
  redis-cli -h "${hp%%:*}" -p "${hp##*:}" DEL "${prefix}node:$node_r" >/dev/null
  out="$(until_error "lost")"
  check "redis: key deleted -> lost, naming the store ($out)" \
    contains "$out" "lost: the lease on node $node_r in idforge.lease_store '$redis_store' is gone"
  again="$(first_id)"
  check "redis: a new lease issues again ($again)" is_id "$again"
  check "redis: above every ID before the loss" test "$again" -gt "$before"
  check "redis: status held again" test "$(status state)" = held
  pgi_stop fast
  redis-cli -h "${hp%%:*}" -p "${hp##*:}" --scan --pattern "${prefix}*" |
    xargs -r redis-cli -h "${hp%%:*}" -p "${hp##*:}" DEL >/dev/null

  # A private Redis stopped: renewals fail, and issuing stops at the fence ("fenced").
  redis_dir="$IDFORGE_PG_WORK/lease_redis"; rm -rf "$redis_dir"; mkdir -p "$redis_dir"
  redis-server --port "$redis_private_port" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$redis_dir" >"$redis_dir/log" 2>&1 &
  redis_pid=$!
  for _ in $(seq 1 50); do
    redis-cli -p "$redis_private_port" ping >/dev/null 2>&1 && break
    sleep 0.1
  done
  private_store="redis://127.0.0.1:$redis_private_port?ttl=3000&timeout=500"
  setup a "$private_store"
  pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
  p1="$(first_id)"; check "private redis: issues under a lease ($p1)" is_id "$p1"
  kill "$redis_pid"; wait "$redis_pid" 2>/dev/null || true; redis_pid=""
  out="$(until_error "fenced")"
  check "redis stopped: fenced, naming the store ($out)" \
    contains "$out" "fenced: node $(id_node "$p1")'s lease in idforge.lease_store '$private_store'"
  check "redis stopped: says renewals fail" contains "$out" "renewals fail"
  check "redis stopped: status fenced" test "$(status state)" = fenced
  check "redis stopped: status shows the fence passed" \
    test "$(status fence_unix_ms)" -le "$(now_ms)"
  check "redis stopped: status names the failure" test -n "$(status last_error)"
  pgi_stop fast
fi

# 7. The shared etcd: as Redis, a lease deleted in the store fences with "lost"; a new lease
# issues above every earlier ID.
if [ -z "${IDFORGE_ETCD_URL:-}" ]; then
  if [ "${IDFORGE_REQUIRE_SERVICES:-0}" = 1 ]; then
    echo "FAIL: IDFORGE_ETCD_URL is not set (scripts/services.sh start)" >&2; fails=$((fails + 1))
  else
    echo "skip: the etcd part (IDFORGE_ETCD_URL is not set)"
  fi
else
  ehp="${IDFORGE_ETCD_URL#etcd://}"; ehp="${ehp%%/*}"; ehp="${ehp%%\?*}"
  eprefix="/idforge/pgtest/$$/"
  etcd_store="etcd://$ehp?ttl=3000&prefix=$eprefix"
  setup a "$etcd_store"
  pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
  e1="$(first_id)"; check "etcd: issues under a lease ($e1)" is_id "$e1"
  node_e="$(id_node "$e1")"
  check "etcd: status names the node" test "$(status node)" = "$node_e"
  before="$(pgi_psql -d postgres -c "SELECT max(idforge_snowflake()) FROM generate_series(1, 1000)")"
  ETCDCTL_API=3 etcdctl --endpoints="http://$ehp" del "${eprefix}node/$node_e" >/dev/null
  out="$(until_error "lost")"
  check "etcd: key deleted -> lost, naming the store ($out)" \
    contains "$out" "lost: the lease on node $node_e in idforge.lease_store '$etcd_store' is gone"
  again="$(first_id)"
  check "etcd: a new lease issues again ($again)" is_id "$again"
  check "etcd: above every ID before the loss" test "$again" -gt "$before"
  pgi_stop fast
  check "etcd: a clean stop frees the node" \
    test -z "$(ETCDCTL_API=3 etcdctl --endpoints="http://$ehp" get --prefix "${eprefix}node/" --keys-only)"
  ETCDCTL_API=3 etcdctl --endpoints="http://$ehp" del --prefix "$eprefix" >/dev/null
fi

# 8. A hot standby of a leased cluster takes no lease: status says "standby", not ready, and
# a refusal's hint says a promoted standby leases a node ID of its own.
setup a "$store"
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
p1="$(first_id)"; check "primary issues ($p1)" is_id "$p1"
use b; pgi_stop immediate
rm -rf "$pgi_dir"; mkdir -p "$pgi_dir"; pgi_reach "$pgi_dir"; chown postgres:postgres "$pgi_dir"
as_pg "$pg_bin/pg_basebackup" -h 127.0.0.1 -p "$port_a" -U postgres -D "$pgi_data" -R -X stream \
  >"$pgi_dir/basebackup.log" 2>&1 || { cat "$pgi_dir/basebackup.log" >&2; exit 1; }
pgi_conf "port = $port_b"
pgi_conf "unix_socket_directories = '$pgi_data'"
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
check "standby: status says standby" test "$(status state)" = standby
check "standby: not ready" test "$(status ready)" = false
out="$(pgi_psql -d postgres -c "SELECT idforge_snowflake()" 2>&1 || true)"
check "standby: refused ($out)" contains "$out" "cannot issue IDs on a server in recovery"
check "standby: a promoted standby leases its own node" contains "$out" "leases a node ID of its own"
pgi_stop fast; use a; pgi_stop fast

[ "$fails" = 0 ] || { echo "$fails check(s) failed" >&2; exit 1; }
echo "the leased node ID behaves"
