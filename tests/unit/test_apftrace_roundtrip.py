#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The hypervisor's trace writer (lib/trace/trace_file.c, run on the host as
build/unit/trace_write_demo) and the decoder (tools/apftrace) agree: the
files the C code writes decode to the events and values it recorded, a
file with an event and a field this decoder does not know still decodes,
and a file of a newer major version is refused with one clear line.

Run from the repository root after make unit-binaries; exit status 0 iff
every test passes."""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
WRITER = REPO / "build" / "unit" / "trace_write_demo"
APFTRACE = REPO / "tools" / "apftrace"


def apftrace(*args):
    return subprocess.run([sys.executable, str(APFTRACE), *map(str, args)],
                          capture_output=True, text=True)


class RoundTrip(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name)
        subprocess.run([str(WRITER), str(cls.dir)], check=True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def decode(self, name, *opts):
        done = apftrace(*opts, self.dir / name)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stderr, "")
        return done.stdout

    def test_text_has_every_recorded_event(self):
        lines = [l for l in self.decode("demo.apft").splitlines()
                 if not l.startswith("#")]
        self.assertEqual(len(lines), 22)
        self.assertIn("0.000000 cpu1 vcpu0 vm_exit reason=cpuid "
                      "qualification=0x0 rip=0x1000 cycles=100", lines)
        # Timestamps are merged across CPUs: the daemon's eviction (cpu0)
        # comes between vCPU 0's exits (cpu1).
        names = [l.split()[3] for l in lines]
        self.assertEqual(names[3], "evict_step")
        self.assertTrue(any(l.endswith("cpu0 - swap_in_done gpa=0x7000 "
                                       "slot=17 ok=1 latency=4000000")
                            for l in lines))
        self.assertTrue(any(" guest_end kind=" in l for l in lines))

    def test_summary_matches_what_was_recorded(self):
        s = json.loads(self.decode("demo.apft", "--summary", "--json"))
        self.assertEqual(s["header"]["major"], 1)
        self.assertEqual(s["header"]["tsc_hz"], 10 ** 9)
        self.assertEqual(s["header"]["vcpus"], 2)
        self.assertEqual(s["exits"]["cpuid"],
                         {"count": 3, "min": 100, "median": 200, "max": 300})
        self.assertEqual(s["exits"]["ept_violation"]["count"], 1)
        self.assertEqual(s["tokens"]["count"], 2)
        self.assertEqual(s["tokens"]["unmatched"], 0)
        # vCPU 0's token: not present at 4000300, ready at 9000100.
        self.assertEqual(s["tokens"]["max"], 9000100 - 4000300)
        self.assertEqual(s["counters"], {"exit.cpuid": 3, "exit.hlt": 1,
                                         "exit.ept_violation": 1})

    def test_chrome_has_tracks_slices_and_flows(self):
        c = json.loads(self.decode("demo.apft", "--chrome"))
        ev = c["traceEvents"]
        threads = {e["args"]["name"] for e in ev
                   if e.get("ph") == "M" and e["name"] == "thread_name"}
        self.assertTrue({"vCPU 0", "vCPU 1", "paging daemon"} <= threads)
        self.assertEqual(sum(e.get("ph") == "s" for e in ev), 2)
        self.assertEqual(sum(e.get("ph") == "f" for e in ev), 2)
        exits = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "exit"]
        self.assertEqual(len(exits), 5)

    def test_unknown_event_and_field_still_decode(self):
        text = self.decode("extra.apft")
        self.assertIn("vm_exit reason=cpuid qualification=0x0 rip=0x1006 "
                      "cycles=400 raw=abababababababab", text)
        self.assertIn("future_thing alpha=7 beta=9", text)
        self.assertIn("event#98 raw=deadbeef", text)
        s = json.loads(self.decode("extra.apft", "--summary", "--json"))
        self.assertEqual(s["exits"]["cpuid"]["count"], 4)
        json.loads(self.decode("extra.apft", "--chrome"))

    def test_newer_major_version_is_refused(self):
        done = apftrace(self.dir / "major2.apft")
        self.assertEqual(done.returncode, 1)
        self.assertEqual(done.stdout, "")
        err = done.stderr.strip().splitlines()
        self.assertEqual(len(err), 1, done.stderr)
        self.assertIn("trace format 2.0", err[0])
        self.assertIn("1.x", err[0])


if __name__ == "__main__":
    unittest.main(verbosity=2)
