#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Tests of tools/apftrace, the trace decoder.

The traces are built here by a small writer that follows lib/trace/trace_format.h
(header, descriptor table, config, records, counters), independently of the
C writer. Run from the repository root: python3 tests/unit/test_apftrace.py
"""

import contextlib
import importlib.machinery
import importlib.util
import io
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TOOL = os.path.join(ROOT, "tools", "apftrace")


def load_tool():
    sys.dont_write_bytecode = True      # no tools/__pycache__ in the tree
    loader = importlib.machinery.SourceFileLoader("apftrace", TOOL)
    spec = importlib.util.spec_from_loader("apftrace", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


apftrace = load_tool()

# ---------------------------------------------------------------------------
# A trace writer, after lib/trace/trace_format.h and lib/trace/trace_events.h.

SWAP_IO = [("gpa", "u64", None), ("slot", "u32", None)]
SWAP_DONE = SWAP_IO + [("ok", "u8", None), ("latency", "u64", None)]
TOKEN = [("token", "u32", None), ("gpa", "u64", None)]
EVENTS = [
    (1, "vm_exit", [("reason", "u16", "exit_reason"),
                    ("qualification", "u64", None), ("rip", "u64", None),
                    ("cycles", "u64", None)]),
    (2, "ept_violation", [("gpa", "u64", None),
                          ("state", "u8", "page_state"),
                          ("outcome", "u8", "fault_outcome")]),
    (3, "swap_in_submit", SWAP_IO),
    (4, "swap_in_done", SWAP_DONE),
    (5, "swap_out_submit", SWAP_IO),
    (6, "swap_out_done", SWAP_DONE),
    (7, "evict_step", [("scanned", "u32", None), ("chosen", "u32", None),
                       ("written", "u32", None), ("dropped", "u32", None)]),
    (8, "shootdown", [("generation", "u64", None), ("cpus", "u64", None)]),
    (9, "irq_inject", [("vector", "u8", None)]),
    (10, "vcpu_halt", []),
    (11, "vcpu_wake", [("halted_cycles", "u64", None)]),
    (12, "guest_end", [("kind", "u8", "end_kind"), ("clean", "u8", None)]),
    (13, "try_async_get_page", [("gpa", "u64", None), ("async", "u8", None)]),
    (14, "async_pf_not_present", TOKEN),
    (15, "async_pf_ready", TOKEN),
    (16, "async_pf_completed", TOKEN),
]
ENUMS = {
    "exit_reason": {0: "exception_nmi", 1: "external_interrupt",
                    10: "cpuid", 12: "hlt", 30: "io", 48: "ept_violation"},
    "page_state": {0: "absent", 1: "resident", 2: "swapped"},
    "fault_outcome": {0: "mapped", 1: "swap_in", 2: "async"},
    "end_kind": {0: "power_off", 1: "reset"},
}
FMT = {"u8": "B", "u16": "H", "u32": "I", "u64": "Q",
       "i8": "b", "i16": "h", "i32": "i", "i64": "q"}
BY_NAME = {name: (eid, fields) for eid, name, fields in EVENTS}
HZ = 1000000            # 1 MHz: a cycle is a microsecond
NO_VCPU = 0xFFFF


def descriptor_text(events=EVENTS, enums=ENUMS, extra=()):
    lines = []
    for eid, name, fields in events:
        words = ["event", str(eid), name, "1"]
        for fname, ftype, enum in fields:
            words.append("%s:%s:%s" % (fname, ftype, enum) if enum
                         else "%s:%s" % (fname, ftype))
        lines.append(" ".join(words))
    for name, labels in enums.items():
        lines.append(" ".join(["enum", name] + [
            "%d=%s" % kv for kv in sorted(labels.items())]))
    lines.extend(extra)
    return "\n".join(lines) + "\n"


def rec(tsc, name, cpu, vcpu, extra=b"", **values):
    """One record (tsc, event ID, cpu, vcpu, payload) of a known event."""
    eid, fields = BY_NAME[name]
    payload = b"".join(struct.pack("<" + FMT[t], values[f])
                       for f, t, _ in fields)
    return (tsc, eid, cpu, vcpu, payload + extra)


def raw_rec(tsc, eid, cpu, vcpu, payload):
    return (tsc, eid, cpu, vcpu, payload)


def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def build_trace(records, major=1, minor=0, header_size=128,
                desc=None, config="mode = stop\nsize = 1M\n",
                counters=None, flags=0, lost=0, cpus=3, vcpus=2,
                tsc_hz=HZ):
    """The bytes of a trace file holding records (in file order)."""
    desc = (descriptor_text() if desc is None else desc).encode()
    config = config.encode()
    counters = ("" if counters is None else counters).encode()
    body = b"".join(
        pad8(struct.pack("<QHHBBH", tsc, eid, 16 + len(payload), cpu, 0,
                         vcpu) + payload)
        for tsc, eid, cpu, vcpu, payload in records)
    sections, off, blob = [], pad8(b"\0" * header_size), b""
    pos = len(off)
    for data in (desc, config, body, counters):
        sections.append((pos, len(data)))
        blob += pad8(data)
        pos += len(pad8(data))
    file_size = pos
    head = struct.pack("<8sHHIQIIIIQQ", b"APFTRACE", major, minor,
                       header_size, tsc_hz, cpus, vcpus, flags, 0,
                       len(records), lost)
    for o, s in sections:
        head += struct.pack("<QQ", o, s)
    head += struct.pack("<Q", file_size)
    head = head + b"\0" * (header_size - len(head))
    return pad8(head) + blob


def disk_image(trace, size=64 * 1024):
    head = b"APFVTRCD" + b"\0" * (4096 - 8)
    img = head + trace
    return img + b"\0" * max(0, size - len(img))


# The sample trace: two vCPUs on host CPUs 0 and 1, the paging daemon on
# host CPU 2. vm_exit records are stamped at the exit and written when its
# handling ends, so in file order they come after what happened inside.
GPA = 0x12345000
SAMPLE = [
    # host CPU 0, vCPU 0
    rec(1100, "ept_violation", 0, 0, gpa=GPA, state=2, outcome=2),
    rec(1150, "try_async_get_page", 0, 0, gpa=GPA, **{"async": 1}),
    rec(1200, "async_pf_not_present", 0, 0, token=5, gpa=GPA),
    rec(1000, "vm_exit", 0, 0, reason=48, qualification=0x181,
        rip=0xffffffff81000010, cycles=700),
    rec(2000, "vm_exit", 0, 0, reason=10, qualification=0,
        rip=0xffffffff81000020, cycles=100),
    rec(2200, "vm_exit", 0, 0, reason=10, qualification=0,
        rip=0xffffffff81000020, cycles=300),
    rec(2600, "vm_exit", 0, 0, reason=10, qualification=0,
        rip=0xffffffff81000020, cycles=200),
    rec(3100, "vcpu_halt", 0, 0),
    rec(4900, "vcpu_wake", 0, 0, halted_cycles=1800),
    rec(3000, "vm_exit", 0, 0, reason=12, qualification=0, rip=0x1000,
        cycles=2000),
    rec(5000, "async_pf_ready", 0, 0, token=5, gpa=GPA),
    rec(5010, "irq_inject", 0, 0, vector=32),
    rec(6000, "async_pf_not_present", 0, 0, token=5, gpa=GPA + 0x1000),
    rec(9000, "async_pf_ready", 0, 0, token=5, gpa=GPA + 0x1000),
    rec(9500, "async_pf_not_present", 0, 0, token=9, gpa=GPA + 0x2000),
    rec(9900, "guest_end", 0, 0, kind=0, clean=1),
    # host CPU 1, vCPU 1
    rec(2000, "vm_exit", 1, 1, reason=10, qualification=0, rip=0x2000,
        cycles=400),
    rec(3000, "async_pf_not_present", 1, 1, token=5, gpa=0x5000),
    rec(3500, "vm_exit", 1, 1, reason=30, qualification=0x3f80040,
        rip=0x2010, cycles=50),
    rec(4000, "async_pf_ready", 1, 1, token=5, gpa=0x5000),
    rec(4100, "async_pf_completed", 1, 1, token=5, gpa=0x5000),
    # host CPU 2, the service CPU
    rec(1300, "swap_in_submit", 2, NO_VCPU, gpa=GPA, slot=3),
    rec(1400, "evict_step", 2, NO_VCPU, scanned=64, chosen=4, written=2,
        dropped=2),
    rec(1500, "swap_out_submit", 2, NO_VCPU, gpa=0x7000, slot=8),
    rec(1600, "swap_out_submit", 2, NO_VCPU, gpa=0x8000, slot=9),
    rec(2500, "swap_out_done", 2, NO_VCPU, gpa=0x7000, slot=8, ok=1,
        latency=1000),
    rec(2700, "swap_out_done", 2, NO_VCPU, gpa=0x8000, slot=9, ok=1,
        latency=1100),
    rec(4800, "swap_in_done", 2, NO_VCPU, gpa=GPA, slot=3, ok=1,
        latency=3500),
    rec(4850, "shootdown", 2, NO_VCPU, generation=7, cpus=0x3),
    rec(6100, "swap_in_submit", 2, NO_VCPU, gpa=GPA + 0x1000, slot=3),
    rec(8900, "swap_in_done", 2, NO_VCPU, gpa=GPA + 0x1000, slot=3, ok=1,
        latency=2800),
]
COUNTERS = ("exit.cpuid 4\nexit.hlt 1\nexit.io 1\nexit.ept_violation 1\n"
            "swap.in 2\nswap.out 2\napf.tokens 4\n")


def sample_trace(**kw):
    kw.setdefault("counters", COUNTERS)
    return build_trace(SAMPLE, **kw)


# ---------------------------------------------------------------------------
# Running the tool in-process


def run_main(argv):
    """Runs apftrace.main(argv): (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            apftrace.main(argv)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
    return code, out.getvalue(), err.getvalue()


class ToolTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def write(self, name, data):
        p = self.path(name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def decode_ok(self, data, *opts):
        p = self.write("t.trace", data)
        code, out, err = run_main(list(opts) + [p])
        self.assertEqual((code, err), (0, ""))
        return out

    def assert_one_error(self, argv, *words):
        code, out, err = run_main(argv)
        self.assertEqual(code, 1)
        self.assertEqual(out, "")
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(lines[0].startswith("apftrace: error: "), err)
        self.assertNotIn("internal error", err)
        for w in words:
            self.assertIn(w, lines[0])
        return lines[0]

    def event_lines(self, out):
        return [l for l in out.splitlines() if not l.startswith("#")]

    def assert_png(self, path):
        with open(path, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def mutate(self, base, modes, count, rng):
        """Runs the modes in turn on count random mutations and truncations
        of the trace base: each must exit 0, or 1 with one error line,
        never with an exception out of main(). A mode is its argv with the
        trace's path appended, or put where the mode says None. Returns
        {exit status: how many}."""
        p = self.path("m.trace")
        outcomes = {0: 0, 1: 0}
        for i in range(count):
            data = bytearray(base)
            for _ in range(rng.randint(1, 4)):
                kind = rng.random()
                if kind < 0.6:
                    data[rng.randrange(len(data))] = rng.randrange(256)
                elif kind < 0.8:
                    # A mutation in the header, where it matters most.
                    data[rng.randrange(min(128, len(data)))] = \
                        rng.randrange(256)
                else:
                    del data[rng.randrange(len(data)):]
                    if not data:
                        break
            with open(p, "wb") as f:
                f.write(data)
            mode = modes[i % len(modes)]
            argv = [p if a is None else a for a in mode] if None in mode \
                else mode + [p]
            try:
                code, out, err = run_main(argv)
            except Exception as e:     # main() let an exception out
                self.fail("mutation %d: %r escaped main()" % (i, e))
            with self.subTest(mutation=i):
                self.assertIn(code, (0, 1))
                if code == 1:
                    lines = err.splitlines()
                    self.assertEqual(len(lines), 1, err)
                    self.assertTrue(lines[0].startswith("apftrace: error: "))
                    self.assertNotIn("internal error", err)
                else:
                    self.assertEqual(err, "")
                outcomes[code] += 1
        return outcomes


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


def import_matplotlib(wait=600):
    """matplotlib may still be being installed (apt): wait for it. The
    tool's own import is used, with its fallback to Debian's
    dist-packages when python3 is another interpreter (pyenv)."""
    deadline = time.time() + wait
    while True:
        try:
            apftrace.import_pyplot()
            return
        except apftrace.TraceError:
            if time.time() > deadline:
                raise
            time.sleep(10)
            importlib.invalidate_caches()


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
            "zero fill", "disk read, waited",
            "async PF: token to page-ready", "swap-in device"])
        want = {
            # 40, 60, 300 (the exit with the frame wait).
            "zero fill": (3, 60, 300, 300, 300),
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
                          5.5, 7.99, 8.5, 9.005, 12.005])
        self.assertEqual(pts["faults"][-1][1], HIGH)
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
        self.assertEqual(out, "heatmap: 13 faults, 2 evictions, 3 swap-ins "
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
        # Page 5 (gpa 0x5123), 7, 5 again, 7 in flight, HIGH in flight.
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
