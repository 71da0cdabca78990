#!/usr/bin/env python3
"""One lease space across languages: `idforge serve` (C++), a Python process, a Node
process and a SQLite connection (the extension, loaded into Python's sqlite3) lease Snowflake
node IDs from the same store at the same time, must hold distinct ones, and together issue
no duplicate in a bounded hunt.

usage: mixed_lease.py IDFORGE_CLI PYTHONPATH NODE_ADDON NODE SQLITE_EXTENSION
(SQLITE_EXTENSION "": a build without the extension; SQLite is left out)

Stores: a fresh file: folder always; Redis too when IDFORGE_REDIS_URL is set (with a key
prefix of this run's own). IDFORGE_REQUIRE_SERVICES=1 makes a missing IDFORGE_REDIS_URL a
failure, as in every test that needs a server.
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import urllib.request

CLI, PYPATH, ADDON, NODE, SQLITE_EXT = sys.argv[1:6]
PER_PROCESS = 200_000  # IDs each process issues in the hunt
BATCH = 10_000         # the service's largest count per request
TIMEOUT_S = 120        # every wait of the hunt is bounded by this

# A worker in each language: lease, say its node on stdout, wait for "go" on stdin, issue
# PER_PROCESS IDs into the file named in argv, exit (releasing the lease).
PY_WORKER = r"""
import sys, idforge
url, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = idforge.Snowflake("twitter", lease_store=url)
print("node", s.node, flush=True)
sys.stdin.readline()
ids = []
while len(ids) < n:
    ids += s.next_batch(min(10000, n - len(ids)))
with open(out, "w") as f:
    f.write("\n".join(map(str, ids)))
s.close()
"""

# SQLite: idforge_node('URL') leases a free node for the connection; snowflake() issues.
SQLITE_WORKER = r"""
import sqlite3, sys
ext, url, out, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
db = sqlite3.connect(":memory:")
db.enable_load_extension(True)
db.load_extension(ext)
db.enable_load_extension(False)
print("node", db.execute("SELECT idforge_node(?, 'twitter')", (url,)).fetchone()[0], flush=True)
sys.stdin.readline()
ids = []
while len(ids) < n:
    k = min(10000, n - len(ids))
    ids += [r[0] for r in db.execute(
        "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ?) "
        "SELECT snowflake() FROM c", (k,))]
with open(out, "w") as f:
    f.write("\n".join(map(str, ids)))
db.close()
"""

NODE_WORKER = r"""
const fs = require('node:fs');
const idforge = require(process.env.IDFORGE_NODE_PACKAGE);
const [url, out, nText] = process.argv.slice(1);
const n = Number(nText);
const s = new idforge.Snowflake({ layout: 'twitter', leaseStore: url });
process.stdout.write(`node ${s.node}\n`);
process.stdin.once('data', () => {
  const parts = [];
  for (let left = n; left > 0; left -= 10000) parts.push(Array.from(s.nextBatch(Math.min(10000, left)), String).join('\n'));
  fs.writeFileSync(out, parts.join('\n'));
  s.close();
  process.exit(0);
});
"""


def fail(message):
    print(f"mixed_lease: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def decompose_node(i):
    # twitter: 41 time | 5 dc | 5 worker | 12 sequence
    return (i >> 12) & 0x3FF


def hunt(url, scratch):
    print(f"mixed_lease: store {url}")
    env = dict(os.environ, PYTHONPATH=PYPATH, IDFORGE_NODE_ADDON=ADDON,
               IDFORGE_NODE_PACKAGE=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                 "..", "..", "bindings", "node"))
    procs = []
    try:
        serve = subprocess.Popen(
            [CLI, "serve", "--port", "0", "--lease-store", url, "--layout", "twitter",
             "--data", os.path.join(scratch, "serve"), "--access-log", "off"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        procs.append(serve)
        line = read_line(serve, "idforge serve")
        if "listening on" not in line:
            fail(f"idforge serve said '{line}', not 'listening on'")
        base = line.split("listening on ", 1)[1].strip()

        py_out, js_out = os.path.join(scratch, "python.ids"), os.path.join(scratch, "node.ids")
        sq_out = os.path.join(scratch, "sqlite.ids")
        py = subprocess.Popen(["/usr/bin/python3", "-c", PY_WORKER, url, py_out, str(PER_PROCESS)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        procs.append(py)
        js = subprocess.Popen([NODE, "-e", NODE_WORKER, url, js_out, str(PER_PROCESS)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        procs.append(js)
        sq = None
        if SQLITE_EXT:
            sq = subprocess.Popen(["/usr/bin/python3", "-c", SQLITE_WORKER, SQLITE_EXT, url,
                                   sq_out, str(PER_PROCESS)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
            procs.append(sq)
        py_node = int(read_line(py, "python worker").split()[1])
        js_node = int(read_line(js, "node worker").split()[1])

        # All three hold their leases now; the service's node shows in its IDs.
        serve_ids = []
        first = fetch(base, 1)
        serve_node = decompose_node(first[0])
        nodes = {"idforge serve": serve_node, "python": py_node, "node": js_node}
        if sq:
            nodes["sqlite"] = int(read_line(sq, "sqlite worker").split()[1])
        print(f"mixed_lease: nodes {nodes}")
        if len(set(nodes.values())) != len(nodes):
            fail(f"two processes hold the same node ID from {url}: {nodes}")

        workers = [(py, "python worker"), (js, "node worker")] + ([(sq, "sqlite worker")] if sq else [])
        for p, _ in workers:
            p.stdin.write("go\n")
            p.stdin.flush()
        # The service issues while the other two do.
        fetcher = threading.Thread(target=lambda: serve_ids.extend(
            i for _ in range(PER_PROCESS // BATCH) for i in fetch(base, BATCH)))
        fetcher.start()
        for p, name in workers:
            if p.wait(timeout=TIMEOUT_S) != 0:
                fail(f"{name} exited with {p.returncode}")
        fetcher.join(TIMEOUT_S)
        if fetcher.is_alive():
            fail(f"the service did not answer {PER_PROCESS} IDs within {TIMEOUT_S} s")
        serve_ids = first + serve_ids

        every = {"idforge serve": serve_ids, "python": read_ids(py_out), "node": read_ids(js_out)}
        if sq:
            every["sqlite"] = read_ids(sq_out)
        total = 0
        seen = set()
        for name, ids in every.items():
            if len(ids) < PER_PROCESS:
                fail(f"{name} issued {len(ids)} IDs, fewer than {PER_PROCESS}")
            if any(b <= a for a, b in zip(ids, ids[1:])):
                fail(f"{name}'s IDs are not strictly increasing")
            wrong = [i for i in ids if decompose_node(i) != nodes[name]]
            if wrong:
                fail(f"{name} issued {wrong[0]} with node {decompose_node(wrong[0])}, not {nodes[name]}")
            total += len(ids)
            seen.update(ids)
        duplicates = total - len(seen)
        print(f"mixed_lease: {total} IDs from {', '.join(every)} on one store, {duplicates} duplicates")
        if duplicates:
            fail(f"{duplicates} duplicate IDs across languages on {url}")
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


def read_line(proc, name):
    box = []
    t = threading.Thread(target=lambda: box.append(proc.stdout.readline()))
    t.start()
    t.join(TIMEOUT_S)
    if not box or not box[0]:
        err = proc.stderr.read() if proc.stderr and proc.poll() is not None else ""
        fail(f"{name} said nothing within {TIMEOUT_S} s (exit {proc.poll()}) {err}")
    return box[0].strip()


def fetch(base, count):
    req = urllib.request.Request(f"{base.rstrip('/')}/v1/ids/snowflake?count={count}",
                                 headers={"Accept": "text/plain"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return [int(x) for x in r.read().decode().split()]


def read_ids(path):
    with open(path) as f:
        return [int(x) for x in f.read().split()]


def main():
    stores = []
    scratch = tempfile.mkdtemp(prefix="idforge-mixed-")
    try:
        leases = os.path.join(scratch, "leases")
        os.mkdir(leases)
        stores.append(f"file:{leases}")
        redis = os.environ.get("IDFORGE_REDIS_URL")
        if redis:
            sep = "&" if "?" in redis else "?"
            stores.append(f"{redis}{sep}prefix=idforge:mixed:{os.getpid()}:")
        elif os.environ.get("IDFORGE_REQUIRE_SERVICES") == "1":
            fail("IDFORGE_REDIS_URL is not set: start the servers with scripts/services.sh start")
        else:
            print("mixed_lease: IDFORGE_REDIS_URL not set; the Redis store is left out")
        for i, url in enumerate(stores):
            run_dir = os.path.join(scratch, f"run{i}")
            os.mkdir(run_dir)
            hunt(url, run_dir)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("mixed_lease: every process held its own node ID; no duplicates")


if __name__ == "__main__":
    main()
