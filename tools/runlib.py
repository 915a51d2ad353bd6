# SPDX-License-Identifier: BSD-2-Clause
"""What tools/bochs-run and tools/qemu-run share: one implementation of the
serial verdict (apfvisor's serial output contract), of the emulator's
supervision (timeout, signals, the interactive console relay) and of the
work folder, ESP image and trace disk handling, for both emulators.

A library module, not a program: the run scripts import it from their own
folder (tools/).
"""

import argparse
import atexit
import codecs
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

REPO = Path(__file__).resolve().parent.parent
TOOLS = REPO / "tools"

ANSI_RE = re.compile(r"\x1b(\[[0-9;?=]*[ -/]*[@-~]|[()][0-9A-Za-z]|[=>78])")
CONTROL_RE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
OK_HALTS = ("test-exit code 0", "hlt with interrupts disabled")
# A multiboot kernel's write to port 0xf4 (QEMU's isa-debug-exit): the run's
# exit status is the one QEMU would have exited with.
DEBUG_EXIT_RE = re.compile(r"isa-debug-exit value 0x[0-9a-f]+, "
                           r"exit status (\d+)$")

# Seconds to keep running after "exiting to firmware" (to capture the
# firmware's own lines), after "done" (before killing an emulator that does
# not end itself), and of silence after a fatal line before giving up.
# Wall-clock limit of a run without --timeout (an interactive one has none).
DEFAULT_TIMEOUT = 300.0
FIRMWARE_GRACE = 2.0
DONE_GRACE = 15.0
QUIET_AFTER_FAILURE = 10.0


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

    def feed(self, line):
        if not line.startswith("apfvisor: "):
            return
        now = time.monotonic()
        msg = line[len("apfvisor: "):].rstrip()
        if msg.startswith("error:"):
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
# Seconds the emulator has to connect its serial port to the relay.
CONNECT_TIMEOUT = 60.0
# Shown on the terminal: all but backspace, tab, line feed, carriage return.
DISPLAY_CONTROL_RE = re.compile(r"[\x00-\x07\x0b\x0c\x0e-\x1f\x7f]")
# The start of an escape sequence that the next bytes may complete.
PARTIAL_ESC_RE = re.compile(r"\x1b(\[[0-9;?=]*[ -/]*|[()])?\Z")


class Quit(Exception):
    pass


class ConsoleRelay:
    """The user's terminal on the emulator's serial port (--interactive).

    Listens on 127.0.0.1 (a port the kernel picks, so no clash with another
    run); the emulator connects to it as a client when it starts. Bytes from
    the emulator are appended to the serial log, which the verdict follows as
    in the non-interactive mode, and shown on stdout without escape sequences
    and stray control characters; bytes read from stdin go to the emulator.
    A terminal on stdin is put in raw mode (output processing kept, so a
    line feed still returns the carriage) until close(); QUIT_KEY raises
    Quit.
    """

    def __init__(self, prog):
        self.prog = prog
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.port = self.listener.getsockname()[1]
        self.conn = None
        self.eof = False           # the emulator closed its end
        self.log = None
        self.outbox = b""          # typed, not yet sent
        try:
            self.stdin_fd = sys.stdin.fileno()
        except (AttributeError, ValueError, OSError):
            self.stdin_fd = None
        self.saved_tty = None
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.held = ""             # an escape sequence cut by a read
        self.mid_line = False      # the output shown so far ends mid-line

    def start(self, log_path):
        self.log = open(log_path, "wb", buffering=0)
        print(f"{self.prog}: interactive: typing goes to COM1; the guest's "
              "output is shown line by line, so what you type appears when "
              f"you press Enter; {QUIT_NAME} quits (stops the emulator)",
              file=sys.stderr)
        self._raw_mode()

    def _raw_mode(self):
        fd = self.stdin_fd
        try:
            if fd is None or not os.isatty(fd) or \
                    os.tcgetpgrp(fd) != os.getpgrp():
                return
            saved = termios.tcgetattr(fd)
        except OSError:
            return
        except termios.error:
            return
        new = list(saved)
        new[6] = list(saved[6])
        new[0] &= ~(termios.IGNBRK | termios.BRKINT | termios.PARMRK |
                    termios.ISTRIP | termios.INLCR | termios.IGNCR |
                    termios.ICRNL | termios.IXON)
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
            termios.tcsetattr(self.stdin_fd, termios.TCSANOW, saved)
        except (OSError, termios.error):
            pass             # the terminal is gone (hang-up)

    def _show(self, data, final=False):
        text = self.held + self.decoder.decode(data, final)
        self.held = ""
        esc = text.rfind("\x1b")
        if esc >= 0 and not final and PARTIAL_ESC_RE.match(text, esc):
            text, self.held = text[:esc], text[esc:]
        text = DISPLAY_CONTROL_RE.sub("", ANSI_RE.sub("", text))
        if final and self.mid_line and not text.endswith("\n"):
            text += "\n"        # this script's own lines start a line
        if text:
            sys.stdout.write(text)
            sys.stdout.flush()
            self.mid_line = not text.endswith("\n")

    def _received(self, data):
        self.log.write(data)
        self._show(data)

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
        self._received(data)
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
        quit_at = data.find(QUIT_KEY)
        if quit_at >= 0:
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
        self._restore_tty()
        self._show(b"", final=True)
        self._close_conn()
        self.listener.close()
        if self.log is not None:
            self.log.close()
            self.log = None


def supervise(prog, cmd, workdir, serial_path, timeout, stdout_path,
              stderr_path, serial_out=None, diagnose=None, relay=None,
              on_line=None):
    """Runs cmd in workdir, follows serial_path, returns (status, wall s).

    diagnose(reason) is called to print emulator logs on stderr when the
    emulator ended (or was stopped) without a clean apfvisor ending.
    relay: a ConsoleRelay (--interactive) that the emulator's serial port
    is connected to; it writes serial_path and shows the output.
    on_line(line) is called with each serial line as it comes, while the
    emulator still runs (qemu-run --screen takes its screendump there).
    """
    serial_path.unlink(missing_ok=True)
    verdict = SerialVerdict()
    tail = SerialTail(serial_path, echo=relay is None)
    old = {s: signal.signal(s, _raise_interrupted)
           for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    timed_out = exited = no_connection = False
    start = time.monotonic()
    proc = None
    try:
        if relay:
            relay.start(serial_path)
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
            if exited and relay:
                relay.drain()
            for line in tail.poll(final=exited):
                verdict.feed(line)
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
                print(f"{prog}: emulator still running {DONE_GRACE:.0f} s "
                      "after 'apfvisor: done'; stopped it", file=sys.stderr)
                break
            if (verdict.failures and not verdict.done_any and
                    now - verdict.last_change >= QUIET_AFTER_FAILURE):
                print(f"{prog}: no apfvisor output for "
                      f"{QUIET_AFTER_FAILURE:.0f} s after a failure; "
                      "stopped the emulator", file=sys.stderr)
                break
            if now - start >= timeout:
                timed_out = True
                print(f"{prog}: timeout after {timeout:g} s", file=sys.stderr)
                break
            if relay and not relay.connected and \
                    now - start >= CONNECT_TIMEOUT:
                no_connection = True
                print(f"{prog}: error: the emulator did not connect its "
                      f"serial port to 127.0.0.1:{relay.port} within "
                      f"{CONNECT_TIMEOUT:.0f} s; stopped it", file=sys.stderr)
                break
            if relay:
                relay.pump(0.1)
            else:
                time.sleep(0.1)
    except Interrupted:
        if proc:
            kill_group(proc)
        if relay:
            relay.close()
        print(f"\n{prog}: interrupted; emulator stopped", file=sys.stderr)
        return 130, time.monotonic() - start
    except Quit:
        if proc:
            kill_group(proc)
        relay.close()
        print(f"\n{prog}: {QUIT_NAME}: emulator stopped", file=sys.stderr)
        return 130, time.monotonic() - start
    finally:
        if proc:
            kill_group(proc)
        if relay:
            relay.drain()
            relay.close()
        for s, h in old.items():
            signal.signal(s, h)
    for line in tail.poll(final=True):
        verdict.feed(line)
    wall = time.monotonic() - start
    if serial_out:
        try:
            shutil.copyfile(serial_path, serial_out)
        except OSError as e:
            print(f"{prog}: cannot save the serial log to {serial_out}: "
                  f"{e.strerror}", file=sys.stderr)
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
    return status, wall


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
                   help="connect the serial port (COM1) to this terminal "
                   "both ways (see --interactive below)")
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


def finish_run(prog, args, trace, status, wall):
    """After the emulator: copies the trace off its disk (--trace; not
    after a timeout) and prints the wall time. Returns the exit status."""
    if trace and status != 2:
        status = collect_trace(prog, trace, args.trace, status)
    print_wall(prog, wall)
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
