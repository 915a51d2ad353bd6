#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Tests of tools/apftrace's views of a whole trace: --summary (text and
JSON), the Chrome trace-event JSON (--chrome) and the timeline picture
(--plot), on the sample trace of apftrace_testlib.py. Run from the
repository root: python3 tests/unit/test_apftrace_outputs.py
"""

import json
import os
import subprocess
import sys
import unittest

sys.dont_write_bytecode = True          # no __pycache__ in the tree
from apftrace_testlib import (  # noqa: E402
    HZ, SAMPLE, TOOL, ToolTest, build_trace, import_matplotlib, raw_rec,
    rec, run_main, sample_trace)


class SummaryTest(ToolTest):
    def summary(self, data=None):
        out = self.decode_ok(sample_trace() if data is None else data,
                             "--summary", "--json")
        return json.loads(out)

    def test_exits(self):
        s = self.summary()
        self.assertEqual(s["exits"]["cpuid"],
                         {"count": 4, "min": 100, "median": 200, "max": 400})
        self.assertEqual(s["exits"]["hlt"],
                         {"count": 1, "min": 2000, "median": 2000,
                          "max": 2000})
        self.assertEqual(s["exits"]["io"]["count"], 1)
        self.assertEqual(s["exits"]["ept_violation"]["median"], 700)
        # The hypervisor's exit.<label> counters agree.
        for label, e in s["exits"].items():
            self.assertEqual(e["count"], s["counters"]["exit." + label])

    def test_tokens_with_reuse(self):
        t = self.summary()["tokens"]
        # vCPU 0 token 5: 1200 -> 5000 and, reused, 6000 -> 9000; vCPU 1
        # token 5: 3000 -> 4000; vCPU 0 token 9 never ready.
        self.assertEqual(t["count"], 3)
        self.assertEqual((t["min"], t["median"], t["p90"], t["max"]),
                         (1000, 3000, 3800, 3800))
        self.assertEqual(t["unmatched"], 1)
        self.assertEqual(t["unmatched_not_present"], 1)
        self.assertAlmostEqual(t["us"]["median"], 3000.0)

    def test_lone_ready(self):
        t = self.summary(build_trace([
            rec(10, "async_pf_ready", 0, 0, token=1, gpa=0),
            rec(20, "async_pf_not_present", 0, 0, token=1, gpa=0),
            rec(70, "async_pf_ready", 0, 0, token=1, gpa=0),
        ]))["tokens"]
        self.assertEqual((t["count"], t["min"], t["unmatched"],
                          t["unmatched_ready"]), (1, 50, 1, 1))

    def test_events_swaps_counters_header(self):
        s = self.summary()
        self.assertEqual(s["events"]["vm_exit"], 7)
        self.assertEqual(s["events"]["async_pf_not_present"], 4)
        self.assertEqual(s["events"]["async_pf_ready"], 3)
        self.assertEqual(sum(s["events"].values()), len(SAMPLE))
        self.assertEqual(s["swap_in"], {"count": 2, "min": 2800,
                                        "median": 2800, "max": 3500})
        self.assertEqual(s["swap_out"], {"count": 2, "min": 1000,
                                         "median": 1000, "max": 1100})
        self.assertEqual(s["counters"]["swap.in"], 2)
        self.assertEqual(s["header"]["tsc_hz"], HZ)
        self.assertEqual(s["header"]["format"], "1.0")
        self.assertEqual(s["header"]["records_kept"], len(SAMPLE))

    def test_text_summary(self):
        out = self.decode_ok(sample_trace(), "--summary")
        self.assertRegex(out, r"\n  cpuid +4 +100 +200 +400\n")
        self.assertIn("3 matched, 1 unmatched", out)
        self.assertIn("p90 3800", out)
        self.assertIn("  exit.cpuid 4\n", out)
        self.assertIn("swap-in latency (cycles):  count 2, min 2800", out)


class ChromeTest(ToolTest):
    def chrome(self, data=None):
        out = self.decode_ok(sample_trace() if data is None else data,
                             "--chrome")
        return json.loads(out)

    def test_structure(self):
        c = self.chrome()
        self.assertEqual(c["displayTimeUnit"], "ns")
        self.assertEqual(c["metadata"]["counters"]["exit.cpuid"], 4)
        ev = c["traceEvents"]
        names = {(e["pid"], e["args"]["name"]) for e in ev
                 if e["ph"] == "M" and e["name"].endswith("_name")}
        for want in ((1, "vCPUs"), (1, "vCPU 0"), (1, "vCPU 1"),
                     (2, "service CPU"), (2, "paging daemon"),
                     (3, "swap I/O"), (3, "swap-in"), (3, "swap-out")):
            self.assertIn(want, names)
        for e in ev:
            self.assertIn("ph", e)
            if e["ph"] != "M":
                self.assertIsInstance(e["ts"], float)

    def test_exit_slices(self):
        ev = self.chrome()["traceEvents"]
        exits = [e for e in ev if e["ph"] == "X" and e.get("cat") == "exit"]
        self.assertEqual(len(exits), 7)
        hlt = [e for e in exits if e["name"] == "hlt"][0]
        self.assertEqual((hlt["ts"], hlt["dur"]), (2000.0, 2000.0))
        self.assertEqual(hlt["args"]["rip"], "0x1000")
        halted = [e for e in ev if e["name"] == "halted"]
        self.assertEqual(len(halted), 1)
        self.assertEqual((halted[0]["ts"], halted[0]["dur"]),
                         (2100.0, 1800.0))
        self.assertEqual(halted[0]["tid"], hlt["tid"])

    def test_one_flow_per_token(self):
        ev = self.chrome()["traceEvents"]
        starts = [e for e in ev if e["ph"] == "s"]
        ends = [e for e in ev if e["ph"] == "f"]
        self.assertEqual(len(starts), 3)
        self.assertEqual(len(ends), 3)
        self.assertEqual(sorted(e["id"] for e in starts),
                         sorted(e["id"] for e in ends))
        self.assertEqual(len({e["id"] for e in starts}), 3)
        self.assertTrue(all(e["bp"] == "e" for e in ends))
        # Each flow end has a slice on its thread that encloses it.
        slices = [e for e in ev if e["ph"] == "X"]
        for f in starts + ends:
            self.assertTrue(any(
                s["tid"] == f["tid"] and s["pid"] == f["pid"] and
                s["ts"] <= f["ts"] <= s["ts"] + s["dur"] for s in slices))

    def test_swap_spans_and_counters(self):
        ev = self.chrome()["traceEvents"]
        begins = [e for e in ev if e["ph"] == "b" and e["cat"] == "swap"]
        ends = [e for e in ev if e["ph"] == "e" and e["cat"] == "swap"]
        self.assertEqual(len(begins), 4)
        self.assertEqual(sorted(e["id"] for e in begins),
                         sorted(e["id"] for e in ends))
        first_in = [e for e in begins if e["name"] == "swap-in"][0]
        self.assertEqual(first_in["ts"], 300.0)
        counters = [e for e in ev if e["ph"] == "C"]
        self.assertTrue(any(e["name"] == "tokens in flight"
                            for e in counters))
        self.assertEqual(max(e["args"]["total"] for e in counters
                             if e["name"] == "swap-ins done"), 2)

    def test_unknown_event_instant(self):
        ev = self.chrome(build_trace([
            raw_rec(5, 99, 0, 0, b"\xff")]))["traceEvents"]
        inst = [e for e in ev if e["ph"] == "i"]
        self.assertEqual(inst[0]["name"], "event#99")
        self.assertEqual(inst[0]["args"]["raw"], "ff")

    def test_slices_nest(self):
        ev = self.chrome()["traceEvents"]
        by_thread = {}
        for e in ev:
            if e["ph"] == "X":
                by_thread.setdefault((e["pid"], e["tid"]), []).append(e)
        for slices in by_thread.values():
            slices.sort(key=lambda e: (e["ts"], -e["dur"]))
            stack = []
            for e in slices:
                while stack and stack[-1] <= e["ts"]:
                    stack.pop()
                end = e["ts"] + e["dur"]
                if stack:
                    self.assertLessEqual(end, stack[-1])
                stack.append(end)

    def test_chrome_to_file(self):
        p = self.write("t.trace", sample_trace())
        out = self.path("t.json")
        code, stdout, err = run_main(["--chrome", p, out])
        self.assertEqual((code, stdout, err), (0, "", ""))
        with open(out) as f:
            self.assertIn("traceEvents", json.load(f))


class PlotTest(ToolTest):
    def test_png(self):
        import_matplotlib()
        p = self.write("t.trace", sample_trace())
        png = self.path("t.png")
        env = dict(os.environ)
        env.pop("DISPLAY", None)
        r = subprocess.run([TOOL, "--plot", p, png], capture_output=True,
                           text=True, env=env)
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_png_in_process(self):
        import_matplotlib()
        p = self.write("t.trace", build_trace([]))
        png = self.path("e.png")
        code, out, err = run_main(["--plot", p, png])
        self.assertEqual((code, err), (0, ""))
        with open(png, "rb") as f:
            self.assertEqual(f.read(4), b"\x89PNG")

    def test_png_of_a_window(self):
        import_matplotlib()
        p = self.write("t.trace", sample_trace())
        png = self.path("w.png")
        code, out, err = run_main(["--plot", "--window", "0", "0.5", p, png])
        self.assertEqual((code, err), (0, ""))
        with open(png, "rb") as f:
            self.assertEqual(f.read(4), b"\x89PNG")


# A trace for --latency, --heatmap and --extract-faults, with the labels


if __name__ == "__main__":
    unittest.main()
