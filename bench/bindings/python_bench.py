#!/usr/bin/env python3
"""Python: idforge beside the standard library and a pure-Python Snowflake, in one run.

usage: PYTHONPATH=build/bindings/python /usr/bin/python3 bench/bindings/python_bench.py

Each row: the best of 5 timeit repeats, in ns per call (or per ID for batches), one thread.
The pure-Python Snowflake is the seed's algorithm as it describes it (a lock, the time in
ms, sequence = (sequence + 1) & mask, wait for the next ms when it wraps to 0).
"""

import platform
import threading
import time
import timeit
import uuid

import idforge

WIDE = "time=41,dc=0,worker=4,seq=18"  # 2^18 IDs per ms: the binding, not the layout, is the limit
# The public test key of tests/core/mask_support.hpp (never use it for anything real).
MASK_KEY = "1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"


class PureSnowflake:
    def __init__(self, node, seq_bits=12, node_bits=10, epoch_ms=1288834974657):
        self.node, self.seq_bits, self.node_bits, self.epoch = node, seq_bits, node_bits, epoch_ms
        self.mask = (1 << seq_bits) - 1
        self.last_ms, self.sequence = -1, 0
        self.lock = threading.Lock()

    def _wait_until_next_ms(self, last):
        now = time.time_ns() // 1_000_000
        while now <= last:
            now = time.time_ns() // 1_000_000
        return now

    def next_id(self):
        with self.lock:
            now = time.time_ns() // 1_000_000
            if now < self.last_ms:
                raise RuntimeError("clock moved backwards")
            if now == self.last_ms:
                self.sequence = (self.sequence + 1) & self.mask
                if self.sequence == 0:
                    now = self._wait_until_next_ms(self.last_ms)
            else:
                self.sequence = 0
            self.last_ms = now
            return (((now - self.epoch) << (self.node_bits + self.seq_bits)) |
                    (self.node << self.seq_bits) | self.sequence)


def ns_per_call(fn, number, per=1):
    return min(timeit.repeat(fn, number=number, repeat=5)) / number / per * 1e9


def ns_per_stmt(stmt, env, number):
    return min(timeit.repeat(stmt, globals=env, number=number, repeat=5)) / number * 1e9


def main():
    rows = []
    n = 200_000
    rows.append(("uuid.uuid4()  [stdlib]", ns_per_call(uuid.uuid4, n)))
    rows.append(("str(uuid.uuid4())  [stdlib]", ns_per_call(lambda: str(uuid.uuid4()), n)))
    rows.append(("idforge.uuid7() -> uuid.UUID", ns_per_call(idforge.uuid7, n)))
    rows.append(("idforge.uuid7_str() -> str", ns_per_call(idforge.uuid7_str, n)))
    rows.append(("idforge.uuid4() -> uuid.UUID", ns_per_call(idforge.uuid4, n)))
    rows.append(("idforge.uuid4_str() -> str", ns_per_call(idforge.uuid4_str, n)))
    rows.append(("idforge.ulid() -> str", ns_per_call(idforge.ulid, n)))

    pure = PureSnowflake(node=1)
    pure_wide = PureSnowflake(node=1, seq_bits=18, node_bits=4)
    sf = idforge.Snowflake("twitter", node=1)
    wide = idforge.Snowflake(WIDE, node=2)  # node 1 is sf's: one live handle per node
    rows.append(("pure-Python Snowflake next_id(), twitter", ns_per_call(pure.next_id, n)))
    rows.append(("pure-Python Snowflake next_id(), wide", ns_per_call(pure_wide.next_id, n)))
    rows.append(("Snowflake.next(), twitter", ns_per_call(sf.next, n)))
    rows.append(("Snowflake.next(), wide", ns_per_call(wide.next, n)))
    rows.append(("Snowflake.next_batch(1000) per ID, twitter",
                 ns_per_call(lambda: sf.next_batch(1000), 300, 1000)))
    rows.append(("Snowflake.next_batch(1000) per ID, wide",
                 ns_per_call(lambda: wide.next_batch(1000), 300, 1000)))
    rows.append(("list(range(1000)) per element  [the list's own cost]",
                 ns_per_call(lambda: list(range(2**62, 2**62 + 1000)), 3000, 1000)))
    rows.append(("empty C call: len(())  [call overhead]", ns_per_call(lambda: len(()), n)))

    # Masking: statements rather than lambdas, so no Python frame is timed with the call.
    kr = idforge.MaskKeyring.from_text(MASK_KEY)
    env = {"kr": kr, "n": 4001, "pub": kr.mask(4001), "m": kr.mask(4001, form="raw")}
    rows.append(("MaskKeyring.mask(n, form='raw'), u63 -> int",
                 ns_per_stmt("kr.mask(n, form='raw')", env, n)))
    rows.append(("MaskKeyring.unmask(m), raw u63 -> int", ns_per_stmt("kr.unmask(m)", env, n)))
    rows.append(("MaskKeyring.mask(n), u63 -> public str", ns_per_stmt("kr.mask(n)", env, n)))
    rows.append(("MaskKeyring.unmask(pub), public str -> int", ns_per_stmt("kr.unmask(pub)", env, n)))
    rows.append(("empty C call with a keyword: int('5', base=10)  [call overhead]",
                 ns_per_stmt("int('5', base=10)", env, n)))

    print(f"python {platform.python_version()}, idforge {idforge.__version__}")
    width = max(len(r[0]) for r in rows)
    for name, v in rows:
        print(f"{name:<{width}}  {v:9.1f} ns")
    d = dict(rows)
    print()
    print(f"uuid.uuid4() / idforge.uuid7()          = {d['uuid.uuid4()  [stdlib]'] / d['idforge.uuid7() -> uuid.UUID']:.1f}x")
    print(f"uuid.uuid4() / idforge.uuid7_str()      = {d['uuid.uuid4()  [stdlib]'] / d['idforge.uuid7_str() -> str']:.1f}x")
    print(f"str(uuid.uuid4()) / idforge.uuid7_str() = {d['str(uuid.uuid4())  [stdlib]'] / d['idforge.uuid7_str() -> str']:.1f}x")
    print(f"pure next_id / Snowflake.next (twitter) = {d['pure-Python Snowflake next_id(), twitter'] / d['Snowflake.next(), twitter']:.1f}x")
    print(f"pure next_id / Snowflake.next (wide)    = {d['pure-Python Snowflake next_id(), wide'] / d['Snowflake.next(), wide']:.1f}x")


if __name__ == "__main__":
    main()
