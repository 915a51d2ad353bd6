# SPDX-License-Identifier: BSD-2-Clause
"""tools/bochs-run itself, where Bochs can fail before the firmware runs."""

import socket
import threading

from lib import expect

VNC_PORTS = range(5900, 5950)


def hold_vnc_ports(seconds):
    """Binds every port Bochs's VNC display may take for seconds, from a
    thread; one a Bochs of another test holds is taken already. (That
    other test's next Bochs, should one start meanwhile, is started again
    the same way.)"""
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
    done = threading.Timer(seconds, lambda: [s.close() for s in held])
    done.start()
    return done


def test_started_again_when_no_vnc_port_is_free(ctx):
    # Once a Bochs found none of 5900-5949 free for its VNC display (the
    # only headless one Debian builds) and stopped at once, and a bench
    # point was lost. bochs-run now starts such a run again, having
    # removed the disk locks the stopped Bochs left: the guest still runs.
    timer = hold_vnc_ports(3)
    try:
        run = ctx.boot_guest("hello", cpus=1, timeout=300)
    finally:
        timer.join()
    expect("Bochs found no free port for its VNC display" in run.stderr,
           "expected bochs-run to say it starts Bochs again, stderr:\n"
           + run.stderr[-2000:])
    run.expect_line("apfvisor: guest halted: hlt with interrupts disabled")
    run.expect_line("apfvisor: done")
    run.expect_status(0)
