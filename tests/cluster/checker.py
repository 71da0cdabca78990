"""The cluster test's checker: reads what every workload recorded (workload.py's lines) and
the nemesis's fault log, and says what held.

Safety (any non-zero count fails the run):
  duplicates          an ID acknowledged twice, by any sources
  order_violations    one source acknowledged, on one node, an ID not above its last one
  handover_overlaps   two sources held one node at once: sort a node's IDs by value, cut
                      them into runs by source; for two consecutive runs, the later run's
                      first ID was answered before the earlier run's last ID was even asked
                      for (so the earlier holder issued after the later one had begun)

Availability (reported; the run fails only where a holder never issues again):
  per fault window [start, next fault's start): for each holder (a source that issued in
  the second before the fault; a spare with no node ID is none), the seconds it could not
  issue (gaps between answered calls longer than GAP_MS), its recovery (first answer after
  the fault ended, where it was down then), and the seconds no source could issue at all;
  for a fault on one holder, how long its node ID was out of service (whoever issues from
  it: a spare takes over a lost lease) and when it was back.
Readiness: /readyz 200 while the nearest ID call failed (ready_but_failing), and /readyz not
200 while it succeeded (issuing_but_not_ready).
"""

import bisect
import statistics

GAP_MS = 100.0  # answered calls further apart than this count as a gap (the pace is ~5 ms)


class Layout:
    """The Snowflake layout the run uses (twitter: 41 time bits, 10 node bits, 12 sequence)."""

    def __init__(self, node_shift=12, node_bits=10, time_shift=22, epoch_ms=1288834974657):
        self.node_shift, self.node_bits = node_shift, node_bits
        self.time_shift, self.epoch_ms = time_shift, epoch_ms

    def node(self, i):
        return (i >> self.node_shift) & ((1 << self.node_bits) - 1)

    def unix_ms(self, i):
        return (i >> self.time_shift) + self.epoch_ms


def parse(lines):
    """workload.py's lines -> (issued: [(t0, t1, [ids])], failed: [(t0, t1, why)],
    ready: [(t, status)]). A cut-off last line (a killed workload) is skipped."""
    issued, failed, ready = [], [], []
    for line in lines:
        p = line.split()
        try:
            if p[0] == "I" and len(p) >= 4:
                issued.append((float(p[1]), float(p[2]), [int(x) for x in p[3:]]))
            elif p[0] == "F" and len(p) >= 4:
                failed.append((float(p[1]), float(p[2]), p[3]))
            elif p[0] == "R" and len(p) == 3:
                ready.append((float(p[1]), int(p[2])))
        except (ValueError, IndexError):
            continue
    return issued, failed, ready


def down_intervals(issued, begin, end):
    """Intervals in [begin, end] with no answered call for longer than GAP_MS."""
    times = sorted(t1 for _, t1, _ in issued if begin <= t1 <= end)
    out, prev = [], begin
    for t in times + [end]:
        if t - prev > GAP_MS:
            out.append((prev, t))
        prev = t
    return out


def overlap(intervals, a, b):
    return sum(max(0.0, min(y, b) - max(x, a)) for x, y in intervals)


def intersect(lists):
    """Intersection of several sorted interval lists."""
    if not lists:
        return []
    cur = lists[0]
    for other in lists[1:]:
        nxt, i, j = [], 0, 0
        while i < len(cur) and j < len(other):
            a, b = max(cur[i][0], other[j][0]), min(cur[i][1], other[j][1])
            if a < b:
                nxt.append((a, b))
            if cur[i][1] < other[j][1]:
                i += 1
            else:
                j += 1
        cur = nxt
    return cur


def check(sources, faults, begin, end, nodes, layout=None, skews=None):
    """sources: {name: lines}; faults: [{kind, targets, start, end, ...}] in ms, sorted;
    begin/end: the measured span; nodes: how many node IDs the store has (holders beyond
    that are spares, which may end the run without one). Returns a dict (see the module's
    doc)."""
    layout = layout or Layout()
    skews = skews or {}
    parsed = {name: parse(lines) for name, lines in sources.items()}
    report = {"sources": {}, "faults": [], "handovers": []}

    # Safety.
    seen = {}
    duplicates, examples = 0, []
    order_violations = 0
    per_node = {}  # node -> [(id, source, t0, t1)]
    for name, (issued, _, _) in parsed.items():
        last_on_node = {}
        for t0, t1, ids in issued:
            for i in ids:
                if i in seen:
                    duplicates += 1
                    if len(examples) < 5:
                        examples.append({"id": i, "first": seen[i], "again": name})
                else:
                    seen[i] = name
                n = layout.node(i)
                if n in last_on_node and i <= last_on_node[n]:
                    order_violations += 1
                last_on_node[n] = i
                per_node.setdefault(n, []).append((i, name, t0, t1))
        report["sources"][name] = {"ids": sum(len(x[2]) for x in issued),
                                   "calls_failed": len(parsed[name][1])}
    overlaps = 0
    for n, rows in sorted(per_node.items()):
        rows.sort()
        runs = []  # [source, first row, last row]
        for row in rows:
            if runs and runs[-1][0] == row[1]:
                runs[-1][2] = row
            else:
                runs.append([row[1], row, row])
        for a, b in zip(runs, runs[1:]):
            a_last_sent, a_last_answered = a[2][2], a[2][3]
            b_first_sent, b_first_answered = b[1][2], b[1][3]
            bad = b_first_answered < a_last_sent
            overlaps += bad
            report["handovers"].append({
                "node": n, "from": a[0], "to": b[0], "overlap": bad,
                "from_skew_s": skews.get(a[0], 0), "to_skew_s": skews.get(b[0], 0),
                "gap_s": round((b_first_answered - a_last_answered) / 1000, 3),
                "at": round((a_last_answered - begin) / 1000, 3)})
    report.update(ids=len(seen) + duplicates, duplicates=duplicates,
                  duplicate_examples=examples, order_violations=order_violations,
                  handover_overlaps=overlaps)

    # Availability, per fault window.
    down = {name: down_intervals(p[0], begin, end) for name, p in parsed.items()}
    dark = intersect([down[name] for name in parsed])
    node_down = {n: down_intervals([(0, r[3], None) for r in rows], begin, end)
                 for n, rows in per_node.items()}
    never_back = []
    for k, f in enumerate(faults):
        w_end = faults[k + 1]["start"] if k + 1 < len(faults) else end
        row = {"kind": f["kind"], "targets": f.get("targets", []),
               "start_s": round((f["start"] - begin) / 1000, 3),
               "length_s": round((f["end"] - f["start"]) / 1000, 3),
               "down_s": {}, "recovery_s": {},
               "dark_s": round(overlap(dark, f["start"], w_end) / 1000, 3)}
        # Holders: the sources that issued in the second before the fault (a spare, with no
        # node ID to issue from, is not one).
        holders = [name for name, p in parsed.items()
                   if any(f["start"] - 1000 <= t1 <= f["start"] for _, t1, _ in p[0])]
        row["holders"] = holders
        for name in holders:
            row["down_s"][name] = round(overlap(down[name], f["start"], w_end) / 1000, 3)
            # Recovery: down when the fault ended -> the first answer after it.
            gap = [g for g in down[name] if g[0] <= f["end"] < g[1]]
            if gap:
                if gap[0][1] >= end:
                    row["recovery_s"][name] = None
                    never_back.append(name)
                else:
                    row["recovery_s"][name] = round((gap[0][1] - f["end"]) / 1000, 3)
            else:
                row["recovery_s"][name] = 0.0
        for n in f.get("nodes", []):
            # The target's node ID, whoever issues from it: how long it was out of service in
            # the window, and when it was back after its first outage (0: never out).
            gaps = node_down.get(n, [(begin, end)])
            row.setdefault("node_down_s", {})[str(n)] = round(
                overlap(gaps, f["start"], w_end) / 1000, 3)
            first = [g for g in gaps if g[1] > f["start"] and g[0] < w_end]
            back = 0.0 if not first else (None if first[0][1] >= end else
                                          round((first[0][1] - f["start"]) / 1000, 3))
            row.setdefault("node_back_s", {})[str(n)] = back
        report["faults"].append(row)
    # A source that never issued again is a failure unless it is a spare: every node ID of
    # the store was in service, held by others, over the run's last seconds.
    tail = {n for n, rows in per_node.items() if any(r[3] >= end - 3000 for r in rows)}
    never_back = sorted(set(never_back))
    spares_ok = len(tail) >= nodes and len(never_back) <= max(0, len(parsed) - nodes)
    report["never_back"] = never_back
    report["nodes_in_service_at_end"] = len(tail)

    # Readiness against issuing.
    rbf = inr = 0
    for name, (issued, failed, ready) in parsed.items():
        calls = sorted([(t0, t1, True) for t0, t1, _ in issued] +
                       [(t0, t1, False) for t0, t1, _ in failed])
        starts = [c[0] for c in calls]
        for t, status in ready:
            j = bisect.bisect_left(starts, t)
            if j >= len(calls):
                continue
            ok = calls[j][2]  # the ID call made right after this /readyz
            if status == 200 and not ok:
                rbf += 1
            elif status != 200 and ok:
                inr += 1
    report.update(ready_but_failing=rbf, issuing_but_not_ready=inr,
                  dark_s=round(sum(b - a for a, b in dark) / 1000, 3))
    report["ok"] = duplicates == 0 and order_violations == 0 and overlaps == 0 and (
        not never_back or spares_ok)
    return report


def summary(report):
    """One row per fault kind: counts and the worst and median figures."""
    kinds = {}
    for f in report["faults"]:
        kinds.setdefault(f["kind"], []).append(f)
    rows = []
    for kind, fs in kinds.items():
        target_down = [f["down_s"][t] for f in fs for t in f["targets"] if t in f["down_s"]]
        other_down = [v for f in fs for n, v in f["down_s"].items() if n not in f["targets"]]
        rec = [v for f in fs for t, v in f["recovery_s"].items() if t in f["targets"]]
        node_back = [v for f in fs for v in f.get("node_back_s", {}).values()]
        node_down = [v for f in fs for v in f.get("node_down_s", {}).values()]
        rows.append({
            "kind": kind, "n": len(fs),
            "target_down_med": statistics.median(target_down) if target_down else None,
            "target_down_max": max(target_down) if target_down else None,
            "others_down_max": max(other_down) if other_down else None,
            "dark_max": max(f["dark_s"] for f in fs),
            "recovery_max": (None if any(r is None for r in rec) else max(rec)) if rec else None,
            "node_down_max": max(node_down) if node_down else None,
            "node_back_max": (None if any(v is None for v in node_back) else max(node_back))
            if node_back else None})
    return rows


def markdown(report, title):
    def fmt(v):
        return "—" if v is None else f"{v:.2f}"
    out = [f"**{title}**: {report['ids']:,} IDs acknowledged, {report['duplicates']} duplicates, "
           f"{report['order_violations']} order violations, {len(report['handovers'])} node "
           f"handovers with {report['handover_overlaps']} overlaps; "
           f"ready-but-failing samples {report['ready_but_failing']}, issuing-but-not-ready "
           f"{report['issuing_but_not_ready']}; whole cluster dark {report['dark_s']:.2f} s.",
           "",
           "| fault | n | target down s (median / max) | others down s (max) | all dark s (max) "
           "| target recovery s (max) | its node ID out s (max) | node back s (max) |",
           "|---|---|---|---|---|---|---|---|"]
    for r in summary(report):
        out.append(f"| {r['kind']} | {r['n']} | {fmt(r['target_down_med'])} / "
                   f"{fmt(r['target_down_max'])} | {fmt(r['others_down_max'])} | "
                   f"{fmt(r['dark_max'])} | {fmt(r['recovery_max'])} | {fmt(r['node_down_max'])} | "
                   f"{fmt(r['node_back_max'])} |")
    groups = {}
    for h in report["handovers"]:
        groups.setdefault((h["from_skew_s"], h["to_skew_s"]), []).append(h["gap_s"])
    if groups:
        out += ["", "| handover: clock of the holder → of the taker | n | gap s (median / max) |",
                "|---|---|---|"]
        for (a, b), gaps in sorted(groups.items()):
            out.append(f"| {a:+d} s → {b:+d} s | {len(gaps)} | "
                       f"{statistics.median(gaps):.2f} / {max(gaps):.2f} |")
    return "\n".join(out)
