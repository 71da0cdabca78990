#!/usr/bin/env python3
"""cluster.py: idforge's leases on a cluster of network namespaces, under faults.

Builds a network of its own (topology.py: a bridge namespace, one namespace per host, veths,
no route out), starts a real 3-member etcd cluster (or one Redis with --store redis), four
`idforge serve` hosts (two of them under libfaketime, 2 s behind and 3 s ahead) and one
Python process leasing with the idforge package, all on one lease URL with one node ID
fewer than holders (a spare), and one client per host recording every acknowledged ID
(workload.py). A nemesis then runs its schedule cycle by cycle: a host cut from the store
(shorter and longer than the TTL), the etcd leader isolated from its peers and killed, a
follower killed and isolated, a server paused past the TTL (SIGSTOP), killed (SIGKILL) and
stopped cleanly from the host whose clock is ahead; with Redis, the store paused and killed.
Nothing restarts a server but the nemesis itself after a kill: there is no watchdog.
checker.py then counts duplicates, order violations and handover overlaps (any of them fails
the run), how long each fault kept each holder and the whole cluster from issuing, and
whether every holder came back by itself (a server that exited by itself, or a holder that
never issued again while a node ID stayed out of service, fails the run).

usage: cluster.py [--store etcd|redis] [--cycles N] [--out DIR] [--schedule FILE] ...
Exit status: 0 held, 1 a check failed, 77 network namespaces are not allowed here (the
reason is printed; IDFORGE_REQUIRE_CLUSTER=1 makes that a failure, 1).

Every wait is bounded, and every process and namespace it made is removed at the end, also
after an exception or SIGINT/SIGTERM; a run killed outright is swept by the next run.
"""

import argparse
import fcntl
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import checker  # noqa: E402
import topology  # noqa: E402

FAKETIME_LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
SERVE_PORT = 8080
ETCD_FLAGS = ["--pre-vote", "--heartbeat-interval", "50", "--election-timeout", "500"]

HOSTS = {"e1": 11, "e2": 12, "e3": 13, "r1": 21, "s1": 31, "s2": 32, "s3": 33, "s4": 34,
         "p1": 41}
SERVERS = ["s1", "s2", "s3", "s4"]
SKEW_S = {"s2": -2, "s3": 3}  # libfaketime offsets
MEMBERS = ["e1", "e2", "e3"]

# One cycle: (fault, seconds it lasts, seconds to settle after it).
ETCD_CYCLE = [("host-cut-short", 2.1, 5), ("host-cut-long", 8, 8), ("leaser-cut-short", 2.1, 5),
              ("leader-isolate", 10, 8), ("leader-kill", 4, 6), ("follower-kill", 4, 5),
              ("follower-isolate", 5, 5), ("server-pause", 6, 6), ("server-kill", 3, 8),
              ("server-term-ahead", 1, 8)]
REDIS_CYCLE = [("host-cut-short", 2.1, 5), ("host-cut-long", 8, 8), ("leaser-cut-short", 2.1, 5),
               ("store-pause-short", 2, 5), ("store-pause-long", 8, 8), ("store-kill", 2, 8),
               ("server-pause", 6, 6), ("server-kill", 3, 8), ("server-term-ahead", 1, 8)]


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


class Cluster:
    def __init__(self, a, work):
        self.a, self.work = a, work
        self.net = topology.Network(HOSTS)
        self.procs = {}     # name -> Popen
        self.commands = {}  # name -> (host, argv, env) to start it again
        self.rng = random.Random(a.seed)
        self.stop_file = os.path.join(work, "stop")
        self.faults = []
        if a.store == "etcd":
            eps = ",".join(f"{self.net.addr(m)}:2379" for m in MEMBERS)
            self.url = f"etcd://{eps}?ttl={a.ttl}&nodes={a.nodes}"
        else:
            self.url = f"redis://{self.net.addr('r1')}:6379?ttl={a.ttl}&nodes={a.nodes}"

    # --- processes -------------------------------------------------------------------
    def spawn(self, name, host, argv, env=None):
        self.commands[name] = (host, argv, env)
        out = open(os.path.join(self.work, name + ".log"), "ab")
        full_env = dict(os.environ, **(env or {}))
        self.procs[name] = subprocess.Popen(self.net.exec_args(host) + argv, stdout=out,
                                            stderr=subprocess.STDOUT, env=full_env,
                                            start_new_session=True)
        out.close()

    def restart(self, name):
        host, argv, env = self.commands[name]
        self.spawn(name, host, argv, env)

    def signal(self, name, sig):
        p = self.procs.get(name)
        if p and p.poll() is None:
            os.killpg(p.pid, sig)

    def wait_exit(self, name, timeout):
        p = self.procs.get(name)
        if not p:
            return
        try:
            p.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()

    def kill_all(self):
        for name, p in self.procs.items():
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGCONT)
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        for p in self.procs.values():
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                pass

    def run_in(self, host, *argv, timeout=30):
        return subprocess.run(self.net.exec_args(host) + list(argv), capture_output=True,
                              text=True, timeout=timeout)

    # --- the store ---------------------------------------------------------------------
    def start_etcd(self, member, state="new"):
        ip = self.net.addr(member)
        cluster = ",".join(f"{m}=http://{self.net.addr(m)}:2380" for m in MEMBERS)
        self.spawn(member, member, [
            "etcd", "--name", member, "--data-dir", os.path.join(self.work, member + ".etcd"),
            "--listen-client-urls", f"http://{ip}:2379", "--advertise-client-urls",
            f"http://{ip}:2379", "--listen-peer-urls", f"http://{ip}:2380",
            "--initial-advertise-peer-urls", f"http://{ip}:2380", "--initial-cluster", cluster,
            "--initial-cluster-state", state, "--initial-cluster-token", "idforge-cluster",
            "--log-level", "warn"] + self.a.etcd_flags)

    def etcd_status(self):
        """{member: is_leader} for the members that answer."""
        out = {}
        for m in MEMBERS:
            try:
                r = self.run_in(m, "etcdctl", "--endpoints", f"http://{self.net.addr(m)}:2379",
                                "--command-timeout=1s", "endpoint", "status", "-w", "json",
                                timeout=5)
            except subprocess.TimeoutExpired:
                continue
            if r.returncode != 0:
                continue
            try:
                s = json.loads(r.stdout)[0]["Status"]
            except (ValueError, LookupError, TypeError):
                continue
            # A member without a leader (an election under way) answers with no "leader".
            if "leader" in s:
                out[m] = s["leader"] == s.get("header", {}).get("member_id")
        return out

    def leader(self, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            st = self.etcd_status()
            leaders = [m for m, is_leader in st.items() if is_leader]
            if len(leaders) == 1 and len(st) == len(MEMBERS):
                return leaders[0]
            time.sleep(0.2)
        raise RuntimeError("etcd elected no leader with every member answering in "
                           f"{timeout} s")

    def start_store(self):
        if self.a.store == "etcd":
            for m in MEMBERS:
                self.start_etcd(m)
            log(f"etcd leader: {self.leader(60)}")
        else:
            self.spawn("r1", "r1", ["redis-server", "--bind", self.net.addr("r1"), "--port",
                                    "6379", "--appendonly", "yes", "--appendfsync", "always",
                                    "--save", "", "--dir", self.work, "--protected-mode", "no"])
            end = time.time() + 30
            while self.run_in("r1", "redis-cli", "-h", self.net.addr("r1"), "ping").stdout.strip() \
                    != "PONG":
                if time.time() > end:
                    raise RuntimeError("redis-server did not answer PING in 30 s")
                time.sleep(0.1)
        r = self.run_in("s1", self.a.bin, "lease", "init", "--store", self.url)
        if r.returncode != 0:
            raise RuntimeError(f"lease init: {r.stdout}{r.stderr}")

    # --- holders and clients ---------------------------------------------------------------
    def start_server(self, host):
        env = {}
        if host in SKEW_S:
            env = {"LD_PRELOAD": FAKETIME_LIB, "FAKETIME": f"{SKEW_S[host]:+d}s",
                   "FAKETIME_DONT_FAKE_MONOTONIC": "1", "FAKETIME_NO_CACHE": "1"}
        data = os.path.join(self.work, host + ".data")
        os.makedirs(data, exist_ok=True)
        self.spawn(host, host, [self.a.bin, "serve", "--port", str(SERVE_PORT), "--data", data,
                                "--layout", "twitter", "--lease-store", self.url,
                                "--access-log", "off"], env)

    def start_holders(self):
        py = sys.executable
        self.spawn("p1", "p1", [py, os.path.join(HERE, "workload.py"), "leaser", self.url,
                                os.path.join(self.work, "p1.ids"), self.stop_file,
                                str(self.a.count)],
                   {"PYTHONPATH": self.a.pythonpath})
        for h in SERVERS:
            self.start_server(h)
            self.spawn("c-" + h, h, [py, os.path.join(HERE, "workload.py"), "client",
                                     str(SERVE_PORT), os.path.join(self.work, h + ".ids"),
                                     self.stop_file, str(self.a.count)])

    def last_answer(self, source):
        """(time of the last acknowledged call, node of its first ID) from source's file."""
        path = os.path.join(self.work, source + ".ids")
        try:
            with open(path, "rb") as f:
                f.seek(max(0, os.path.getsize(path) - 65536))
                lines = f.read().decode(errors="replace").splitlines()
        except OSError:
            return 0.0, None
        for line in reversed(lines[1:]):
            p = line.split()
            if len(p) >= 4 and p[0] == "I":
                try:
                    return float(p[2]) / 1000, checker.Layout().node(int(p[3]))
                except ValueError:
                    continue
        return 0.0, None

    def active(self, candidates):
        """Those of candidates that issued in the last second, in random order."""
        now = time.time()
        live = [c for c in candidates if now - self.last_answer(c)[0] < 1.0]
        self.rng.shuffle(live)
        return live

    # --- the nemesis ---------------------------------------------------------------------
    def fault(self, kind, length):
        store_hosts = MEMBERS if self.a.store == "etcd" else ["r1"]
        rec = {"kind": kind, "targets": [], "start": time.time() * 1000}

        def hold():
            time.sleep(length)

        if kind in ("host-cut-short", "host-cut-long", "leaser-cut-short"):
            pool = ["p1"] if kind == "leaser-cut-short" else SERVERS
            live = self.active(pool) or pool
            t = live[0]
            rec["targets"] = [t]
            node = self.last_answer(t)[1]
            rec["nodes"] = [] if node is None else [node]
            self.net.cut(t, store_hosts)
            hold()
            self.net.heal(t)
        elif kind in ("leader-isolate", "follower-isolate"):
            lead = self.leader()
            m = lead if kind == "leader-isolate" else self.rng.choice(
                [x for x in MEMBERS if x != lead])
            rec["member"] = m
            self.net.cut(m, [x for x in MEMBERS if x != m])
            hold()
            self.net.heal(m)
        elif kind in ("leader-kill", "follower-kill"):
            lead = self.leader()
            m = lead if kind == "leader-kill" else self.rng.choice(
                [x for x in MEMBERS if x != lead])
            rec["member"] = m
            self.signal(m, signal.SIGKILL)
            self.wait_exit(m, 10)
            hold()
            self.start_etcd(m, "existing")
        elif kind in ("store-pause-short", "store-pause-long"):
            self.signal("r1", signal.SIGSTOP)
            hold()
            self.signal("r1", signal.SIGCONT)
        elif kind == "store-kill":
            self.signal("r1", signal.SIGKILL)
            self.wait_exit("r1", 10)
            hold()
            self.restart("r1")
        elif kind in ("server-pause", "server-kill", "server-term-ahead"):
            live = self.active(SERVERS) or SERVERS
            if kind == "server-term-ahead":
                # The host furthest ahead that holds a node ID: its clean release leaves a mark
                # in its own (later) time that the next holder's clock has to pass.
                ahead = sorted((h for h in live if SKEW_S.get(h, 0) > 0),
                               key=lambda h: -SKEW_S[h])
                live = ahead or sorted(live, key=lambda h: -SKEW_S.get(h, 0))
            t = live[0]
            rec["targets"] = [t]
            node = self.last_answer(t)[1]
            rec["nodes"] = [] if node is None else [node]
            if kind == "server-pause":
                self.signal(t, signal.SIGSTOP)
                hold()
                self.signal(t, signal.SIGCONT)
            else:
                self.signal(t, signal.SIGKILL if kind == "server-kill" else signal.SIGTERM)
                self.wait_exit(t, 15)
                hold()
                self.start_server(t)
        else:
            raise SystemExit(f"unknown fault kind '{kind}'")
        rec["end"] = time.time() * 1000
        self.faults.append(rec)
        log(f"{kind} {rec.get('targets') or rec.get('member', '')} "
            f"{(rec['end'] - rec['start']) / 1000:.1f} s")

    def wait_all_nodes(self, timeout):
        """Bounded: until every node ID of the store is in service again (or timeout)."""
        end = time.time() + timeout
        while time.time() < end:
            nodes = {self.last_answer(s)[1] for s in SERVERS + ["p1"]
                     if time.time() - self.last_answer(s)[0] < 1.0}
            if len(nodes - {None}) >= self.a.nodes:
                return True
            time.sleep(0.5)
        return False


def schedule(a):
    if a.schedule:
        with open(a.schedule) as f:
            return [tuple(x) for x in json.load(f)]
    cycle = ETCD_CYCLE if a.store == "etcd" else REDIS_CYCLE
    return cycle * a.cycles


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", choices=["etcd", "redis"], default="etcd")
    ap.add_argument("--cycles", type=int, default=1)
    ap.add_argument("--schedule", help="JSON list of [fault, seconds, settle seconds]")
    ap.add_argument("--ttl", type=int, default=3000)
    ap.add_argument("--nodes", type=int, default=4, help="node IDs in the store (5 holders)")
    ap.add_argument("--count", type=int, default=20, help="IDs per call")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build/src/cli/idforge"))
    ap.add_argument("--pythonpath", default=os.path.join(ROOT, "build/bindings/python"))
    ap.add_argument("--out", help="keep logs, histories and the report here")
    ap.add_argument("--etcd-flags", default=" ".join(ETCD_FLAGS))
    a = ap.parse_args()
    a.etcd_flags = a.etcd_flags.split()

    why = topology.allowed()
    if why is None:
        for tool in ("nft", "etcd" if a.store == "etcd" else "redis-server"):
            if shutil.which(tool) is None:
                why = f"{tool} is not installed"
    if why is None and not os.path.exists(FAKETIME_LIB):
        why = f"libfaketime missing: {FAKETIME_LIB}"
    if why:
        print(f"cluster test skipped: {why}", flush=True)
        return 1 if os.environ.get("IDFORGE_REQUIRE_CLUSTER") == "1" else 77

    lock = open(os.path.join(tempfile.gettempdir(), "idforge-cluster.lock"), "w")
    fcntl.flock(lock, fcntl.LOCK_EX)  # one run at a time: the names are shared
    work = a.out or tempfile.mkdtemp(prefix="idforge-cluster-")
    if a.out:
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
    c = Cluster(a, work)

    def on_signal(sig, _frame):
        raise KeyboardInterrupt(f"signal {sig}")

    signal.signal(signal.SIGTERM, on_signal)
    ok = False
    try:
        topology.sweep()
        c.net.up()
        c.start_store()
        c.start_holders()
        if not c.wait_all_nodes(60):
            raise RuntimeError(f"not all {a.nodes} node IDs in service 60 s after start")
        log(f"all {a.nodes} node IDs in service; store {c.url}")
        begin = time.time() * 1000
        time.sleep(3)
        for kind, length, settle in schedule(a):
            c.fault(kind, float(length))
            time.sleep(float(settle))
        back = c.wait_all_nodes(60)
        log("every node ID back in service" if back else "NOT every node ID back in 60 s")
        time.sleep(3)
        end = time.time() * 1000
        # A server that ended by itself is down for good (nothing restarts it): a failure,
        # even where every node ID is in service without it.
        exited = {h: c.procs[h].poll() for h in SERVERS if c.procs[h].poll() is not None}
        open(c.stop_file, "w").close()
        for name in ["p1"] + ["c-" + h for h in SERVERS]:
            c.wait_exit(name, 30)
        for h in SERVERS:
            c.signal(h, signal.SIGCONT)
            c.signal(h, signal.SIGTERM)
        for h in SERVERS:
            c.wait_exit(h, 30)
        sources = {}
        for s in SERVERS + ["p1"]:
            try:
                with open(os.path.join(work, s + ".ids")) as f:
                    sources[s] = f.read().splitlines()
            except OSError:
                sources[s] = []
        skews = {s: SKEW_S.get(s, 0) for s in sources}
        report = checker.check(sources, c.faults, begin, end, a.nodes, skews=skews)
        report["store"], report["url"], report["etcd_flags"] = a.store, c.url, a.etcd_flags
        report["raw_faults"], report["begin"], report["end"] = c.faults, begin, end
        report["servers_exited"] = exited
        if exited:
            report["ok"] = False
        with open(os.path.join(work, "report.json"), "w") as f:
            json.dump(report, f, indent=1)
        title = f"{a.store}, {len(c.faults)} faults, ttl {a.ttl} ms"
        md = checker.markdown(report, title)
        with open(os.path.join(work, "report.md"), "w") as f:
            f.write(md + "\n")
        print(md)
        print(f"(histories and logs: {work})")
        ok = report["ok"]
        if not ok:
            print("cluster test FAILED: " + json.dumps(
                {k: report[k] for k in ("duplicates", "order_violations", "handover_overlaps",
                                        "never_back", "nodes_in_service_at_end",
                                        "servers_exited", "duplicate_examples")}))
    finally:
        c.kill_all()
        topology.sweep()
        if not a.out and ok:
            shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
