#!/usr/bin/env bash
# bench_slow_clients.sh [BINARY]: how long a prompt client waits for one Snowflake while
# 1,000 connections trickle their request heads (one byte each every 100 ms, never ending
# them; a trickler whose connection was closed opens a new one at once, so 1,000 keep
# trying), against the same client on the same server with no tricklers, in one run.
# Each client request opens a connection of its own (the hardest case: it must be taken in
# over the tricklers at max-connections). Prints p50/p90/p99/max in ms for both.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${1:-$root/build/src/cli/idforge}"
data="$(mktemp -d)"
trap 'kill "$pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$data"' EXIT
"$bin" serve --port 0 --access-log off --data "$data" --node 1 >"$data/out" 2>&1 &
pid=$!
for _ in $(seq 1 200); do grep -q "listening on" "$data/out" 2>/dev/null && break; sleep 0.05; done
port="$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$data/out" | head -1)"
python3 - "$port" <<'PY'
import socket, sys, threading, time
port = int(sys.argv[1])

def one():
    t0 = time.perf_counter()
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET /v1/ids/snowflake HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    data = b""
    while True:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    s.close()
    ok = data.startswith(b"HTTP/1.1 200")
    return (time.perf_counter() - t0) * 1000, ok

def run(label, n=2000):
    times, failed = [], 0
    for _ in range(n):
        ms, ok = one()
        times.append(ms)
        failed += not ok
    times.sort()
    q = lambda p: times[min(len(times) - 1, int(p * len(times)))]
    print(f"{label:<28} n={n} p50={q(.5):.2f} ms p90={q(.9):.2f} ms p99={q(.99):.2f} ms "
          f"max={times[-1]:.2f} ms not-200={failed}")

run("no tricklers")
stop = False
reconnects = 0
def slow_one():
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.setblocking(False)
        s.send(b"GET /v1/ids/snowflake HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        return s
    except OSError:
        return None
socks = [slow_one() for _ in range(1000)]
def trickle():
    global reconnects
    while not stop:
        for i, s in enumerate(socks):
            try:
                if s is None:
                    raise OSError
                s.send(b"a")
                # A shed connection reads as closed (EOF): open a new one.
                try:
                    if s.recv(1, socket.MSG_PEEK) == b"":
                        raise OSError
                except BlockingIOError:
                    pass
            except OSError:
                if s is not None:
                    s.close()
                socks[i] = slow_one()
                reconnects += 1
        time.sleep(0.1)
t = threading.Thread(target=trickle)
t.start()
time.sleep(1)
run(f"{len(socks)} tricklers")
stop = True
t.join()
print(f"trickler reconnects after being shed: {reconnects}")
PY
curl -s "http://127.0.0.1:$port/metrics" | grep -E "^idforge_http_connections_(shed|rejected)_total"
