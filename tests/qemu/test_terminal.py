# SPDX-License-Identifier: BSD-2-Clause
"""The run scripts' terminal (--interactive, what `make run` uses) in QEMU,
on a pseudo-terminal as a user's: apfvisor's own lines stay off the
terminal but for a line that fails the run, which comes on a line of its
own; Ctrl-] stops the run; every way out puts the terminal back and ends
with the short summary. (The guest's bytes passing through raw, and typing
into the guest: the Linux sessions in tests/bochs/test_linux.py.)"""

import re
import signal
import termios

from lib import expect
from test_boot import VTX_ABSENT

INTRO = re.compile(r"qemu-run: this terminal is the guest's serial console; "
                   r"Ctrl-\] stops the run\. apfvisor's log: (\S+)\r?\n")
SUMMARY = re.compile(r"qemu-run: summary \(exit status (\d+)\)\r?\n")


def check_restored(run):
    t = run.terminal
    expect(t.tty_during is not None and
           not t.tty_during[3] & (termios.ICANON | termios.ECHO),
           "expected the terminal in raw mode during the run, got "
           f"{t.tty_during}")
    expect(t.tty_after == t.tty_before, "expected the terminal's settings "
           f"put back: before {t.tty_before}, after {t.tty_after}")


def summary_block(text):
    m = SUMMARY.search(text)
    expect(m, f"expected the run's summary; the terminal ended with "
           f"{text[-300:]!r}")
    block = text[m.start():].replace("\r", "").strip().split("\n")
    expect(len(block) <= 10, f"expected at most 10 summary lines: {block}")
    return block


def test_terminal_shows_only_the_failing_line(ctx):
    """apfvisor without VT-x, on a terminal: of its lines only the errors
    reach the terminal, each at the start of a line; the log the first
    line names holds all of them; the summary says how the run ended."""
    run = ctx.boot_guest("hello", timeout=120, interactive=True,
                         converse=[(r"BdsDxe: ", "")])
    text = run.terminal.text()
    intro = INTRO.search(text)
    expect(intro, f"expected the first line naming the log: {text[:300]!r}")
    error_at = text.find(VTX_ABSENT)
    expect(re.search(r"(^|\n)\r?" + re.escape(VTX_ABSENT), text),
           "expected the VT-x error on the terminal at the start of a "
           f"line: {text[max(0, error_at - 80):error_at + 80]!r}")
    shown = re.findall(r"apfvisor: [^\r\n]*", text[:SUMMARY.search(
        text).start()] if SUMMARY.search(text) else text)
    expect(all(l.startswith(("apfvisor: error:", "apfvisor: exiting to "
                             "firmware")) for l in shown),
           f"expected only the failing lines on the terminal, got {shown}")
    expect(not any("starting" in l or "memory map" in l for l in shown),
           f"expected apfvisor's other lines off the terminal: {shown}")
    block = summary_block(text)
    expect(block[0] == "qemu-run: summary (exit status 1)", block[0])
    expect(block[1] == f"  end       {VTX_ABSENT.removeprefix('apfvisor: ')}",
           f"expected the error as the run's end, got {block[1]!r}")
    expect("  counters  none: apfvisor did not reach its end" in block,
           f"expected no counters (apfvisor went back to the firmware): "
           f"{block}")
    run.expect_line(VTX_ABSENT)
    run.expect_regex(r"^apfvisor: apfvisor \S+ starting$")
    run.expect_regex(r"^apfvisor: memory map: ")
    log = intro[1]
    with open(log, "rb") as f:
        expect(f.read() == run.record_path.read_bytes(),
               f"expected the log {log} to hold the record")
    run.expect_status(1)
    check_restored(run)


def test_terminal_ctrl_bracket_stops_the_run(ctx):
    """Ctrl-] typed on the terminal stops the emulator at once: exit status
    130, the terminal put back, the summary saying so."""
    run = ctx.boot_guest("hello", timeout=120, interactive=True,
                         converse=[(r"this terminal is the guest's serial "
                                    r"console", "\x1d")])
    text = run.terminal.text()
    block = summary_block(text)
    expect(block[0] == "qemu-run: summary (exit status 130)", block[0])
    expect(block[1] == "  end       stopped with Ctrl-]",
           f"expected the summary to say Ctrl-] stopped the run: {block}")
    expect("qemu-run: Ctrl-]: emulator stopped" in text,
           f"expected the script to say it stopped QEMU: {text[-400:]!r}")
    run.expect_status(130)
    check_restored(run)


def test_terminal_put_back_when_the_script_is_killed(ctx):
    """SIGTERM to the run script (a kill from elsewhere) while the guest's
    terminal is raw: the emulator is stopped, the terminal put back, the
    summary says why."""
    run = ctx.boot_guest("hello", timeout=120, interactive=True,
                         converse=[(r"BdsDxe: ", signal.SIGTERM)])
    text = run.terminal.text()
    block = summary_block(text)
    expect(block[0] == "qemu-run: summary (exit status 130)", block[0])
    expect(block[1] == "  end       interrupted (SIGTERM)",
           f"expected the summary to name the signal: {block}")
    run.expect_status(130)
    check_restored(run)
