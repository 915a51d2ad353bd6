# SPDX-License-Identifier: BSD-2-Clause
"""Helpers for the emulator tests (tests/qemu/*.py, tests/bochs/*.py).

A test file defines functions named test_*; each takes a Context:

    from lib import cases

    def test_hello(ctx):
        run = ctx.boot_guest("hello")          # tests/guests/hello.cfg
        run.expect_line("guest: hello: PASS cpuid")
        run.expect_stat_at_least("exit.cpuid", 2)
        run.expect_status(0)

    @cases(cpus=(1, 2))                        # test_x_cpus1, test_x_cpus2
    def test_x(ctx, cpus): ...

ctx.boot_guest(NAME, ...) boots tests/guests/NAME.cfg, ctx.boot_cfg(TEXT, ...)
boots a config given as text; both build the ESP with tools/mkesp, run
tools/bochs-run or tools/qemu-run (by the test's level) and return a Run.
A failed expectation raises TestFailure with what was expected and the
relevant serial lines; pytest (tests/conftest.py) prints it as the reason.
"""

import difflib
import os
import re
import shlex
import shutil
import subprocess
import time
from pathlib import Path

import terminal

REPO = Path(__file__).resolve().parent.parent.parent
TOOLS = REPO / "tools"
GUESTS_SRC = REPO / "tests" / "guests"
BUILD = REPO / "build"
LOG_ROOT = BUILD / "test-logs"
# APFVISOR_EFI overrides the application under test (default: the build).
EFI = Path(os.environ.get("APFVISOR_EFI", BUILD / "apfvisor.efi"))

RUNNERS = {"bochs": TOOLS / "bochs-run", "qemu": TOOLS / "qemu-run"}
# Bochs runs the tests at this many emulated instructions per emulated
# second, which is also the TSC's frequency (tools/bochs-run --ips; its
# default, 200e6, is what `make run` and the benchmarks use). An emulator
# test's wall time follows its emulated ticks, and a guest that waits (a
# swap read's latency, a sleep, bm's fixed seconds) spends ips ticks per
# second of waiting: 125e6 spends 5/8 of what 200e6 does. Instruction
# counts (the exit costs) do not depend on it. (100e6 is too low: the PIT
# may then measure 99.999 MHz, below the 100 MHz apfvisor finds plausible
# for a TSC, arch/x86/tsc_choice.c.)
BOCHS_IPS = 125_000_000
STATUS_MEANING = {
    0: "clean end",
    1: "apfvisor failed or the guest stopped abnormally",
    2: "timeout",
    130: "interrupted",
}
STAT_RE = re.compile(r"^apfvisor: stat (\S+) (0x[0-9a-fA-F]+|-?\d+)\s*$")
CONTEXT_LINES = 12


class TestFailure(Exception):
    """An expectation that did not hold; the message is the reason."""
    __test__ = False            # not a pytest test class


def cases(**params):
    """Runs a test once per value: @cases(cpus=(1, 2)) on test_hello gives
    the cases hello_cpus1 and hello_cpus2 (pytest ids test_hello[cpus1]
    and test_hello[cpus2]), each called with cpus=... A single value is
    refused: that is a plain test with the value written in it."""
    import pytest
    if len(params) != 1:
        raise ValueError("cases() takes exactly one parameter")
    (key, values), = params.items()
    if len(values) < 2:
        raise ValueError("cases() takes two values or more")
    return pytest.mark.parametrize(key, values,
                                   ids=[f"{key}{v}" for v in values])


class Run:
    """The outcome of one boot: exit status, serial lines, stderr, stats."""

    def __init__(self, label, status, lines, stderr, wall):
        self.label = label
        self.status = status
        self.lines = lines
        self.stderr = stderr
        self.wall = wall
        self.stats = {}
        for line in lines:
            m = STAT_RE.match(line)
            if m:
                self.stats[m[1]] = int(m[2], 0)

    # -- helpers for messages

    def _tail(self, n=CONTEXT_LINES):
        """The last lines apfvisor or the guest printed (firmware noise
        left out), plus the runner's own complaints."""
        ours = [l for l in self.lines
                if l.startswith(("apfvisor:", "guest:", "BdsDxe:"))]
        shown = ours[-n:] or self.lines[-n:]
        text = "\n".join("    | " + l for l in shown) or "    | (no output)"
        notes = [l for l in self.stderr.splitlines()
                 if l.startswith(("bochs-run:", "qemu-run:"))
                 and not l.startswith(("bochs-run: instructions",
                                       "bochs-run: wall", "qemu-run: wall"))]
        if notes:
            text += "\n" + "\n".join("    ! " + l for l in notes[:6])
        return text

    def fail(self, expected, near=None):
        meaning = STATUS_MEANING.get(self.status, "?")
        msg = f"{expected}\n  ({self.label}: exit status {self.status}, " \
              f"{meaning})"
        if near:
            msg += "\n  closest lines:\n" + "\n".join(
                "    ~ " + l for l in near)
        msg += "\n  last lines:\n" + self._tail()
        raise TestFailure(msg)

    def _near(self, text):
        return difflib.get_close_matches(text, self.lines, n=3, cutoff=0.6)

    # -- expectations

    def expect_status(self, status):
        if self.status != status:
            self.fail(f"expected exit status {status} "
                      f"({STATUS_MEANING.get(status, '?')}), got {self.status}")

    def expect_line(self, text):
        """A serial line equal to text (trailing blanks ignored)."""
        if text not in (l.rstrip() for l in self.lines):
            self.fail(f"expected the line '{text}'", self._near(text))
        return text

    def expect_regex(self, pattern):
        """The first line matching pattern (re.search); returns the match."""
        rx = re.compile(pattern)
        for line in self.lines:
            m = rx.search(line.rstrip())
            if m:
                return m
        self.fail(f"expected a line matching /{pattern}/",
                  self._near(re.sub(r"[\\^$()\[\]+*?.]", "", pattern)))

    def expect_absent(self, pattern):
        """No line matches pattern (re.search)."""
        rx = re.compile(pattern)
        bad = [l for l in self.lines if rx.search(l)]
        if bad:
            self.fail(f"expected no line matching /{pattern}/, found:\n" +
                      "\n".join("    > " + l for l in bad[:5]))

    def expect_order(self, *patterns):
        """Lines matching the patterns appear in this order."""
        pos = 0
        for pattern in patterns:
            rx = re.compile(pattern)
            for i in range(pos, len(self.lines)):
                if rx.search(self.lines[i]):
                    pos = i + 1
                    break
            else:
                self.fail(f"expected /{pattern}/ after the line of "
                          f"the previous pattern (order: "
                          f"{', '.join('/' + p + '/' for p in patterns)})")

    def stat(self, name):
        if name not in self.stats:
            have = ", ".join(sorted(self.stats)) or "none"
            self.fail(f"expected a line 'apfvisor: stat {name} <value>' "
                      f"(stats seen: {have})")
        return self.stats[name]

    def expect_stat_at_least(self, name, minimum):
        value = self.stat(name)
        if value < minimum:
            self.fail(f"expected stat {name} >= {minimum}, got {value}")
        return value

    def expect_stat(self, name, value):
        got = self.stat(name)
        if got != value:
            self.fail(f"expected stat {name} = {value}, got {got}")
        return got


def expect(cond, message):
    """A plain assertion with a readable reason."""
    if not cond:
        raise TestFailure(message)


class Context:
    """One test case: where its logs go and how it boots apfvisor."""

    def __init__(self, level, name):
        self.level = level
        self.name = name
        self.log_path = LOG_ROOT / level / f"{name}.log"
        self.workdir = LOG_ROOT / level / f"{name}.work"
        self.boots = 0
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.log_path.write_text("")
        shutil.rmtree(self.workdir, ignore_errors=True)
        self.workdir.mkdir(parents=True)

    def log(self, text):
        with open(self.log_path, "a") as f:
            f.write(text if text.endswith("\n") else text + "\n")

    def boot_guest(self, guest, **opts):
        """Boots tests/guests/GUEST.cfg."""
        cfg = GUESTS_SRC / f"{guest}.cfg"
        if not cfg.is_file():
            raise TestFailure(f"test bug: {cfg} does not exist")
        return self._boot(cfg, f"guest {guest}", **opts)

    def boot_cfg(self, text, **opts):
        """Boots a config given as text (written to the test's work dir)."""
        cfg = self.workdir / f"boot{self.boots + 1}.cfg"
        cfg.write_text(text)
        return self._boot(cfg, "inline config", **opts)

    def esp_image(self, text):
        """A FAT image (tools/mkimg) of the ESP for a config given as text,
        for a test that checks the image after booting it
        (boot_cfg(..., esp_image=IMAGE))."""
        cfg = self.workdir / "image.cfg"
        cfg.write_text(text)
        esp = self._make_esp(cfg, EFI, "image-esp")
        image = self.workdir / "esp.img"
        r = subprocess.run([str(TOOLS / "mkimg"), str(esp), str(image)],
                           stdin=subprocess.DEVNULL, capture_output=True,
                           text=True)
        if r.returncode != 0:
            raise TestFailure(f"mkimg failed: {r.stderr.strip()}")
        return image

    def _make_esp(self, cfg, efi, name):
        esp = self.workdir / name
        shutil.rmtree(esp, ignore_errors=True)
        r = subprocess.run([str(TOOLS / "mkesp"), str(cfg), str(esp),
                            str(efi)], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise TestFailure(f"mkesp failed: {r.stderr.strip()}")
        return esp

    def _boot(self, cfg, what, cpus=1, megs=None, timeout=None, swap=None,
              efi=None, extra=(), converse=(), esp_image=None,
              make_run=False, interactive=False):
        self.boots += 1
        label = f"boot {self.boots} ({what}, {cpus} cpu{'s' * (cpus > 1)})"
        efi = Path(efi) if efi else EFI
        if not efi.is_file():
            raise TestFailure(f"{efi} not found (run make first)")
        run_dir = self.workdir / f"run{self.boots}"
        opts = ["--cpus", str(cpus), "--workdir", str(run_dir)]
        if megs:
            opts += ["--megs", str(megs)]
        if timeout:
            opts += ["--timeout", str(timeout)]
        if swap:
            opts += ["--swap", str(swap)]
        if self.level == "bochs" and "--ips" not in extra:
            opts += ["--ips", str(BOCHS_IPS)]
        opts += list(extra)
        record = run_dir.with_suffix(".record")
        # On a terminal (a pty) with the run script's --interactive:
        # converse's steps are typed there.
        interactive = interactive or bool(converse) or make_run
        if interactive:
            opts += ["--serial-out", str(record)]
        if make_run:
            # As a user types it; the run's own folders and options added
            # after the Makefile's (the last --cpus counts).
            if self.level != "bochs" or efi != EFI or esp_image:
                raise TestFailure("test bug: make run boots build/'s "
                                  "apfvisor.efi in Bochs")
            cmd = ["make", "--no-print-directory", "run", f"CFG={cfg}",
                   f"ESP={self.workdir / f'esp{self.boots}'}",
                   "RUN_ARGS=" + " ".join(shlex.quote(o) for o in opts)]
        else:
            # A ready image (esp_image()) is booted as it is; its config
            # wins.
            esp = esp_image or self._make_esp(cfg, efi, f"esp{self.boots}")
            cmd = [str(RUNNERS[self.level]), str(esp)] + opts
            if interactive:
                cmd.append("--interactive")
        self.log(f"### {label}\n### cfg {cfg}:\n" +
                 "".join(f"###   {l}\n" for l in
                         Path(cfg).read_text().splitlines()) +
                 "### " + " ".join(shlex.quote(c) for c in cmd))
        start = time.monotonic()
        session = None
        if interactive:
            # Not the suite's own make's jobserver (its descriptors are
            # not passed on).
            env = {k: v for k, v in os.environ.items()
                   if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
            session = terminal.drive(cmd, converse, cwd=REPO, env=env,
                                     timeout=(timeout or 300) + 120)
            r = subprocess.CompletedProcess(
                cmd, session.status,
                record.read_bytes().decode(errors="replace")
                if record.exists() else "", session.text())
            self.log("### the terminal (pty), as shown:\n" +
                     session.text().replace("\r\n", "\n"))
            if session.killed:
                raise TestFailure(f"{label}: the interactive run did not "
                                  "end by itself; killed")
            if session.steps_left:
                raise TestFailure(
                    f"{label}: the terminal never showed "
                    f"{converse[-session.steps_left][0]!r} to type at; "
                    "its last bytes: "
                    f"{session.transcript[-300:]!r}")
        else:
            r = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                               capture_output=True)
            r.stdout = r.stdout.decode(errors="replace")
            r.stderr = r.stderr.decode(errors="replace")
        wall = time.monotonic() - start
        lines = console_lines(r.stdout)
        self.log(r.stdout)
        self.log(f"### {RUNNERS[self.level].name} stderr:\n{r.stderr}"
                 f"### exit status {r.returncode}, {wall:.1f} s")
        # The disk images are rebuilt from the ESP folder on demand.
        for img in run_dir.glob("*.img"):
            img.unlink()
        run = Run(label, r.returncode, lines, r.stderr, wall)
        run.terminal = session
        run.record_path = record if interactive else None
        return run


def console_lines(text):
    """The serial console's lines: split at "\n" only (and one "\r"
    before it dropped). str.splitlines() would also split at VT, FF, NEL,
    U+2028 and others, letting a guest that sends one of them start what
    looks like a line of apfvisor's own."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [l[:-1] if l.endswith("\r") else l for l in lines]


# ---------------------------------------------------------------- raw runs
# For tests that boot something without apfvisor (no ESP, no run script),
# e.g. the Linux guest image straight in QEMU with -kernel.

def run_raw(ctx, cmd, what, timeout=300, cwd=None):
    """Runs the command line cmd (a list) as it is and returns a Run: its
    stdout (the serial console) split into lines, its stderr, and as status
    its exit status, or 2 when it ran longer than timeout seconds and was
    killed; in the folder cwd when given. Logged in the test's log like a
    boot (count in ctx.boots)."""
    ctx.boots += 1
    label = f"boot {ctx.boots} ({what})"
    out_path = ctx.workdir / f"raw{ctx.boots}.out"
    err_path = ctx.workdir / f"raw{ctx.boots}.err"
    ctx.log(f"### {label}\n### " + " ".join(shlex.quote(c) for c in cmd))
    start = time.monotonic()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=err, cwd=cwd)
        try:
            status = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            status = 2
    wall = time.monotonic() - start
    text = out_path.read_bytes().decode(errors="replace")
    stderr = err_path.read_bytes().decode(errors="replace")
    if status == 2:
        stderr += f"run_raw: killed after the timeout of {timeout} s\n"
    ctx.log(text)
    ctx.log(f"### stderr:\n{stderr}### exit status {status}, {wall:.1f} s")
    return Run(label, status, console_lines(text), stderr, wall)
