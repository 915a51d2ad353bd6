# SPDX-License-Identifier: BSD-2-Clause
"""tools/bochs-run itself, where Bochs can fail before the firmware runs."""

import socket
import threading
import time

from lib import expect

VNC_PORTS = range(5900, 5950)
# What Bochs writes to its log when no VNC port is free (tools/bochs-run).
RFB_NO_PORT = b"RFB could not bind any port"


def hold_vnc_ports(bochs_log, limit_s):
    """Binds every port Bochs's VNC display may take, from a thread, until
    bochs_log says a Bochs found none free (or limit_s have passed); one
    a Bochs of another test holds is taken already. (That other test's
    next Bochs, should one start meanwhile, is started again the same
    way.) Not for a fixed time: on a loaded machine the run may reach
    Bochs only after it (seen in a CI run of 2026-12-06)."""
    held = []
    for port in VNC_PORTS:
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            s.close()
            continue
        s.listen(1)
        held.append(s)

    def hold():
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            try:
                if RFB_NO_PORT in bochs_log.read_bytes():
                    break
            except OSError:
                pass
            time.sleep(0.1)
        for s in held:
            s.close()

    done = threading.Thread(target=hold, daemon=True)
    done.start()
    return done


def test_started_again_when_no_vnc_port_is_free(ctx):
    # Once a Bochs found none of 5900-5949 free for its VNC display (the
    # only headless one Debian builds) and stopped at once, and a bench
    # point was lost. bochs-run now starts such a run again, having
    # removed the disk locks the stopped Bochs left: the guest still runs.
    holder = hold_vnc_ports(ctx.workdir / "run1" / "bochs.log", 120)
    try:
        run = ctx.boot_guest("hello", cpus=1, timeout=300)
    finally:
        holder.join()
    expect("Bochs found no free port for its VNC display" in run.stderr,
           "expected bochs-run to say it starts Bochs again, stderr:\n"
           + run.stderr[-2000:])
    run.expect_line("apfvisor: guest halted: hlt with interrupts disabled")
    run.expect_line("apfvisor: done")
    run.expect_status(0)
