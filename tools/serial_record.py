# SPDX-License-Identifier: BSD-2-Clause
"""The serial record of a run (apfvisor's COM1 output) as tools/runlib.py
reads it: cleaned lines from the growing log file, the verdict by
apfvisor's serial output contract (the exit status, the counters of its
"apfvisor: stat" lines, how the run ended), the exit statuses as the run
scripts' --help tells them, and the summary an interactive run ends with.
Nothing here starts or stops a program.

A library module, not a program: imported from tools/ (by runlib).
"""

import re
import sys
import time

ANSI_RE = re.compile(r"\x1b(\[[0-9;?=]*[ -/]*[@-~]|[()][0-9A-Za-z]|[=>78])")
CONTROL_RE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
OK_HALTS = ("test-exit code 0", "hlt with interrupts disabled")
# A multiboot kernel's write to port 0xf4 (QEMU's isa-debug-exit): the run's
# exit status is the one QEMU would have exited with.
DEBUG_EXIT_RE = re.compile(r"isa-debug-exit value 0x[0-9a-f]+, "
                           r"exit status (\d+)$")

STAT_RE = re.compile(r"stat (\S+) (\d+)$")


def clean_line(raw):
    """A serial line without terminal escapes, carriage returns and other
    control characters (a UART reset can emit a NUL byte)."""
    return CONTROL_RE.sub("", ANSI_RE.sub("", raw))


class SerialVerdict:
    """Follows apfvisor's serial output contract line by line."""

    def __init__(self):
        self.ok_halt = None        # the "guest halted"/"powered off" line
        self.exit_status = 0       # a multiboot kernel's isa-debug-exit
        self.done = False          # "apfvisor: done" after an ok halt
        self.done_any = False      # "apfvisor: done" at all
        self.failures = []         # lines that make the run fail
        self.firmware_exit = False
        self.last_change = time.monotonic()
        self.stats = {}            # "apfvisor: stat NAME VALUE" lines
        self.how = None            # "apfvisor: how: ..." (the end's cause)

    def feed(self, line):
        if not line.startswith("apfvisor: "):
            return
        now = time.monotonic()
        msg = line[len("apfvisor: "):].rstrip()
        stat = STAT_RE.match(msg)
        if stat:
            self.stats[stat[1]] = int(stat[2])
        elif msg.startswith("how: "):
            self.how = msg[len("how: "):]
        elif msg.startswith("error:"):
            self.failures.append(line)
        elif msg.startswith("guest halted: "):
            why = msg[len("guest halted: "):]
            debug_exit = DEBUG_EXIT_RE.match(why)
            if debug_exit:
                self.ok_halt = line
                self.exit_status = int(debug_exit[1])
            elif why in OK_HALTS:
                self.ok_halt = line
            else:
                self.failures.append(line)
        elif msg == "guest powered off":
            self.ok_halt = line
        elif msg == "blockdev selftest: PASS":
            # debug.blockdev_selftest = on runs no guest: the driver
            # self-test's verdict stands for the guest's end.
            self.ok_halt = line
        elif msg == "blockdev selftest: FAIL":
            self.failures.append(line)
        elif msg == "guest reset":
            self.failures.append(line)
        elif msg.startswith("exiting to firmware"):
            self.firmware_exit = True
            self.failures.append(line)
        elif msg == "done":
            self.done_any = True
            self.done = self.ok_halt is not None
        self.last_change = now

    def status(self, timed_out):
        if self.failures:
            return 1
        if timed_out:
            return 2
        return self.exit_status if self.done else 1


class SerialTail:
    """Reads a growing serial file, returns complete cleaned lines."""

    def __init__(self, path, echo):
        self.path = path
        self.echo = echo
        self.offset = 0
        self.partial = b""

    def poll(self, final=False):
        lines = []
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            data = b""
        self.offset += len(data)
        self.partial += data
        *complete, self.partial = self.partial.split(b"\n")
        if final and self.partial:
            complete.append(self.partial)
            self.partial = b""
        for raw in complete:
            line = clean_line(raw.decode("utf-8", errors="replace"))
            lines.append(line)
            if self.echo:
                sys.stdout.write(line + "\n")
        if lines and self.echo:
            sys.stdout.flush()
        return lines


# The end of both scripts' --help: the exit status SerialVerdict decides.
EXIT_STATUS_HELP = """\
Exit status, decided from the serial text (not from the emulator's own):
  0  "apfvisor: guest halted: test-exit code 0", "... hlt with interrupts
     disabled", "apfvisor: guest powered off" or (debug.blockdev_selftest,
     no guest) "apfvisor: blockdev selftest: PASS", then "apfvisor: done",
     and no "apfvisor: error:" line
  1  an "apfvisor: error:" line, "apfvisor: blockdev selftest: FAIL", any
     other "apfvisor: guest halted: ...", "apfvisor: guest reset",
     "apfvisor: exiting to firmware", or the emulator ended without
     "apfvisor: done"
  2  timeout (the emulator is killed)
  N  a multiboot kernel wrote V to port 0xf4 ("apfvisor: guest halted:
     isa-debug-exit value V, exit status N", N = (V << 1) | 1, as QEMU's
     isa-debug-exit exits), then "apfvisor: done" and no error line
  130  interrupted (a signal, or Ctrl-] with --interactive)"""


def _minutes(seconds):
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    return f"{int(seconds // 60)} min {seconds % 60:.0f} s"


def run_end(result):
    """How the run ended, in a few words, from the record."""
    v = result.verdict
    if v.failures:
        return v.failures[0].removeprefix("apfvisor: ")
    if result.cut_short:
        return result.cut_short
    if v.ok_halt:
        end = v.ok_halt.removeprefix("apfvisor: ")
        return f"{end} ({v.how})" if v.how else end
    return "the emulator ended without 'apfvisor: done'"


def summary_lines(prog, result, status, serial_log, trace_file):
    """The short block an interactive run ends with (at most 9 lines):
    how it ended, its time, the counters a user looks at first, and where
    the record with every counter is."""
    st = result.verdict.stats
    lines = [f"{prog}: summary (exit status {status})",
             f"  end       {run_end(result)}"]
    time_line = f"  time      {_minutes(result.wall)} wall"
    if st.get("tsc.hz") and "tsc.first_entry_to_end" in st:
        guest_s = st["tsc.first_entry_to_end"] / st["tsc.hz"]
        time_line += f", the guest ran {_minutes(guest_s)} of its own time"
    lines.append(time_line)
    if "exits.total" in st:
        lines += [
            f"  exits     {st['exits.total']} "
            f"(EPT violations {st.get('ept.violations', 0)})",
            f"  swap      {st.get('swap.ins', 0)} pages in, "
            f"{st.get('swap.outs', 0)} out",
            f"  async PF  {st.get('apf.not_present', 0)} page-not-present "
            f"tokens, {st.get('apf.page_ready', 0)} page-ready",
        ]
    else:
        lines.append("  counters  none: apfvisor did not reach its end")
    if trace_file:
        lines.append(f"  trace     {trace_file}")
    lines.append(f"  log       {serial_log} (every counter: its "
                 "'apfvisor: stat' lines)")
    return lines
