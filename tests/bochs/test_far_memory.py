# SPDX-License-Identifier: BSD-2-Clause
"""Far memory in Bochs: the Linux guest, 256 MiB on 64 MiB of host frames,
swaps to an NBD export that nbdkit serves on this machine's 127.0.0.1,
reached through Bochs's e1000 on its user-mode network (the gateway
10.0.2.2). memcheck must find every word it wrote, every page read back
must match the checksum taken when it was written (debug.swap_verify),
and the stock kernel's async page faults must run over the network path
like over a local disk: tokens sent, each with its page-ready."""

from lib import expect
from nbd_server import NbdServer, GATEWAY
from test_swap import (MISMATCH_RE, expect_swap_checks_clean,
                       expect_swapped_cleanly, formatted_swap,
                       overcommitted_cfg)


def test_linux_memcheck_over_nbd(ctx):
    # Two host CPUs: the paging daemon on its own, polling the NIC and the
    # NBD connection; the vCPU gets a token for each page in flight.
    # swap.read_latency adds 200 us to each read, as a farther server
    # would, so that tokens are certain.
    image = formatted_swap(ctx, "swap.img")
    with NbdServer(ctx.workdir, ["file", str(image)]) as srv:
        cfg = overcommitted_cfg(
            1, "memcheck -m 64M -p 1",
            extra="debug.swap_verify = on\nswap.read_latency = 200us\n")
        cfg = cfg.replace("swap.device = ata\n",
                          f"swap.device = {srv.url()}\n")
        run = ctx.boot_cfg(cfg, cpus=2, timeout=1500,
                           extra=("--net", "e1000"))
    expect(run.status != 2, "the run hung until the timeout")
    run.expect_regex(r"^apfvisor: net: e1000 00:[0-9a-f]{2}\.0 is "
                     rf"10\.0\.2\.15/24, gateway {GATEWAY} \(dhcp\)$")
    dev = f"nbd {GATEWAY}:{srv.port}/"
    run.expect_regex(rf"^apfvisor: swap: {dev}, 512 MiB, \d+ pages, uuid ")
    run.expect_absent(MISMATCH_RE)
    run.expect_regex(r"^guest: memcheck: pass 1: wrote \d+ pages, "
                     r"mismatches 0$")
    run.expect_line("guest: memcheck: total mismatches 0")
    expect_swapped_cleanly(run)
    expect_swap_checks_clean(run)
    # The pages went over the network: every swap-in and swap-out is one
    # NBD request answered without error, none of them sent twice.
    ok = run.stat("nbd.reply.ok")
    moved = run.stat("swap.ins") + run.stat("swap.outs")
    expect(ok >= moved, f"{ok} NBD replies for {moved} swap-ins and -outs")
    run.expect_stat("nbd.connections_lost", 0)
    run.expect_stat("nbd.protocol_errors", 0)
    # Async PF ran over it: tokens, each answered.
    run.expect_stat_at_least("apf.vcpus_enabled", 1)
    sent, ready = run.stat("apf.not_present"), run.stat("apf.page_ready")
    expect(sent > 0, "the kernel got no 'page not present'")
    expect(sent == ready, f"tokens sent {sent} != page-ready {ready}")
