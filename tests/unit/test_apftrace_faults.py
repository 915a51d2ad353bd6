#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Tests of tools/apftrace's fault analyses: the fault latency per path
(--latency, table, JSON and PNG), the heat map (--heatmap) and the fault
list for a replay prefetcher (--extract-faults), on a trace made for them
(LATENCY below, with the page states and fault outcomes apfvisor writes).
Run from the repository root: python3 tests/unit/test_apftrace_faults.py
"""

import json
import random
import sys
import unittest

sys.dont_write_bytecode = True          # no __pycache__ in the tree
from apftrace_testlib import (  # noqa: E402
    ENUMS, HZ, NO_VCPU, ToolTest, apftrace, build_trace, descriptor_text,
    import_matplotlib, rec, run_main, sample_trace)

# A trace for --latency, --heatmap and --extract-faults, with the labels
# apfvisor writes (swap/page_state.h, swap/guest_memory.h guest_fault_result
# names, spaces as "_"). HZ is 1 MHz: a cycle is a microsecond.
REAL_ENUMS = dict(ENUMS, page_state={
    0: "untouched", 1: "resident", 2: "writeback", 3: "swapped",
    4: "swapin"}, fault_outcome={
    0: "resolved", 1: "outside_guest_RAM", 2: "no_free_host_frame",
    3: "page_already_mapped", 4: "internal_error",
    5: "waiting_for_swap_I/O", 6: "swap-in_started", 7: "swap_read_failed"})
UNTOUCHED, RESIDENT, SWAPPED, SWAPIN = 0, 1, 3, 4
RESOLVED, NO_FRAME, WAIT_IO, STARTED = 0, 2, 5, 6
HIGH = 0xABCDE000               # a page whose number has letters


def ept_exit(tsc, vcpu, cycles):
    """The vm_exit record of an EPT violation (stamped at the exit)."""
    return rec(tsc, "vm_exit", vcpu, vcpu, reason=48, qualification=0x181,
               rip=0x4000, cycles=cycles)


def fault(tsc, vcpu, gpa, state, outcome):
    return rec(tsc, "ept_violation", vcpu, vcpu, gpa=gpa, state=state,
               outcome=outcome)


LATENCY = [
    # vCPU 0 on host CPU 0. Zero fill: 40 cycles.
    fault(1010, 0, 0x1000, UNTOUCHED, RESOLVED),
    ept_exit(1000, 0, 40),
    # Zero fill after a wait for a frame, two tries in one exit: 300.
    fault(2005, 0, 0x2000, UNTOUCHED, NO_FRAME),
    fault(2250, 0, 0x2000, UNTOUCHED, RESOLVED),
    ept_exit(2000, 0, 300),
    # Already mapped (resident): no zero fill.
    fault(3010, 0, 0x3000, RESIDENT, RESOLVED),
    ept_exit(3000, 0, 20),
    # A CPUID exit: not an EPT violation.
    rec(3500, "vm_exit", 0, 0, reason=10, qualification=0, rip=0x4010,
        cycles=7),
    # A swap-in the vCPU waits for (no token): 4020 -> 8020 = 4000.
    fault(4010, 0, 0x5123, SWAPPED, STARTED),
    rec(4020, "try_async_get_page", 0, 0, gpa=0x5123, **{"async": 0}),
    fault(6500, 0, 0x7000, SWAPIN, WAIT_IO),    # vCPU 1's page, in flight
    fault(8990, 0, 0x5123, RESIDENT, RESOLVED),
    ept_exit(4000, 0, 5000),
    # A token never made ready.
    rec(9200, "async_pf_not_present", 0, 0, token=0x2, gpa=0xb000),
    # An ept_violation whose exit record is missing (lost).
    fault(9500, 0, 0x6000, UNTOUCHED, RESOLVED),
    # vCPU 1 on host CPU 1. Zero fill: 60, its exit overlapping vCPU 0's.
    fault(1020, 1, 0x9000, UNTOUCHED, RESOLVED),
    ept_exit(1005, 1, 60),
    # Inside vCPU 0's exit at 2000 but in no exit of vCPU 1: unpaired.
    fault(2100, 1, 0xa000, UNTOUCHED, RESOLVED),
    # An async swap-in: token 0x1001 from 6012 to 7512 = 1500.
    fault(6005, 1, 0x7000, SWAPPED, STARTED),
    rec(6010, "try_async_get_page", 1, 1, gpa=0x7000, **{"async": 1}),
    rec(6012, "async_pf_not_present", 1, 1, token=0x1001, gpa=0x7000),
    ept_exit(6000, 1, 30),
    rec(7512, "async_pf_ready", 1, 1, token=0x1001, gpa=0x7000),
    # Page 5 again, evicted meanwhile: waited 10010 -> 12010 = 2000 (the
    # next swap_in_done of the page, not the one at 8020).
    fault(10005, 1, 0x5000, SWAPPED, STARTED),
    rec(10010, "try_async_get_page", 1, 1, gpa=0x5000, **{"async": 0}),
    ept_exit(10000, 1, 2100),
    # A wait whose swap_in_done is not in the trace.
    fault(13005, 1, HIGH, SWAPIN, WAIT_IO),
    rec(13010, "try_async_get_page", 1, 1, gpa=HIGH, **{"async": 0}),
    ept_exit(13000, 1, 50),
    # A store over the whole page on the disk: mapped in one try, 90.
    fault(14005, 1, 0xc000, SWAPPED, RESOLVED),
    ept_exit(14000, 1, 90),
    # The service CPU.
    rec(2500, "swap_out_submit", 2, NO_VCPU, gpa=0x40000000, slot=5),
    rec(4030, "swap_in_submit", 2, NO_VCPU, gpa=0x5000, slot=1),
    rec(6015, "swap_in_submit", 2, NO_VCPU, gpa=0x7000, slot=2),
    rec(7015, "swap_in_done", 2, NO_VCPU, gpa=0x7000, slot=2, ok=1,
        latency=1000),
    rec(8020, "swap_in_done", 2, NO_VCPU, gpa=0x5000, slot=1, ok=1,
        latency=3990),
    rec(9800, "swap_out_submit", 2, NO_VCPU, gpa=0x5000, slot=1),
    rec(10008, "swap_in_submit", 2, NO_VCPU, gpa=0x5000, slot=1),
    rec(12010, "swap_in_done", 2, NO_VCPU, gpa=0x5000, slot=1, ok=1,
        latency=1990),
]


def latency_trace(enums=REAL_ENUMS, **kw):
    return build_trace(LATENCY, desc=descriptor_text(enums=enums), **kw)


class LatencyTest(ToolTest):
    def report(self, data=None):
        out = self.decode_ok(latency_trace() if data is None else data,
                             "--latency", "--json")
        return json.loads(out)

    def test_paths(self):
        r = self.report()
        self.assertEqual((r["tsc_hz"], r["unit"]), (HZ, "us"))
        self.assertEqual(list(r["paths"]), [
            "zero fill", "whole-page store", "disk read, waited",
            "async PF: token to page-ready", "swap-in device"])
        want = {
            # 40, 60, 300 (the exit with the frame wait).
            "zero fill": (3, 60, 300, 300, 300),
            "whole-page store": (1, 90, 90, 90, 90),
            # 4000 (gpa 0x5123, page 0x5000) and 2000.
            "disk read, waited": (2, 2000, 4000, 4000, 4000),
            "async PF: token to page-ready": (1, 1500, 1500, 1500, 1500),
            "swap-in device": (3, 1990, 3990, 3990, 3990),
        }
        for path, (n, p50, p90, p99, top) in want.items():
            with self.subTest(path=path):
                s = r["paths"][path]
                self.assertEqual((s["count"], s["p50"], s["p90"], s["p99"],
                                  s["max"]), (n, p50, p90, p99, top))
                self.assertEqual(s["cycles"], {"p50": p50, "p90": p90,
                                               "p99": p99, "max": top})
        self.assertEqual(r["paths"]["zero fill"]["histogram"],
                         [[32, 2], [256, 1]])
        self.assertEqual(r["paths"]["swap-in device"]["histogram"],
                         [[512, 1], [1024, 1], [2048, 1]])
        self.assertEqual(r["not_in_trace"], ["prefetch hit"])

    def test_unpaired(self):
        self.assertEqual(list(self.report()["unmatched"].values()),
                         [2, 1, 1])

    def test_microseconds_from_the_tsc_hz(self):
        # At 2 GHz, 60 cycles are 0.03 us, all zero fills below 1 us.
        s = self.report(latency_trace(tsc_hz=2000000000))["paths"]
        self.assertAlmostEqual(s["zero fill"]["p50"], 0.03)
        self.assertEqual(s["zero fill"]["cycles"]["p50"], 60)
        self.assertEqual(s["zero fill"]["histogram"], [[0, 3]])
        self.assertAlmostEqual(s["disk read, waited"]["max"], 2.0)
        # 2000 cycles: 1 us, bucket [1, 2); 4000: 2 us, bucket [2, 4).
        self.assertEqual(s["disk read, waited"]["histogram"],
                         [[1, 1], [2, 1]])

    def test_numbers_when_the_enums_have_no_labels(self):
        bare = {k: v for k, v in REAL_ENUMS.items()
                if k not in ("page_state", "fault_outcome", "exit_reason")}
        s = self.report(latency_trace(enums=bare))["paths"]
        self.assertEqual(s["zero fill"]["count"], 3)
        self.assertEqual(s["zero fill"]["max"], 300)

    def test_no_zero_fill_by_another_label(self):
        # The sample's page_state says 0 is "absent": not untouched.
        s = self.report(sample_trace())["paths"]
        self.assertEqual(s["zero fill"], {"count": 0})
        self.assertEqual(s["async PF: token to page-ready"]["p90"], 3800)

    def test_table(self):
        out = self.decode_ok(latency_trace(), "--latency")
        self.assertIn("TSC 1000000 Hz", out)
        self.assertRegex(out, r"\n  zero fill +3 +60\.000 +300\.000 "
                         r"+300\.000 +300\.000\n")
        self.assertRegex(out, r"\n  disk read, waited +2 +2000\.000 "
                         r"+4000\.000 +4000\.000 +4000\.000\n")
        self.assertRegex(out, r"\n  async PF: token to page-ready +1 "
                         r"+1500\.000 ")
        self.assertRegex(out, r"\n  swap-in device +3 +1990\.000 ")
        self.assertIn("prefetch hit", out)
        self.assertIn("\nnot counted:\n  2 ept_violation outside an "
                      "EPT-violation exit\n  1 waited try_async_get_page "
                      "without a later swap_in_done\n  1 async_pf_not_present"
                      " without async_pf_ready\n", out)

    def test_empty_trace(self):
        out = self.decode_ok(build_trace([]), "--latency")
        self.assertRegex(out, r"\n  zero fill +0 +- +- +- +-\n")

    def test_png(self):
        import_matplotlib()
        p = self.write("t.trace", latency_trace())
        png = self.path("lat.png")
        code, out, err = run_main(["--latency", p, png])
        self.assertEqual((code, err), (0, ""))
        self.assertIn("zero fill", out)
        self.assert_png(png)


class HeatmapTest(ToolTest):
    def test_points(self):
        t = apftrace.TraceFile(latency_trace())
        pts = apftrace.heatmap_points(t)
        # ms since the first record (TSC 1000) at 1 MHz.
        self.assertEqual([round(ms, 3) for ms, _ in pts["faults"]],
                         [0.01, 0.02, 1.005, 1.1, 1.25, 2.01, 3.01, 5.005,
                          5.5, 7.99, 8.5, 9.005, 12.005, 13.005])
        self.assertEqual(pts["faults"][-2][1], HIGH)
        self.assertEqual(pts["evictions"], [(1.5, 0x40000000),
                                            (8.8, 0x5000)])
        self.assertEqual([g for _, g in pts["swap-ins"]],
                         [0x5000, 0x7000, 0x5000])
        win = apftrace.heatmap_points(t, (5.0, 10.0))
        self.assertEqual([len(v) for v in win.values()], [5, 1, 2])

    def test_png(self):
        import_matplotlib()
        p = self.write("t.trace", latency_trace())
        png = self.path("heat.png")
        code, out, err = run_main(["--heatmap", p, png])
        self.assertEqual((code, err), (0, ""))
        self.assertEqual(out, "heatmap: 14 faults, 2 evictions, 3 swap-ins "
                         "into %s\n" % png)
        self.assert_png(png)

    def test_png_of_a_window_and_of_nothing(self):
        import_matplotlib()
        p = self.write("t.trace", latency_trace())
        png = self.path("w.png")
        code, out, err = run_main(["--heatmap", "--window", "5", "10", p,
                                   png])
        self.assertEqual((code, err), (0, ""))
        self.assertIn("5 faults, 1 evictions, 2 swap-ins", out)
        p = self.write("e.trace", build_trace([]))
        code, out, err = run_main(["--heatmap", p, png])
        self.assertEqual((code, err), (0, ""))
        self.assertIn("0 faults, 0 evictions, 0 swap-ins", out)


class ExtractFaultsTest(ToolTest):
    def extract(self, data):
        p = self.write("t.trace", data)
        out_path = self.path("faults.txt")
        code, out, err = run_main(["--extract-faults", p, out_path])
        self.assertEqual((code, err), (0, ""))
        with open(out_path) as f:
            return out, f.read(), out_path

    def test_first_fault_order_each_page_once(self):
        out, text, path = self.extract(latency_trace())
        # Page 5 (gpa 0x5123), 7, 5 again, 7 in flight, HIGH in flight;
        # not page 0xc, which a whole-page store took without a read.
        self.assertEqual(text, "apfvisor-faults 1\n5\n7\nabcde\n")
        self.assertEqual(out, "3 pages (of 5 swap-in faults) written to "
                         "%s\n" % path)

    def test_sample_and_empty(self):
        self.assertEqual(self.extract(sample_trace())[1],
                         "apfvisor-faults 1\n12345\n")
        out, text, _ = self.extract(build_trace([]))
        self.assertEqual(text, "apfvisor-faults 1\n")
        self.assertTrue(out.startswith("0 pages (of 0 swap-in faults)"))

    def test_unwritable(self):
        p = self.write("t.trace", latency_trace())
        self.assert_one_error(["--extract-faults", p,
                               self.path("no/such/dir/f.txt")],
                              "cannot write")

    def test_mutations(self):
        """The new modes on 600 mutated traces: exit 0, or 1 with one error
        line; never an exception."""
        modes = (["--latency"], ["--latency", "--json"],
                 ["--extract-faults", None, self.path("m.txt")])
        outcomes = self.mutate(latency_trace(), modes, 600,
                               random.Random(28))
        self.assertGreater(outcomes[0], 0)
        self.assertGreater(outcomes[1], 0)


if __name__ == "__main__":
    unittest.main()
