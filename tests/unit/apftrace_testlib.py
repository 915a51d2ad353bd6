# SPDX-License-Identifier: BSD-2-Clause
"""What the tests of tools/apftrace share (test_apftrace.py,
test_apftrace_outputs.py, test_apftrace_faults.py): the tool loaded as a
module, a small trace writer that follows lib/trace/trace_format.h
(header, descriptor table, config, records, counters), independently of
the C writer, the sample trace, running the tool in-process, the
ToolTest base class and the wait for matplotlib.

Not a test module (its name does not start with test_): the tests import
it from their own folder.
"""

import contextlib
import io
import os
import struct
import tempfile
import time
import unittest

import tool_module

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TOOL = os.path.join(ROOT, "tools", "apftrace")


def load_tool():
    return tool_module.load_tool("apftrace")


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
