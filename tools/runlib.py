# SPDX-License-Identifier: BSD-2-Clause
"""What tools/bochs-run and tools/qemu-run share: one implementation of the
emulator's supervision (timeout, signals, the interactive terminal), of
their common command line and of the work folder, ESP image and trace disk
handling, for both emulators. Reading and judging the serial record (the
verdict, the exit statuses, the summary) is tools/serial_record.py's.

A library module, not a program: the run scripts import it from their own
folder (tools/), which also holds serial_record.py.
"""

import argparse
import atexit
import fcntl
import math
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import termios
import time
from pathlib import Path

from serial_record import (EXIT_STATUS_HELP, SerialTail, SerialVerdict,
                           summary_lines)

REPO = Path(__file__).resolve().parent.parent
TOOLS = REPO / "tools"

# Seconds to keep running after "exiting to firmware" (to capture the
# firmware's own lines), after "done" (before killing an emulator that does
# not end itself), and of silence after a fatal line before giving up.
# Wall-clock limit of a run without --timeout (an interactive one has none).
DEFAULT_TIMEOUT = 300.0
FIRMWARE_GRACE = 2.0
DONE_GRACE = 15.0
QUIET_AFTER_FAILURE = 10.0


class Interrupted(Exception):
    pass


def _raise_interrupted(signum, frame):
    raise Interrupted(signum)


def kill_group(proc):
    """Ends the emulator and everything it started (its own session)."""
    if proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, 3), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            pass


# ------------------------------------------------------ interactive console

QUIT_KEY = b"\x1d"           # Ctrl-], as in telnet
QUIT_NAME = "Ctrl-]"
# Seconds the emulator has to connect its serial port to the terminal.
CONNECT_TIMEOUT = 60.0
# What the run script adds to the ESP's apfvisor.cfg for --interactive.
PASSTHROUGH_KEY_RE = re.compile(r"^\s*console\.passthrough\s*=", re.M)
PASSTHROUGH_LINE = ("# Added by the run script for --interactive: the "
                    "guest's terminal on COM2.\nconsole.passthrough = com2\n")


class Quit(Exception):
    pass


def interactive_esp(prog, esp, workdir):
    """ESPDIR as --interactive boots it: a copy (hard links where it can)
    in workdir whose apfvisor.cfg says console.passthrough = com2, so that
    apfvisor passes the guest's console through raw on COM2, the port the
    script connects to this terminal. Returns the copy's path."""
    esp = Path(esp)
    if not esp.is_dir():
        raise SystemExit(f"{prog}: error: --interactive needs an ESP folder "
                         f"(it sets console.passthrough in its "
                         f"apfvisor.cfg); {esp} is not one")
    cfg = esp / "apfvisor.cfg"
    try:
        text = cfg.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError as e:
        raise SystemExit(f"{prog}: error: {cfg}: {e.strerror}")
    copy = workdir / "esp-interactive"
    shutil.rmtree(copy, ignore_errors=True)

    def link_or_copy(src, dst):
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)
    shutil.copytree(esp, copy, copy_function=link_or_copy)
    kept = [line for line in text.splitlines(keepends=True)
            if not PASSTHROUGH_KEY_RE.match(line)]
    if kept and not kept[-1].endswith("\n"):
        kept[-1] += "\n"
    (copy / "apfvisor.cfg").unlink()
    (copy / "apfvisor.cfg").write_text("".join(kept) + PASSTHROUGH_LINE,
                                       encoding="utf-8",
                                       errors="surrogateescape")
    return copy


class Terminal:
    """The user's terminal as the guest's serial console (--interactive).

    apfvisor passes the guest's COM1 through raw on the machine's COM2
    (console.passthrough = com2); the emulator connects that port to a
    TCP port on 127.0.0.1 that this listens on (one the kernel picks, so
    no clash with another run). Bytes from it go to stdout as they are, as
    they come; bytes typed go to it as they are typed. COM1, the record
    of the run, goes to the serial log as without --interactive; only its
    error lines are shown here too (show_host_line), each on a line of its
    own. A terminal on stdin is put in raw mode (as cfmakeraw: no echo, no
    line editing, no signals, no output processing) until close();
    QUIT_KEY raises Quit.
    """

    def __init__(self, prog):
        self.prog = prog
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.port = self.listener.getsockname()[1]
        self.conn = None
        self.eof = False           # the emulator closed its end
        self.outbox = b""          # typed, not yet sent
        try:
            self.stdin_fd = sys.stdin.fileno()
        except (AttributeError, ValueError, OSError):
            self.stdin_fd = None
        self.stdout_fd = sys.stdout.fileno()
        self.saved_tty = None
        self.mid_line = False      # what was shown last ends mid-line
        self.bytes_shown = 0

    def start(self, log_path):
        """Raw mode, then the first line (so a key typed once it shows is
        read at once, not held by the terminal's line editing)."""
        sys.stdout.flush()
        sys.stderr.flush()
        self._raw_mode()
        line = (f"{self.prog}: this terminal is the guest's serial console; "
                f"{QUIT_NAME} stops the run. apfvisor's log: {log_path}\r\n")
        try:
            os.write(sys.stderr.fileno(), line.encode(errors="replace"))
        except OSError:
            pass

    def _raw_mode(self):
        fd = self.stdin_fd
        try:
            if fd is None or not os.isatty(fd) or \
                    os.tcgetpgrp(fd) != os.getpgrp():
                return
            saved = termios.tcgetattr(fd)
        except (OSError, termios.error):
            return
        new = list(saved)
        new[6] = list(saved[6])
        new[0] &= ~(termios.IGNBRK | termios.BRKINT | termios.PARMRK |
                    termios.ISTRIP | termios.INLCR | termios.IGNCR |
                    termios.ICRNL | termios.IXON)
        new[1] &= ~termios.OPOST
        new[2] = (new[2] & ~(termios.CSIZE | termios.PARENB)) | termios.CS8
        new[3] &= ~(termios.ECHO | termios.ECHONL | termios.ICANON |
                    termios.ISIG | termios.IEXTEN)
        new[6][termios.VMIN] = 1
        new[6][termios.VTIME] = 0
        self.saved_tty = saved
        atexit.register(self._restore_tty)
        termios.tcsetattr(fd, termios.TCSANOW, new)

    def _restore_tty(self):
        if self.saved_tty is None:
            return
        saved, self.saved_tty = self.saved_tty, None
        try:
            termios.tcsetattr(self.stdin_fd, termios.TCSADRAIN, saved)
        except (OSError, termios.error):
            pass             # the terminal is gone (hang-up)

    def _write(self, data):
        while data:
            try:
                n = os.write(self.stdout_fd, data)
            except BlockingIOError:
                select.select([], [self.stdout_fd], [], 1.0)
                continue
            except OSError:
                return       # the terminal is gone
            data = data[n:]

    def _show(self, data):
        self._write(data)
        self.bytes_shown += len(data)
        self.mid_line = not data.endswith(b"\n")

    def _fresh_line(self):
        """To the start of a line (a guest may end its lines with a bare
        line feed, which a raw terminal does not return)."""
        self._write(b"\r\n" if self.mid_line else b"\r")
        self.mid_line = False

    def show_host_line(self, line):
        """One of apfvisor's lines (an error) on a line of its own."""
        self._fresh_line()
        self._write(line.encode(errors="replace") + b"\r\n")

    def say(self, text):
        """One of this script's own lines while the terminal is raw."""
        self._fresh_line()
        self._write(text.encode(errors="replace") + b"\r\n")

    def _close_conn(self):
        self.eof = True
        if self.conn is not None:
            self.conn.close()

    def _read_conn(self):
        try:
            data = self.conn.recv(65536)
        except BlockingIOError:
            return True
        except OSError:
            data = b""
        if not data:
            self._close_conn()
            return False
        self._show(data)
        return True

    def pump(self, seconds):
        """Moves bytes both ways for up to seconds; raises Quit."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            rlist, wlist = [], []
            if self.conn is None:
                rlist.append(self.listener)
            elif not self.eof:
                rlist.append(self.conn)
                if self.outbox:
                    wlist.append(self.conn)
            if self.stdin_fd is not None:
                rlist.append(self.stdin_fd)
            if not rlist and not wlist:
                time.sleep(left)
                return
            r, w, _ = select.select(rlist, wlist, [], left)
            if self.listener in r:
                self.conn, _ = self.listener.accept()
                self.conn.setblocking(False)
                self.conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self.listener.close()
            if self.conn is not None and self.conn in r:
                self._read_conn()
            if self.stdin_fd is not None and self.stdin_fd in r:
                self._read_stdin()
            if self.conn is not None and self.conn in w and not self.eof:
                try:
                    n = self.conn.send(self.outbox)
                    self.outbox = self.outbox[n:]
                except BlockingIOError:
                    pass
                except OSError:
                    self._close_conn()

    def _read_stdin(self):
        try:
            data = os.read(self.stdin_fd, 4096)
        except OSError:
            data = b""
        if not data:              # end of input: keep showing the output
            self.stdin_fd = None
            return
        if QUIT_KEY in data:
            raise Quit()
        self.outbox += data

    @property
    def connected(self):
        return self.conn is not None

    def drain(self, limit=2.0):
        """Reads what the emulator sent before it ended (or was stopped)."""
        if self.conn is None or self.eof:
            return
        deadline = time.monotonic() + limit
        while not self.eof:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            r, _, _ = select.select([self.conn], [], [], min(left, 0.2))
            if not r:
                return
            self._read_conn()

    def close(self):
        """Puts the terminal back as it was, on a fresh line."""
        self._fresh_line()
        self._restore_tty()
        self._close_conn()
        self.listener.close()


class RunResult:
    """What supervise() found: the exit status, the wall time in seconds,
    the serial verdict (its counters and end), and how the run was cut
    short by this script, if it was ("timeout", "Ctrl-]", ...)."""

    def __init__(self, status, wall, verdict, cut_short=None):
        self.status = status
        self.wall = wall
        self.verdict = verdict
        self.cut_short = cut_short


def supervise(prog, cmd, workdir, serial_path, timeout, stdout_path,
              stderr_path, serial_out=None, diagnose=None, terminal=None,
              on_line=None):
    """Runs cmd in workdir, follows serial_path, returns a RunResult.

    diagnose(reason) is called to print emulator logs on stderr when the
    emulator ended (or was stopped) without a clean apfvisor ending.
    terminal: a Terminal (--interactive) that the emulator's COM2 is
    connected to; the serial log (COM1) is then not echoed, but its lines
    that fail the run are shown on the terminal.
    on_line(line) is called with each serial line as it comes, while the
    emulator still runs (qemu-run --screen takes its screendump there).
    """
    serial_path.unlink(missing_ok=True)
    verdict = SerialVerdict()
    tail = SerialTail(serial_path, echo=terminal is None)
    old = {s: signal.signal(s, _raise_interrupted)
           for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    timed_out = exited = no_connection = False
    cut_short = None
    start = time.monotonic()
    proc = None

    def say(text):
        if terminal:
            terminal.say(text)
        else:
            print(text, file=sys.stderr)

    try:
        if terminal:
            terminal.start(serial_path)
        with open(stdout_path, "wb") as out:
            err = subprocess.STDOUT if stderr_path == stdout_path else \
                open(stderr_path, "wb")
            proc = subprocess.Popen(cmd, cwd=workdir, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=err,
                                    start_new_session=True)
            if err is not subprocess.STDOUT:
                err.close()
        firmware_at = done_at = None
        while True:
            exited = proc.poll() is not None
            if exited and terminal:
                terminal.drain()
            for line in tail.poll(final=exited):
                failures = len(verdict.failures)
                verdict.feed(line)
                if terminal and len(verdict.failures) > failures:
                    terminal.show_host_line(line)
                if on_line and not exited:
                    on_line(line)
            now = time.monotonic()
            if exited:
                break
            if verdict.firmware_exit and firmware_at is None:
                firmware_at = now
            if verdict.done_any and done_at is None:
                done_at = now
            if firmware_at is not None and now - firmware_at >= FIRMWARE_GRACE:
                break
            if done_at is not None and now - done_at >= DONE_GRACE:
                say(f"{prog}: emulator still running {DONE_GRACE:.0f} s "
                    "after 'apfvisor: done'; stopped it")
                break
            if (verdict.failures and not verdict.done_any and
                    now - verdict.last_change >= QUIET_AFTER_FAILURE):
                say(f"{prog}: no apfvisor output for "
                    f"{QUIET_AFTER_FAILURE:.0f} s after a failure; "
                    "stopped the emulator")
                break
            if now - start >= timeout:
                timed_out = True
                cut_short = f"timeout after {timeout:g} s"
                say(f"{prog}: timeout after {timeout:g} s")
                break
            if terminal and not terminal.connected and \
                    now - start >= CONNECT_TIMEOUT:
                no_connection = True
                cut_short = "the emulator did not connect COM2"
                say(f"{prog}: error: the emulator did not connect its "
                    f"COM2 to 127.0.0.1:{terminal.port} within "
                    f"{CONNECT_TIMEOUT:.0f} s; stopped it")
                break
            if terminal:
                terminal.pump(0.1)
            else:
                time.sleep(0.1)
    except Interrupted as e:
        if proc:
            kill_group(proc)
        if terminal:
            terminal.close()
        name = signal.Signals(e.args[0]).name
        print(f"\n{prog}: interrupted ({name}); emulator stopped",
              file=sys.stderr)
        cut_short = f"interrupted ({name})"
        return _ended_early(prog, tail, verdict, serial_path, serial_out,
                            start, cut_short)
    except Quit:
        if proc:
            kill_group(proc)
        terminal.close()
        print(f"{prog}: {QUIT_NAME}: emulator stopped", file=sys.stderr)
        return _ended_early(prog, tail, verdict, serial_path, serial_out,
                            start, f"stopped with {QUIT_NAME}")
    finally:
        if proc:
            kill_group(proc)
        if terminal:
            terminal.drain()
            terminal.close()
        for s, h in old.items():
            signal.signal(s, h)
    for line in tail.poll(final=True):
        verdict.feed(line)
    wall = time.monotonic() - start
    save_serial(prog, serial_path, serial_out)
    status = verdict.status(timed_out)
    if no_connection:
        status = 1
        if diagnose:
            diagnose("no connection")
    elif diagnose and status != 0 and not verdict.failures:
        if timed_out:
            diagnose("timeout")
        elif not verdict.done_any:
            print(f"{prog}: the emulator ended without 'apfvisor: done'",
                  file=sys.stderr)
            diagnose("exited")
    return RunResult(status, wall, verdict, cut_short)


def _ended_early(prog, tail, verdict, serial_path, serial_out, start,
                 cut_short):
    """A run stopped by a signal or Ctrl-]: exit status 130, the record so
    far kept (and copied to --serial-out)."""
    for line in tail.poll(final=True):
        verdict.feed(line)
    save_serial(prog, serial_path, serial_out)
    return RunResult(130, time.monotonic() - start, verdict, cut_short)


def save_serial(prog, serial_path, serial_out):
    if not serial_out:
        return
    try:
        shutil.copyfile(serial_path, serial_out)
    except OSError as e:
        print(f"{prog}: cannot save the serial log to {serial_out}: "
              f"{e.strerror}", file=sys.stderr)


def positive(kind):
    """An argparse type: a number of kind (int or float) above 0."""
    def convert(raw):
        try:
            value = kind(raw)
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad value '{raw}'") from None
        if value <= 0:
            raise argparse.ArgumentTypeError("must be positive")
        return value
    return convert


def argument_parser(prog, doc, *, swap, trace_disk, workdir_holds):
    """The command line both run scripts take: ESPDIR and the options they
    share; the caller adds its own. doc, the script's docstring, is the
    help: its first paragraph the description, the rest the epilog, which
    ends with EXIT_STATUS_HELP.
    swap: the help of --swap; trace_disk: how --trace attaches the disk;
    workdir_holds: what goes into --workdir."""
    summary, _, details = doc.strip().partition("\n\n")
    p = argparse.ArgumentParser(
        prog=prog, description=summary, allow_abbrev=False,
        epilog=f"{details}\n\n{EXIT_STATUS_HELP}",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("esp", metavar="ESPDIR", help="the ESP folder "
                   "(tools/mkesp), or a ready FAT image file")
    p.add_argument("--cpus", metavar="N", type=positive(int), default=1,
                   help="the machine's CPUs (default 1)")
    p.add_argument("--megs", metavar="M", type=positive(int), default=512,
                   help="the machine's RAM in MiB (default 512)")
    p.add_argument("--timeout", metavar="S", type=positive(float),
                   help=f"wall-clock limit in seconds (default "
                   f"{DEFAULT_TIMEOUT:g}; none with --interactive)")
    p.add_argument("--swap", metavar="IMAGE", help=swap)
    p.add_argument("--trace", metavar="FILE", help="attach a fresh trace "
                   "disk (DIR/trace.img, made with tools/apfswap-format "
                   f"--trace) {trace_disk}; when the run is over, copy the "
                   "trace apfvisor wrote there (needs trace = on in "
                   "apfvisor.cfg) to FILE for tools/apftrace. No trace on "
                   "the disk is an error (exit status 1)")
    p.add_argument("--trace-size", metavar="SIZE", default="64M",
                   help="the trace disk's size (default 64M)")
    p.add_argument("--workdir", metavar="DIR", help=f"where {workdir_holds} "
                   f"go (default build/{prog}; one run at a time per folder)")
    p.add_argument("--serial-out", metavar="FILE",
                   help="save the raw serial (COM1) output to FILE")
    p.add_argument("--interactive", action="store_true",
                   help="make this terminal the guest's serial console, "
                   "raw both ways (see --interactive below)")
    return p


def start_run(prog, args, emulator, files):
    """What both scripts do before they build the emulator's command line:
    checks that the emulator (a program on PATH) and its files are
    installed and that the --swap image exists, and locks the work folder
    (--workdir, default build/PROG) for the rest of the process.
    Returns (work folder, --swap image or None), both resolved."""
    if shutil.which(emulator) is None:
        raise SystemExit(f"{prog}: error: {emulator} not found "
                         "(run: make deps)")
    for f in files:
        if not f.is_file():
            raise SystemExit(f"{prog}: error: {f} not found (run: make deps)")
    workdir = Path(args.workdir or REPO / "build" / prog).resolve()
    swap = None
    if args.swap:
        swap = Path(args.swap).resolve()
        if not swap.is_file():
            raise SystemExit(f"{prog}: error: swap image {swap} not found")
    lock_workdir(prog, workdir)             # the lock lives as long as we do
    return workdir, swap


def lock_workdir(prog, workdir):
    """Holds an exclusive lock on workdir for the whole run."""
    workdir.mkdir(parents=True, exist_ok=True)
    fd = os.open(workdir / f".{prog}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SystemExit(f"{prog}: error: {workdir} is in use by another "
                         f"{prog}; give each run its own --workdir")
    return fd


def prepare_image(prog, esp, workdir):
    """Returns the disk image for ESPDIR: built by tools/mkimg, or the file
    itself when ESPDIR is already an image."""
    esp = Path(esp)
    if esp.is_file():
        return esp.resolve()
    if not esp.is_dir():
        raise SystemExit(f"{prog}: error: {esp} is neither an ESP folder "
                         "nor an image file")
    image = workdir / "esp.img"
    r = subprocess.run([str(TOOLS / "mkimg"), str(esp), str(image)],
                       stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        raise SystemExit(f"{prog}: error: could not build the ESP image")
    return image


def run_timeout(args):
    """--timeout, else 300 s, or no limit for an interactive run."""
    if args.timeout is not None:
        return args.timeout
    return math.inf if args.interactive else DEFAULT_TIMEOUT


def print_wall(prog, wall):
    print(f"{prog}: wall {wall:.1f} s", file=sys.stderr)


def finish_run(prog, args, trace, result, serial_log):
    """After the emulator: copies the trace off its disk (--trace; not
    after a timeout), then prints the wall time, or with --interactive
    the run's summary. Returns the exit status."""
    status = result.status
    if trace and status != 2:
        status = collect_trace(prog, trace, args.trace, status)
    if args.interactive:
        for line in summary_lines(prog, result, status, serial_log,
                                  args.trace if trace else None):
            print(line, file=sys.stderr)
    else:
        print_wall(prog, result.wall)
    return status


def prepare_trace_disk(prog, workdir, size):
    """A fresh trace disk in workdir."""
    disk = workdir / "trace.img"
    disk.unlink(missing_ok=True)
    done = subprocess.run(
        [str(TOOLS / "apfswap-format"), "--trace", str(disk), size],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode:
        raise SystemExit(f"{prog}: error: the trace disk: "
                         f"{done.stderr.strip()}")
    return disk


def collect_trace(prog, disk, out, status):
    """Copies the trace off its disk to out; returns the run's status, 1
    instead of 0 when there was no trace to copy."""
    try:
        done = subprocess.run(
            [str(TOOLS / "apftrace"), "--extract", str(disk),
             str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
    except OSError as e:
        print(f"{prog}: error: --trace: tools/apftrace: {e}",
              file=sys.stderr)
        return status or 1
    if done.returncode:
        print(f"{prog}: error: --trace: {done.stderr.strip()}",
              file=sys.stderr)
        return status or 1
    print(f"{prog}: trace written to {out}", file=sys.stderr)
    return status
