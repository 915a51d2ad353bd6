# SPDX-License-Identifier: BSD-2-Clause
"""Memory overcommit: the Linux guest with 256 MiB of RAM on 64 MiB of host
frames, its pages evicted to a swap area on the ATA disk Bochs provides,
runs memcheck (a per-page pattern of page and pass number, written and read
back over most of its RAM, several passes): nothing may be lost."""

import re
import subprocess
from pathlib import Path

from lib import cases, expect

REPO = Path(__file__).resolve().parent.parent.parent
LINUX_CFG = REPO / "guest" / "linux.cfg"
# 160 MiB, not the 200 of the issue: in a 256 MiB guest the stock kernel and
# the initramfs leave ~176 MiB, and memcheck -m 200M is OOM-killed there
# (seen in Bochs and in QEMU without apfvisor alike).
MEMCHECK = "memcheck -m 160M -p 3"


def overcommitted_cfg(vcpus):
    text = LINUX_CFG.read_text()
    text = re.sub(r'apfvisor\.run="[^"]*"', f'apfvisor.run="{MEMCHECK}"',
                  text)
    return text + (f"\nguest.vcpus = {vcpus}\nhost.guest_frames = 64M\n"
                   "swap.device = ata\n")


def formatted_swap(ctx, name, size="512M"):
    image = ctx.workdir / name
    subprocess.run([str(REPO / "tools" / "apfswap-format"), str(image), size],
                   check=True, stdout=subprocess.DEVNULL)
    return image


@cases(cpus=(1, 2))
def test_memcheck_overcommitted(ctx, cpus):
    # With 2 host CPUs the boot CPU runs the daemon, the AP the vCPU.
    run = ctx.boot_cfg(overcommitted_cfg(1), cpus=cpus, timeout=1500,
                       swap=formatted_swap(ctx, "swap.img"))
    run.expect_regex(r"^apfvisor: swap: ata0-slave, 512 MiB, \d+ pages, "
                     r"uuid [0-9a-f-]{36}$")
    run.expect_line("apfvisor: config: guest.kernel=vmlinuz guest.memory=256 "
                    "MiB host.guest_frames=64 MiB guest.vcpus=1")
    for p in (1, 2, 3):
        run.expect_regex(rf"^guest: memcheck: pass {p}: wrote \d+ pages, "
                         r"mismatches 0$")
    run.expect_line("guest: memcheck: total mismatches 0")
    run.expect_line("guest: apfvisor-guest: command exited with status 0")
    run.expect_line("apfvisor: guest powered off")
    run.expect_absent(r"^apfvisor: error:")
    run.expect_absent(r"^guest: .*(Out of memory|Killed process|Call Trace)")
    # More guest memory was used than the host backs: pages went both ways.
    run.expect_stat_at_least("swap.outs", 10000)
    run.expect_stat_at_least("swap.ins", 10000)
    run.expect_stat_at_least("swap.shootdowns", 1)
    expect(run.stat("swap.io_errors") == 0,
           f"expected no I/O errors, got {run.stat('swap.io_errors')}")
    expect(run.stat("frames.peak") <= 64 * 256,
           f"the guest used {run.stat('frames.peak')} frames, more than "
           "host.guest_frames = 64M allows")
    run.expect_status(0)
