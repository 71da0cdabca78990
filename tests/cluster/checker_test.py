"""The cluster checker on histories written by hand: each check finds what it must."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import checker  # noqa: E402

L = checker.Layout()


def sid(unix_ms, node, seq):
    return ((unix_ms - L.epoch_ms) << 22) | (node << 12) | seq


T = 1_800_000_000_000  # a Unix ms in 2027


def calls(node, start, n, every=5, per=2, seq_base=0):
    """n answered calls every `every` ms from start, each with per IDs on node."""
    out = []
    for k in range(n):
        t = start + k * every
        ids = " ".join(str(sid(t, node, seq_base + j)) for j in range(per))
        out.append(f"I {t:.3f} {t + 1:.3f} {ids}")
    return out


class CheckerTest(unittest.TestCase):
    def test_a_clean_history_holds(self):
        r = checker.check({"a": calls(1, T, 100), "b": calls(2, T, 100)}, [], T, T + 500, 2)
        self.assertTrue(r["ok"])
        self.assertEqual(r["ids"], 400)
        self.assertEqual(r["duplicates"], 0)

    def test_the_same_id_from_two_sources_is_a_duplicate(self):
        r = checker.check({"a": calls(1, T, 10), "b": calls(1, T + 45, 10)}, [], T, T + 100, 2)
        self.assertEqual(r["duplicates"], 2)  # the call at T+45 of each: the same two IDs
        self.assertFalse(r["ok"])

    def test_an_id_below_the_last_one_on_a_node_is_an_order_violation(self):
        lines = calls(1, T + 100, 2) + calls(1, T, 1)
        r = checker.check({"a": lines}, [], T, T + 200, 1)
        self.assertEqual(r["order_violations"], 1)  # the first ID of the late call
        self.assertFalse(r["ok"])

    def test_two_holders_of_one_node_at_once_overlap(self):
        # b issues higher IDs on node 3 while a still issues lower ones: no duplicate, but a
        # later holder answered before the earlier one's last call was even made.
        a = calls(3, T, 20)                       # T .. T+95, IDs in ms T..T+95
        b = calls(3, T + 200, 20)                 # IDs above a's ...
        b = [ln.replace(f"I {T + 200:.3f} {T + 201:.3f}", f"I {T + 10:.3f} {T + 11:.3f}")
             for ln in b]                         # ... but answered at T+11
        r = checker.check({"a": a, "b": b}, [], T, T + 400, 1)
        self.assertEqual(r["duplicates"], 0)
        self.assertEqual(r["handover_overlaps"], 1)
        self.assertFalse(r["ok"])

    def test_a_clean_handover_is_counted_with_its_gap(self):
        r = checker.check({"a": calls(3, T, 20), "b": calls(3, T + 1000, 20)}, [], T,
                          T + 1200, 1)
        self.assertEqual(r["handover_overlaps"], 0)
        self.assertEqual(len(r["handovers"]), 1)
        self.assertAlmostEqual(r["handovers"][0]["gap_s"], 0.905, places=3)

    def test_down_time_recovery_and_darkness_per_fault(self):
        # a: answers until T+1000, nothing until T+3000, then again; b: down T+1500..T+2500.
        a = calls(1, T, 200) + calls(1, T + 3000, 200)
        b = calls(2, T, 300) + calls(2, T + 2500, 300)
        fault = {"kind": "host-cut-long", "targets": ["a"], "start": T + 1000, "end": T + 2000}
        r = checker.check({"a": a, "b": b}, [fault], T, T + 4000, 2)
        row = r["faults"][0]
        self.assertAlmostEqual(row["down_s"]["a"], 2.006, places=2)
        self.assertAlmostEqual(row["recovery_s"]["a"], 1.001, places=2)
        self.assertAlmostEqual(row["dark_s"], 1.0, delta=0.02)  # both down T+1500..T+2500
        self.assertTrue(r["ok"])

    def test_a_holder_that_never_comes_back_fails_unless_it_is_a_spare(self):
        a = calls(1, T, 200)  # stops at T+1000 for good
        b = calls(2, T, 800)
        fault = {"kind": "host-cut-long", "targets": ["a"], "start": T + 900, "end": T + 1500}
        r = checker.check({"a": a, "b": b}, [fault], T, T + 4000, 2)
        self.assertEqual(r["never_back"], ["a"])
        self.assertFalse(r["ok"])
        # With one node ID and b serving it to the end, a is the spare.
        r = checker.check({"a": a, "b": b}, [fault], T, T + 4000, 1)
        self.assertTrue(r["ok"])

    def test_a_node_id_taken_over_by_a_spare_is_out_only_until_the_spare_issues(self):
        # a holds node 4 until T+1000 and never again; spare b issues from it from T+4000.
        a = calls(4, T, 200)
        b = calls(4, T + 4000, 100)
        fault = {"kind": "host-cut-long", "targets": ["a"], "nodes": [4], "start": T + 900,
                 "end": T + 2000}
        r = checker.check({"a": a, "b": b}, [fault], T, T + 4500, 1)
        row = r["faults"][0]
        self.assertAlmostEqual(row["node_down_s"]["4"], 3.004, places=2)
        self.assertAlmostEqual(row["node_back_s"]["4"], 3.1, places=2)
        self.assertEqual(row["holders"], ["a"])  # b issued nothing in the second before
        self.assertTrue(r["ok"])  # a is the spare now, and the one node ID is in service

    def test_readiness_that_disagrees_with_issuing_is_counted(self):
        lines = calls(1, T, 10) + [f"R {T + 52:.3f} 200", f"F {T + 53:.3f} {T + 54:.3f} 503",
                                   f"R {T + 60:.3f} 503"] + calls(1, T + 61, 1, per=1, seq_base=9)
        r = checker.check({"a": lines}, [], T, T + 100, 1)
        self.assertEqual(r["ready_but_failing"], 1)
        self.assertEqual(r["issuing_but_not_ready"], 1)

    def test_a_cut_off_last_line_is_skipped(self):
        lines = calls(1, T, 3) + ["I 17"]
        issued, failed, ready = checker.parse(lines)
        self.assertEqual(len(issued), 3)

    def test_the_summary_has_one_row_per_fault_kind(self):
        a = calls(1, T, 800)
        faults = [{"kind": "x", "targets": ["a"], "start": T + 100, "end": T + 200},
                  {"kind": "x", "targets": ["a"], "start": T + 1000, "end": T + 1200},
                  {"kind": "y", "targets": [], "start": T + 2000, "end": T + 2100}]
        rows = checker.summary(checker.check({"a": a}, faults, T, T + 4000, 1))
        self.assertEqual([(r["kind"], r["n"]) for r in rows], [("x", 2), ("y", 1)])
        self.assertIn("| x | 2 |", checker.markdown(
            checker.check({"a": a}, faults, T, T + 4000, 1), "t"))


if __name__ == "__main__":
    unittest.main()
