# SPDX-License-Identifier: BSD-2-Clause
"""NBD servers for the far-memory tests: Debian's nbdkit, listening on
127.0.0.1 only (the emulators' user-mode networks reach it through their
gateway, 10.0.2.2), on a free port, for as long as a with-block lasts.

    with NbdServer(ctx.workdir, ["file", str(image)]) as srv:
        ctx.boot_cfg(f"swap.device = nbd://10.0.2.2:{srv.port}/\\n...")

The server's own messages go to WORKDIR/nbdkit-PORT.log. A server that
does not listen within a few seconds fails the test with that log's tail;
one that is still running at the end is stopped (and killed if it must
be). nbdkit's --exit-with-parent ends it when the thread that started it
ends: start it from a thread that outlives the boot."""

import shutil
import socket
import subprocess
import time

from lib import TestFailure

NBDKIT = "nbdkit"
# The slirp gateway: this machine's 127.0.0.1, seen from the emulators.
GATEWAY = "10.0.2.2"
LISTEN_WAIT_S = 10


def free_port():
    """A TCP port nothing listens on now (the server binds it next)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


class NbdServer:
    """nbdkit PLUGIN ARGS... with FILTERS, bound to 127.0.0.1:port."""

    def __init__(self, workdir, plugin_args, filters=(), port=None):
        if not shutil.which(NBDKIT):
            raise TestFailure("nbdkit is not installed (tools/install-deps "
                              "installs it)")
        self.workdir = workdir
        self.plugin_args = list(plugin_args)
        self.filters = list(filters)
        self.port = port or free_port()
        self.proc = None
        self.log_path = workdir / f"nbdkit-{self.port}.log"

    def url(self, export=""):
        return f"nbd://{GATEWAY}:{self.port}/{export}"

    def start(self):
        cmd = [NBDKIT, "--foreground", "--exit-with-parent",
               "--ipaddr", "127.0.0.1", "--port", str(self.port),
               *[f"--filter={f}" for f in self.filters],
               *self.plugin_args]
        self.log_file = open(self.log_path, "a")
        self.log_file.write("# " + " ".join(cmd) + "\n")
        self.log_file.flush()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                     stdout=self.log_file,
                                     stderr=subprocess.STDOUT)
        deadline = time.monotonic() + LISTEN_WAIT_S
        while not listening(self.port):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                tail = self.log_path.read_text(errors="replace")[-800:]
                raise TestFailure(f"nbdkit did not listen on 127.0.0.1:"
                                  f"{self.port}: {tail}")
            time.sleep(0.05)
        return self

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        if getattr(self, "log_file", None):
            self.log_file.close()
            self.log_file = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False
