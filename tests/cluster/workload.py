"""What runs inside a host's namespace during the cluster test, recording every answer.

  workload.py client PORT OUT STOP_FILE COUNT    asks `idforge serve` on 127.0.0.1:PORT
  workload.py leaser STORE OUT STOP_FILE COUNT   leases from STORE with the Python package

Both loop until STOP_FILE exists (and for at most 30 minutes), and write one line per
answer to OUT, times in Unix ms of the real clock (a client never runs under libfaketime):

  I T0 T1 ID...     IDs acknowledged by a call sent at T0 and answered at T1
  F T0 T1 WHY       a call that issued nothing (HTTP status, 0 for no answer, or an error)
  R T STATUS        a /readyz answer (client only, every 100 ms)

The file is flushed every 50 lines and at the end, so a killed workload loses at most the
lines since (the checker only needs what was written).
"""

import http.client
import os
import sys
import time

PACE_S = 0.004        # between calls: leaves CPU to the servers and etcd on 2 cores
READY_EVERY_S = 0.1
LONGEST_S = 1800
CALL_TIMEOUT_S = 2.0  # a paused server answers nothing: the call fails after this


def now_ms():
    return time.time_ns() / 1e6


class Recorder:
    def __init__(self, path):
        self.f = open(path, "a", buffering=1 << 16)
        self.lines = 0

    def write(self, line):
        self.f.write(line + "\n")
        self.lines += 1
        if self.lines % 50 == 0:
            self.f.flush()

    def close(self):
        self.f.flush()
        self.f.close()


def client(port, out, stop_file, count):
    rec = Recorder(out)
    conn = None
    last_ready = 0.0
    end = time.time() + LONGEST_S
    while not os.path.exists(stop_file) and time.time() < end:
        for path in (["/readyz"] if now_ms() - last_ready >= READY_EVERY_S * 1000 else []) + [
                f"/v1/ids/snowflake?count={count}"]:
            t0 = now_ms()
            status, body = 0, b""
            try:
                if conn is None:
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=CALL_TIMEOUT_S)
                conn.request("GET", path, headers={"Accept": "text/plain"})
                r = conn.getresponse()
                status, body = r.status, r.read()
            except (OSError, http.client.HTTPException):
                if conn is not None:
                    conn.close()
                conn = None
            t1 = now_ms()
            if path == "/readyz":
                last_ready = t0
                rec.write(f"R {t0:.3f} {status}")
            elif status == 200:
                rec.write(f"I {t0:.3f} {t1:.3f} {body.decode().replace(chr(10), ' ').strip()}")
            else:
                rec.write(f"F {t0:.3f} {t1:.3f} {status}")
        time.sleep(PACE_S if status == 200 else 0.01)
    rec.close()


def leaser(store, out, stop_file, count):
    import idforge  # the package under test, from PYTHONPATH

    rec = Recorder(out)
    gen = None
    end = time.time() + LONGEST_S
    while not os.path.exists(stop_file) and time.time() < end:
        t0 = now_ms()
        try:
            if gen is None:
                gen = idforge.Snowflake("twitter", lease_store=store)
            ids = gen.next_batch(count)
            rec.write(f"I {t0:.3f} {now_ms():.3f} {' '.join(map(str, ids))}")
            time.sleep(PACE_S)
        except Exception as e:  # noqa: BLE001 - every refusal is recorded, none ends the run
            why = type(e).__name__ + ":" + str(e).split(":")[0].replace(" ", "_")[:60]
            rec.write(f"F {t0:.3f} {now_ms():.3f} {why}")
            time.sleep(0.01)
    if gen is not None:
        gen.close()
    rec.close()


if __name__ == "__main__":
    kind, target, out, stop, count = sys.argv[1:6]
    if kind == "client":
        client(int(target), out, stop, int(count))
    elif kind == "leaser":
        leaser(target, out, stop, int(count))
    else:
        raise SystemExit(__doc__)
