# SPDX-License-Identifier: BSD-2-Clause
"""churn (guest/programs/churn/churn.c), the guest program that maps, writes,
checks and unmaps memory round after round for free page reporting, run
natively: it is a static Linux binary, so this host runs it as the guest
does. Small sizes and no sleep; tests/qemu/test_guest_image.py runs it in
the guest with a virtio-balloon."""

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
CHURN = REPO / "build" / "guest-bin" / "churn"
PAGE = 4096


def churn(*args):
    """Brings build/guest-bin/churn up to date and runs it; returns (exit
    status, stdout lines, stderr)."""
    made = subprocess.run(["make", "-s", "-C", str(REPO),
                           str(CHURN.relative_to(REPO))],
                          stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, errors="replace")
    assert made.returncode == 0, f"make {CHURN}: {made.stdout}{made.stderr}"
    r = subprocess.run([str(CHURN), *args], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, errors="replace",
                       timeout=60)
    return r.returncode, r.stdout.splitlines(), r.stderr


def test_churn_rounds():
    status, lines, err = churn("-m", "4", "-r", "2", "-s", "0")
    pages = 2 * (4 << 20) // PAGE
    assert lines == ["churn: round 1: 4 MiB ok",
                     "churn: round 2: 4 MiB ok",
                     f"churn: total: 2 rounds, {pages} pages, 0 mismatches"], \
        f"unexpected output: {lines} (stderr: {err!r})"
    assert status == 0 and err == "", f"status {status}, stderr {err!r}"


def test_churn_refuses_bad_arguments():
    for args in (["-m", "0"], ["-r", "x"], ["-s", "-1"], ["extra"]):
        status, lines, err = churn(*args)
        assert status == 2 and lines == [], \
            f"churn {' '.join(args)}: status {status}, stdout {lines}"
        assert re.match(r"churn: error: ", err), \
            f"churn {' '.join(args)}: stderr {err!r}"
