# SPDX-License-Identifier: BSD-2-Clause
"""Far memory in Bochs: the Linux guest, 256 MiB on 80 MiB of host frames,
swaps to two NBD exports that nbdkit serves on this machine's 127.0.0.1,
each page on both, reached through Bochs's e1000 on its user-mode network
(the gateway 10.0.2.2); one server is killed in the middle of the run and
started again. memcheck must find every word it wrote, every page read
back must match the checksum taken when it was written
(debug.swap_verify), and the stock kernel's async page faults must run
over the network path like over a local disk: tokens sent, each with its
page-ready."""

import re
import threading
import time

from lib import expect
from nbd_server import NbdServer, GATEWAY
from test_swap import (MISMATCH_RE, expect_swap_checks_clean,
                       formatted_swap, overcommitted_cfg)


class KillAndRestart(threading.Thread):
    """Kills server srv once the guest's memcheck has started (its line
    in the run's serial record) and KILL_AFTER_S more, and starts it again
    RESTART_AFTER_S later, on the same file and port: the run goes on
    with one copy of each page for a while, then copies back what the
    server missed."""

    def __init__(self, record, srv):
        super().__init__(daemon=True)
        self.record, self.srv = record, srv
        self.killed_at = self.restarted_at = None
        self.stop = threading.Event()

    def run(self):
        deadline = time.monotonic() + 1500
        while not self.stop.is_set() and time.monotonic() < deadline:
            try:
                if MEMCHECK_STARTED in self.record.read_text(
                        errors="replace"):
                    break
            except OSError:
                pass
            time.sleep(0.5)
        if self.stop.wait(KILL_AFTER_S):
            return
        self.srv.proc.kill()
        self.srv.proc.wait()
        self.killed_at = time.monotonic()
        if self.stop.wait(RESTART_AFTER_S):
            return
        self.srv.stop()
        self.srv.start()
        self.restarted_at = time.monotonic()
        # nbdkit's --exit-with-parent follows the thread that started it:
        # this one stays until the test is over.
        self.stop.wait()


KILL_AFTER_S = 3
RESTART_AFTER_S = 15
# 80 MiB of frames hold the booting kernel and its initramfs (the boot
# does not wait on the network), and memcheck's 48 MiB do not fit beside
# them.
FRAMES_MIB = 80
MEMCHECK_MIB = 48
MEMCHECK_STARTED = f"memcheck: {MEMCHECK_MIB * 256} pages"


def test_linux_memcheck_over_nbd_replicas(ctx):
    # Two nbdkit servers, each page on both (swap.replicas = 2); two host
    # CPUs: the paging daemon on its own, polling the NIC and both
    # connections, the vCPU taking async-PF tokens (swap.read_latency adds
    # 200 us to each read, as a farther server would). Server b is killed
    # 3 s into memcheck and started again 15 s later: meanwhile its copies
    # are read from a and the writes it misses are kept, then copied to it
    # once its header reads back the same. memcheck must find every word,
    # every page read back must match its checksum (debug.swap_verify).
    images = [formatted_swap(ctx, f"{n}.img") for n in ("a", "b")]
    with NbdServer(ctx.workdir, ["file", str(images[0])]) as a, \
            NbdServer(ctx.workdir, ["file", str(images[1])]) as b:
        cfg = overcommitted_cfg(
            1, f"memcheck -m {MEMCHECK_MIB}M -p 1",
            extra="debug.swap_verify = on\nswap.read_latency = 200us\n"
                  "swap.replicas = 2\n")
        cfg = cfg.replace("host.guest_frames = 64M\n",
                          f"host.guest_frames = {FRAMES_MIB}M\n")
        cfg = cfg.replace("swap.device = ata\n",
                          f"swap.device = {a.url()}, {b.url()}\n")
        killer = KillAndRestart(
            ctx.workdir / f"run{ctx.boots + 1}" / "com1.out", b)
        killer.start()
        try:
            run = ctx.boot_cfg(cfg, cpus=2, timeout=1500,
                               extra=("--net", "e1000"))
        finally:
            killer.stop.set()
            killer.join()
    ctx.log(f"### server b killed {killer.killed_at}, restarted "
            f"{killer.restarted_at}")
    expect(run.status != 2, "the run hung until the timeout")
    expect(killer.restarted_at is not None,
           "the run ended before server b was killed and restarted")
    run.expect_regex(r"^apfvisor: net: e1000 00:[0-9a-f]{2}\.0 is "
                     rf"10\.0\.2\.15/24, gateway {GATEWAY} \(dhcp\)$")
    run.expect_regex(r"^apfvisor: swap: stripe of 2, 2 copies, 511 MiB, "
                     r"\d+ pages, uuid ")
    # Losing b is said once, as is its return; nothing fails (no error).
    b_name = f"nbd {GATEWAY}:{b.port}/"
    lost = [l for l in run.lines if l.startswith(
        f"apfvisor: {b_name}: connection lost (")]
    expect(len(lost) == 1, f"expected one line for b's loss: {lost}")
    run.expect_absent(r"^apfvisor: error:")
    run.expect_order(rf"^apfvisor: {re.escape(b_name)}: connection lost",
                     rf"^apfvisor: stripe: {re.escape(b_name)} is away",
                     rf"^apfvisor: stripe: {re.escape(b_name)} is back; "
                     r"\d+ page")
    run.expect_absent(MISMATCH_RE)
    run.expect_regex(r"^guest: memcheck: pass 1: wrote \d+ pages, "
                     r"mismatches 0$")
    run.expect_line("guest: memcheck: total mismatches 0")
    run.expect_line("apfvisor: guest powered off")
    run.expect_absent(r"^guest: .*(Out of memory|Killed process|Call Trace|"
                      r"BUG:|WARNING:)")
    # 48 MiB of memcheck beside the kernel and initramfs in 80 MiB of
    # frames: pages go both ways (12,092 out and 3,371 in, 628 tokens, in
    # the CI run of 2026-12-06, where server b got all 2,789 pages it had
    # missed back before the power-off: eight copied at a time; one at a
    # time, 682 of 2,640 in a run before), over the network, twice for
    # each write. With
    # 64 MiB of frames the boot itself swapped over the network (/init at
    # 30 s of guest time instead of 10-13 s): 40 MiB of memcheck then took
    # 172 s alone, this one 25 s of guest time in all.
    run.expect_stat_at_least("swap.outs", 5000)
    run.expect_stat_at_least("swap.ins", 2000)
    run.expect_stat("swap.io_errors", 0)
    run.expect_stat("swap.read_failures", 0)
    expect_swap_checks_clean(run)
    run.expect_stat("stripe.members_lost", 1)
    run.expect_stat("stripe.members_back", 1)
    run.expect_stat("stripe.members_refused", 0)
    run.expect_stat("stripe.requests_failed", 0)
    run.expect_stat_at_least("stripe.degraded_writes", 1)
    run.expect_stat_at_least("stripe.pages_resynced", 1)
    run.expect_stat("nbd.protocol_errors", 0)
    # Async PF ran over the network: tokens, each answered.
    run.expect_stat_at_least("apf.vcpus_enabled", 1)
    sent, ready = run.stat("apf.not_present"), run.stat("apf.page_ready")
    expect(sent > 0, "the kernel got no 'page not present'")
    expect(sent == ready, f"tokens sent {sent} != page-ready {ready}")
    run.expect_status(0)
