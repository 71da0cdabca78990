#!/usr/bin/env python3
"""availability_probe.py FAULT [--bin PATH]: how long `idforge serve` is not ready, and how
long it is ready but failing, under one fault (docs/RELIABILITY.md, "Availability").

Starts its own redis-server (no persistence) on a free port when the fault needs one, and
one `idforge serve` with ttl=3000 and nodes=1 (the fault's second server, where there is
one, then has to take the same node). Every 10 ms it asks /readyz and /v1/ids/snowflake of
the first server and counts each sample as ready and issuing, not ready (503 from both:
the truth), or ready but failing (/readyz 200 and the ID request not 200: the state that
must never last). Faults:

  redis-stop-12s   SIGSTOP to Redis for 12 s (past the TTL), then SIGCONT
  flushall         FLUSHALL, then a second server on the same store 0.11 s later
  redis-restart    Redis killed and started again empty, a second server at once
  rm-rf            the lease folder deleted, a second server on the same path

Prints one line: samples, seconds not ready, seconds ready-but-failing, seconds until ready
again (redis-stop-12s: from the store answering; the others with --nodes 2: from the fault,
on another node), and duplicates between the two servers.
Every loop is bounded: it watches for 30 s after the fault at most.
"""
import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port, path, timeout=2.0):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}",
                                 headers={"Accept": "text/plain"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError:
        return 0, ""


class Redis:
    def __init__(self, folder):
        self.port = free_port()
        self.folder = folder
        self.proc = None
        self.start()

    def start(self):
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", self.folder],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("redis-server did not start")

    def command(self, *args):
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
            s.sendall(("*%d\r\n" % len(args) + "".join(
                "$%d\r\n%s\r\n" % (len(a), a) for a in args)).encode())
            return s.recv(4096)

    def kill(self):
        self.proc.kill()
        self.proc.wait()


def serve(binary, data, store):
    proc = subprocess.Popen([binary, "serve", "--port", "0", "--access-log", "off", "--data",
                             data, "--lease-store", store],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    end = time.time() + 60
    while time.time() < end:
        line = proc.stdout.readline()
        m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", line)
        if m:
            threading.Thread(target=lambda: proc.stdout.read(), daemon=True).start()
            return proc, int(m.group(1))
    raise SystemExit("serve did not listen within 60 s")


class Collector(threading.Thread):
    """Asks one server for IDs (count=100) until stopped; keeps them."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port, self.ids, self.stop = port, [], False

    def run(self):
        while not self.stop:
            status, body = get(self.port, "/v1/ids/snowflake?count=100")
            if status == 200:
                self.ids.extend(int(x) for x in body.split())
            else:
                time.sleep(0.01)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fault", choices=["redis-stop-12s", "flushall", "redis-restart", "rm-rf"])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build/src/cli/idforge"))
    ap.add_argument("--nodes", type=int, default=1,
                    help="node IDs in the store: 1 leaves the first server none to move to")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="idforge-availability-")
    redis = None
    procs = []
    try:
        if a.fault == "rm-rf":
            store = f"file:{tmp}/leases?nodes={a.nodes}&ttl=3000"
        else:
            redis = Redis(tmp)
            store = f"redis://127.0.0.1:{redis.port}?nodes={a.nodes}&ttl=3000"
            subprocess.run([a.bin, "lease", "init", "--store", store], check=True,
                           stdout=subprocess.DEVNULL)
        p1, port1 = serve(a.bin, f"{tmp}/a", store)
        procs.append(p1)
        c1 = Collector(port1)
        c1.start()
        time.sleep(1)
        samples = 0
        not_ready = failing = 0.0  # seconds, each sample counting the time since the last
        answered_at = ready_again = None
        c2 = None
        t_fault = time.time()
        t_prev = t_fault
        if a.fault == "redis-stop-12s":
            redis.proc.send_signal(signal.SIGSTOP)
        elif a.fault == "flushall":
            redis.command("FLUSHALL")
        elif a.fault == "redis-restart":
            redis.kill()
            redis.start()
        else:
            shutil.rmtree(f"{tmp}/leases")
        if a.fault != "redis-stop-12s":
            time.sleep(0.11)
            p2, port2 = serve(a.bin, f"{tmp}/b", store)
            procs.append(p2)
            c2 = Collector(port2)
            c2.start()
        while time.time() - t_fault < 30:
            if a.fault == "redis-stop-12s" and answered_at is None and time.time() - t_fault >= 12:
                redis.proc.send_signal(signal.SIGCONT)
                answered_at = time.time()
            ready, _ = get(port1, "/readyz")
            ids, _ = get(port1, "/v1/ids/snowflake")
            samples += 1
            now = time.time()
            if ready != 200:
                not_ready += now - t_prev
            elif ids != 200:
                failing += now - t_prev
            t_prev = now
            if answered_at and ready_again is None and ready == 200:
                ready_again = time.time() - answered_at
                break
            if a.fault != "redis-stop-12s" and a.nodes > 1 and not_ready > 0 and ready == 200 \
                    and ready_again is None:
                ready_again = time.time() - t_fault  # back, on another node
                break
            time.sleep(0.01)
        c1.stop = True
        if c2:
            c2.stop = True
            c2.join()
        c1.join()
        dup = len(set(c1.ids) & set(c2.ids)) if c2 else 0
        print(f"{a.fault}: samples={samples} not_ready_s={not_ready:.2f} "
              f"ready_but_failing_s={failing:.2f} "
              f"ready_again_s="
              f"{'-' if ready_again is None else f'{ready_again:.2f}'} "
              f"ids_a={len(c1.ids)} ids_b={len(c2.ids) if c2 else 0} duplicates={dup}")
    finally:
        for p in procs:
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        if redis:
            redis.proc.send_signal(signal.SIGCONT)
            redis.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
