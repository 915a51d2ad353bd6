# SPDX-License-Identifier: BSD-2-Clause
"""A user's terminal for an interactive run, on a pseudo-terminal.

drive() starts a command (`make run ...`, `tools/bochs-run --interactive
...`) with stdin, stdout and stderr on the slave side of a new pty, which is
the command's controlling terminal and its process group in the
foreground, as a shell would start it. It then reads what the command
shows, byte for byte, and types each step's text once the step's pattern
has appeared in what was shown since the previous typing. It records the
terminal's settings before, while the guest's prompt is up, and after the
command ended, so a test can check that raw mode was entered and then
undone.
"""

import fcntl
import os
import re
import select
import signal
import subprocess
import termios
import time


class Session:
    """What one drive() saw."""

    def __init__(self):
        self.transcript = b""      # every byte the terminal was sent
        self.typed_at = []         # transcript length when each step typed
        self.status = None         # the command's exit status
        self.tty_before = None     # termios attributes
        self.tty_during = None     # at the first step, the run under way
        self.tty_after = None
        self.steps_left = 0        # steps whose pattern never appeared
        self.killed = False        # the guard timeout ended it

    def text(self, start=0, end=None):
        return self.transcript[start:end].decode(errors="replace")


def _become_terminal_owner():
    """In the child: a session of its own with the pty as its controlling
    terminal (stdin is the slave), so it is the foreground process group."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def drive(cmd, steps, timeout, cwd=None, env=None):
    """Runs cmd on a new pty; steps: (pattern, text) pairs, in order: wait
    until pattern (a regex, re.search on the bytes shown since the last
    typing, decoded) has been shown, then type text (or, when text is a
    signal number, send that signal to the command, as a terminal's
    hang-up or a `kill` from elsewhere would). Ends when the command
    exits (or after timeout seconds, when its process group is killed).
    Returns a Session."""
    session = Session()
    master, slave = os.openpty()
    # A terminal a person would have: 80x24, cooked, echo on.
    session.tty_before = termios.tcgetattr(slave)
    proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave,
                            cwd=cwd, env=env, close_fds=True,
                            preexec_fn=_become_terminal_owner)
    os.close(slave)
    pending = list(steps)
    since = 0                  # where the current step's search starts
    deadline = time.monotonic() + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                session.killed = True
                os.killpg(proc.pid, signal.SIGKILL)
                break
            r, _, _ = select.select([master], [], [], min(left, 0.5))
            if not r:
                if proc.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:        # EIO: every slave descriptor closed
                break
            if not data:
                break
            session.transcript += data
            while pending and re.search(pending[0][0],
                                        session.text(since)):
                if session.tty_during is None:
                    session.tty_during = termios.tcgetattr(master)
                session.typed_at.append(len(session.transcript))
                action = pending.pop(0)[1]
                if isinstance(action, int):
                    os.kill(proc.pid, action)
                else:
                    os.write(master, action.encode())
                since = len(session.transcript)
        session.status = proc.wait(timeout=30)
        session.tty_after = termios.tcgetattr(master)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        os.close(master)
    session.steps_left = len(pending)
    return session
