#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Tests of tools/apftrace, the trace decoder: the event list, format
versions, trace disks and --extract, corrupt and mutated input, and the
command line. The trace writer and the sample trace they decode are in
apftrace_testlib.py; the other modes' tests are test_apftrace_outputs.py
(--summary, --chrome, --plot) and test_apftrace_faults.py (--latency,
--heatmap, --extract-faults). Run from the repository root:
python3 tests/unit/test_apftrace.py
"""

import os
import random
import struct
import subprocess
import sys
import unittest

sys.dont_write_bytecode = True          # no __pycache__ in the tree
from apftrace_testlib import (  # noqa: E402
    NO_VCPU, SAMPLE, TOOL, ToolTest, build_trace, descriptor_text,
    disk_image, raw_rec, rec, run_main, sample_trace)


class TextTest(ToolTest):
    def test_header_block(self):
        out = self.decode_ok(sample_trace(flags=1, lost=3))
        head = [l for l in out.splitlines() if l.startswith("#")]
        text = "\n".join(head)
        self.assertIn("format 1.0", text)
        self.assertIn("TSC 1000000 Hz", text)
        self.assertIn("host CPUs 3, vCPUs 2", text)
        self.assertIn("flags 0x1 (overwrite)", text)
        self.assertIn("records kept %d, lost 3" % len(SAMPLE), text)
        # The header block comes first.
        self.assertTrue(all(l.startswith("#")
                            for l in out.splitlines()[:len(head)]))

    def test_each_event_kind(self):
        lines = self.event_lines(self.decode_ok(sample_trace()))
        self.assertEqual(len(lines), len(SAMPLE))
        expect = [
            "0.000000 cpu0 vcpu0 vm_exit reason=ept_violation "
            "qualification=0x181 rip=0xffffffff81000010 cycles=700",
            "0.000100 cpu0 vcpu0 ept_violation gpa=0x12345000 "
            "state=swapped outcome=async",
            "0.000150 cpu0 vcpu0 try_async_get_page gpa=0x12345000 async=1",
            "0.000200 cpu0 vcpu0 async_pf_not_present token=0x5 "
            "gpa=0x12345000",
            "0.000300 cpu2 - swap_in_submit gpa=0x12345000 slot=3",
            "0.000400 cpu2 - evict_step scanned=64 chosen=4 written=2 "
            "dropped=2",
            "0.001000 cpu0 vcpu0 vm_exit reason=cpuid qualification=0x0 "
            "rip=0xffffffff81000020 cycles=100",
            "0.001000 cpu1 vcpu1 vm_exit reason=cpuid qualification=0x0 "
            "rip=0x2000 cycles=400",
            "0.001500 cpu2 - swap_out_done gpa=0x7000 slot=8 ok=1 "
            "latency=1000",
            "0.002000 cpu0 vcpu0 vm_exit reason=hlt qualification=0x0 "
            "rip=0x1000 cycles=2000",
            "0.002100 cpu0 vcpu0 vcpu_halt",
            "0.002500 cpu1 vcpu1 vm_exit reason=io qualification=0x3f80040 "
            "rip=0x2010 cycles=50",
            "0.003100 cpu1 vcpu1 async_pf_completed token=0x5 gpa=0x5000",
            "0.003850 cpu2 - shootdown generation=7 cpus=0x3",
            "0.003900 cpu0 vcpu0 vcpu_wake halted_cycles=1800",
            "0.004010 cpu0 vcpu0 irq_inject vector=32",
            "0.008900 cpu0 vcpu0 guest_end kind=power_off clean=1",
        ]
        for line in expect:
            self.assertIn(line, lines)
        # Sorted by TSC; at equal TSC, CPU 0's record (first in the file)
        # before CPU 1's.
        times = [float(l.split()[0]) for l in lines]
        self.assertEqual(times, sorted(times))
        self.assertLess(lines.index(expect[6]), lines.index(expect[7]))

    def test_unknown_enum_value_is_a_number(self):
        out = self.decode_ok(build_trace([
            rec(10, "vm_exit", 0, 0, reason=77, qualification=0, rip=0,
                cycles=1)]))
        self.assertIn("vm_exit reason=77 ", out)

    def test_unknown_event_and_extra_field(self):
        out = self.decode_ok(build_trace([
            rec(10, "irq_inject", 0, 0, extra=b"\xaa\xbb", vector=32),
            raw_rec(20, 99, 1, 1, b"\x01\x02\x03"),
            raw_rec(30, 98, 1, NO_VCPU, b""),
        ]))
        lines = self.event_lines(out)
        self.assertEqual(lines, [
            "0.000000 cpu0 vcpu0 irq_inject vector=32 raw=aabb",
            "0.000010 cpu1 vcpu1 event#99 raw=010203",
            "0.000020 cpu1 - event#98",
        ])

    def test_unknown_field_type(self):
        desc = descriptor_text(extra=[
            "event 40 future 2 a:u8 b:f32 c:u8",
            "histogram something the reader does not know",
        ])
        payload = b"\x07" + b"\x00\x00\x80\x3f" + b"\x09"
        out = self.decode_ok(build_trace([raw_rec(5, 40, 0, 0, payload)],
                                         desc=desc))
        self.assertEqual(self.event_lines(out),
                         ["0.000000 cpu0 vcpu0 future a=7 raw=0000803f09"])

    def test_signed_fields(self):
        desc = descriptor_text(extra=["event 41 deltas 1 a:i8 b:i16 c:i32 "
                                      "d:i64 e:u32"])
        payload = struct.pack("<bhiqI", -1, -300, -70000, -(1 << 40), 7)
        out = self.decode_ok(build_trace([raw_rec(5, 41, 0, 0, payload)],
                                         desc=desc))
        self.assertIn("deltas a=-1 b=-300 c=-70000 d=-1099511627776 e=7",
                      out)

    def test_short_record_shows_raw(self):
        out = self.decode_ok(build_trace([
            raw_rec(5, 8, 2, NO_VCPU, struct.pack("<Q", 3) + b"\x01\x02")]))
        self.assertIn("shootdown generation=3 raw=0102", out)

    def test_empty_trace(self):
        out = self.decode_ok(build_trace([]))
        self.assertEqual(self.event_lines(out), [])


class VersionTest(ToolTest):
    def test_major_2_refused(self):
        p = self.write("v2.trace", sample_trace(major=2))
        line = self.assert_one_error([p], "2.0", "1.x", "newer")
        self.assertEqual(line, "apftrace: error: %s: trace format 2.0 is "
                         "newer than this apftrace reads (1.x): update "
                         "apftrace" % p)

    def test_major_2_as_a_program(self):
        p = self.write("v2.trace", sample_trace(major=2, minor=3))
        r = subprocess.run([TOOL, p], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "")
        self.assertEqual(len(r.stderr.splitlines()), 1)
        self.assertIn("2.3", r.stderr)
        self.assertNotIn("Traceback", r.stderr)

    def test_minor_7_longer_header(self):
        out = self.decode_ok(sample_trace(minor=7, header_size=136))
        self.assertIn("# format 1.7 (header 136 bytes)", out)
        self.assertEqual(len(self.event_lines(out)), len(SAMPLE))
        self.assertEqual(self.event_lines(out),
                         self.event_lines(self.decode_ok(sample_trace())))

    def test_header_size_too_small(self):
        p = self.write("t.trace", sample_trace()[:12] + struct.pack("<I", 64)
                       + sample_trace()[16:])
        self.assert_one_error([p], "header size 64")


class DiskTest(ToolTest):
    def test_disk_image_decodes(self):
        trace = sample_trace()
        disk = self.write("trace.img", disk_image(trace))
        code, out, err = run_main([disk])
        self.assertEqual((code, err), (0, ""))
        self.assertEqual(self.event_lines(out),
                         self.event_lines(self.decode_ok(trace)))

    def test_empty_disk(self):
        disk = self.write("empty.img", disk_image(b""))
        line = self.assert_one_error([disk])
        self.assertEqual(line, "apftrace: error: %s: the trace disk holds no "
                         "trace (was trace = on, and did the guest end?)"
                         % disk)

    def test_extract(self):
        trace = sample_trace()
        disk = self.write("trace.img", disk_image(trace))
        out = self.path("out.trace")
        code, stdout, err = run_main(["--extract", disk, out])
        self.assertEqual((code, stdout, err), (0, "", ""))
        with open(out, "rb") as f:
            self.assertEqual(f.read(), trace)

    def test_extract_needs_a_disk(self):
        p = self.write("t.trace", sample_trace())
        self.assert_one_error(["--extract", p, self.path("o")], "APFVTRCD")

    def test_extract_from_empty_disk(self):
        disk = self.write("empty.img", disk_image(b""))
        self.assert_one_error(["--extract", disk, self.path("o")],
                              "holds no trace")
        self.assertFalse(os.path.exists(self.path("o")))

    def test_disk_too_short_for_its_trace(self):
        trace = sample_trace()
        disk = self.write("cut.img", disk_image(trace, 0)[:4096 + 300])
        self.assert_one_error([disk], "truncated")


class CorruptTest(ToolTest):
    def test_missing_file(self):
        self.assert_one_error([self.path("nope")])

    def test_bad_magic(self):
        p = self.write("t.trace", b"NOTTRACE" + sample_trace()[8:])
        self.assert_one_error([p], "magic")

    def test_truncations(self):
        trace = sample_trace()
        for cut in (0, 5, 12, 100, 128, 200, len(trace) // 2,
                    len(trace) - 1):
            with self.subTest(cut=cut):
                p = self.write("t.trace", trace[:cut])
                self.assert_one_error([p])

    def test_record_size_below_16(self):
        t = build_trace([rec(1, "irq_inject", 0, 0, vector=1)])
        off = struct.unpack_from("<Q", t, 88)[0]
        t = t[:off + 10] + struct.pack("<H", 8) + t[off + 12:]
        p = self.write("t.trace", t)
        self.assert_one_error([p], "size 8")

    def test_record_past_section(self):
        t = build_trace([rec(1, "irq_inject", 0, 0, vector=1)])
        off = struct.unpack_from("<Q", t, 88)[0]
        t = t[:off + 10] + struct.pack("<H", 400) + t[off + 12:]
        p = self.write("t.trace", t)
        self.assert_one_error([p], "runs past")

    def test_section_past_end(self):
        t = bytearray(sample_trace())
        struct.pack_into("<Q", t, 104, len(t) + 8)
        p = self.write("t.trace", bytes(t))
        self.assert_one_error([p], "counters section")

    def test_record_count_mismatch(self):
        t = bytearray(sample_trace())
        struct.pack_into("<Q", t, 40, len(SAMPLE) + 1)
        p = self.write("t.trace", bytes(t))
        self.assert_one_error([p], "records")

    def test_bad_descriptor_lines(self):
        for bad in ("event x vm_exit 1", "event 1 vm_exit", "event 0 z 1",
                    "event 70000 z 1", "event 3 z 1 a", "event 3 z 1 a:u8:e:f",
                    "enum e 1:x", "enum e x=y", "event 1 again 1",
                    "event \u00b2 z 1", "enum e \u0663=three"):
            with self.subTest(line=bad):
                p = self.write("t.trace", sample_trace(
                    desc=descriptor_text(extra=[bad])))
                self.assert_one_error([p], "descriptor line")

    def test_bad_counters(self):
        for bad in ("exit.cpuid x\n", "exit.cpuid \u00b2\n", "a 1 2\n"):
            with self.subTest(counters=bad):
                p = self.write("t.trace", sample_trace(counters=bad))
                self.assert_one_error([p], "counters line 1")

    def test_mutations(self):
        """1500 random mutations and truncations: exit 0, or exit 1 with one
        error line; never an exception out of main()."""
        modes = ([], ["--summary"], ["--summary", "--json"], ["--chrome"])
        outcomes = self.mutate(sample_trace(), modes, 1500, random.Random(1))
        # The loop reached both outcomes (a mutation that changes nothing
        # that matters decodes, most do not).
        self.assertGreater(outcomes[0], 0)
        self.assertGreater(outcomes[1], 0)


class CommandLineTest(ToolTest):
    def test_help(self):
        code, out, _ = run_main(["--help"])
        self.assertEqual(code, 0)
        for word in ("--summary", "--json", "--chrome", "--plot",
                     "--extract", "raw=HEX", "event#ID"):
            self.assertIn(word, out)
        for word in ("--latency", "--heatmap", "--extract-faults",
                     "prefetch hit", "apfvisor-faults 1"):
            self.assertIn(word, out)

    def test_usage_errors(self):
        p = self.write("t.trace", sample_trace())
        for argv in (["--json", p], ["--plot", p], ["--extract", p],
                     [p, "extra"], ["--summary", "--chrome", p],
                     ["--window", "0", "1", p],
                     ["--plot", "--window", "2", "1", p, "o.png"],
                     ["--heatmap", p], ["--extract-faults", p],
                     ["--latency", "--plot", p],
                     ["--json", "--heatmap", p, "o.png"],
                     ["--latency", "--window", "0", "1", p],
                     ["--extract-faults", "--summary", p, "o"]):
            with self.subTest(argv=argv):
                code, _, err = run_main(argv)
                self.assertEqual(code, 2)

    def test_executable(self):
        with open(TOOL) as f:
            head = f.read(200)
        self.assertTrue(head.startswith("#!/usr/bin/env python3\n"))
        self.assertIn("SPDX-License-Identifier: BSD-2-Clause", head)
        self.assertTrue(os.access(TOOL, os.X_OK))


if __name__ == "__main__":
    unittest.main()
