"""The cluster test's network: one namespace per host, each with a veth into a bridge that
lives in a namespace of its own. Addresses exist only inside (10.77.0.0/24), there is no
default route, and nothing is attached to the root namespace, so no packet of the test can
leave the machine or reach a server outside it.

Every name starts with PREFIX, so a run that crashed is cleaned up by the next one
(`sweep()`), and by `python3 -m topology sweep` by hand.
"""

import os
import signal
import subprocess
import time

PREFIX = "idfc-"
BRIDGE_NS = PREFIX + "br"
SUBNET = "10.77.0"


def sh(*args, check=True, quiet=False):
    r = subprocess.run(list(args), capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r


def namespaces():
    r = sh("ip", "netns", "list", check=False)
    return [line.split()[0] for line in r.stdout.splitlines() if line.startswith(PREFIX)]


def kill_inside(ns):
    """kill -9 every process whose network namespace is ns (a crashed run's servers)."""
    r = sh("ip", "netns", "pids", ns, check=False)
    for pid in r.stdout.split():
        try:
            os.kill(int(pid), signal.SIGCONT)
            os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


def sweep():
    """Remove every namespace (and so its veths, bridge and firewall) a run left behind."""
    for ns in namespaces():
        kill_inside(ns)
    for _ in range(50):
        if not any(sh("ip", "netns", "pids", ns, check=False).stdout.split()
                   for ns in namespaces()):
            break
        time.sleep(0.1)
    for ns in namespaces():
        sh("ip", "netns", "delete", ns, check=False)


def allowed():
    """None where network namespaces can be made here, else the reason they cannot."""
    if os.geteuid() != 0:
        return "network namespaces need root (CAP_SYS_ADMIN and CAP_NET_ADMIN)"
    probe = PREFIX + "probe"
    r = sh("ip", "netns", "add", probe, check=False)
    if r.returncode != 0:
        return f"'ip netns add' failed: {r.stderr.strip()}"
    try:
        r = sh("ip", "netns", "exec", probe, "nft", "list", "ruleset", check=False)
        if r.returncode != 0:
            return f"nft does not work in a network namespace: {r.stderr.strip()}"
        r = sh("ip", "-n", probe, "link", "add", "vprobe", "type", "bridge", check=False)
        if r.returncode != 0:
            return f"a bridge cannot be made in a network namespace: {r.stderr.strip()}"
    finally:
        sh("ip", "netns", "delete", probe, check=False)
    return None


class Network:
    """hosts: {name: last octet}. Host NAME lives in namespace PREFIX+NAME at SUBNET.octet."""

    def __init__(self, hosts):
        self.hosts = dict(hosts)

    def ns(self, host):
        return PREFIX + host

    def addr(self, host):
        return f"{SUBNET}.{self.hosts[host]}"

    def up(self):
        sh("ip", "netns", "add", BRIDGE_NS)
        sh("ip", "-n", BRIDGE_NS, "link", "add", "br0", "type", "bridge")
        sh("ip", "-n", BRIDGE_NS, "link", "set", "br0", "up")
        sh("ip", "-n", BRIDGE_NS, "link", "set", "lo", "up")
        for host in self.hosts:
            ns = self.ns(host)
            port = "v-" + host  # at most 15 characters: host names are short
            sh("ip", "netns", "add", ns)
            # Made inside the host's namespace with its peer put straight into the bridge's:
            # neither end ever exists in the root namespace.
            sh("ip", "-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", port,
               "netns", BRIDGE_NS)
            sh("ip", "-n", BRIDGE_NS, "link", "set", port, "master", "br0")
            sh("ip", "-n", BRIDGE_NS, "link", "set", port, "up")
            sh("ip", "-n", ns, "addr", "add", self.addr(host) + "/24", "dev", "eth0")
            sh("ip", "-n", ns, "link", "set", "eth0", "up")
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            # Our own table, empty until a fault: drops, not rejects, so a cut peer looks like
            # a partition (TCP retransmits until the caller's timeout), not a closed port.
            self.nft(host, "add table inet nemesis")
            for chain, hook in (("in", "input"), ("out", "output")):
                self.nft(host, f"add chain inet nemesis {chain} "
                         f"{{ type filter hook {hook} priority 0 ; policy accept ; }}")

    def nft(self, host, command):
        sh("ip", "netns", "exec", self.ns(host), "nft", command)

    def cut(self, host, peers):
        """Drop every packet between host and each of peers, both ways, at host."""
        addrs = ", ".join(self.addr(p) for p in peers)
        self.nft(host, f"add rule inet nemesis out ip daddr {{ {addrs} }} drop")
        self.nft(host, f"add rule inet nemesis in ip saddr {{ {addrs} }} drop")

    def heal(self, host):
        self.nft(host, "flush chain inet nemesis out")
        self.nft(host, "flush chain inet nemesis in")

    def exec_args(self, host):
        return ["ip", "netns", "exec", self.ns(host)]

    def down(self):
        sweep()


if __name__ == "__main__":
    import sys
    if sys.argv[1:] == ["sweep"]:
        sweep()
    else:
        raise SystemExit("usage: topology.py sweep")
