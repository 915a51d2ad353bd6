# SPDX-License-Identifier: BSD-2-Clause
"""Guest images apfvisor refuses before it touches VT-x: the format is
recognised and a Linux kernel's layout planned first, so these refusals
read the same on any machine and are tested here in QEMU, where the CPU
has no VT-x (a refusal must come before the VT-x check's error)."""

import re
from pathlib import Path

from lib import expect

REPO = Path(__file__).resolve().parent.parent.parent
LINUX_CFG = REPO / "guest" / "linux.cfg"
VTX_CHECK = r"^apfvisor: error: VT-x is not supported"


def expect_refused_before_vtx(run):
    run.expect_line("apfvisor: exiting to firmware with status "
                    "EFI_LOAD_ERROR")
    run.expect_absent(VTX_CHECK)
    run.expect_absent(r"^guest: ")
    run.expect_status(1)


def test_linux_guest_memory_too_small(ctx):
    """A kernel that does not fit in guest.memory: the figure it needs is
    the loader's, and the guest memory is the config's."""
    megs = 64
    text = LINUX_CFG.read_text()
    expect(re.search(r"(?m)^guest\.memory = \d+M$", text),
           f"{LINUX_CFG} has no guest.memory line to change")
    text = re.sub(r"(?m)^guest\.memory = \d+M$", f"guest.memory = {megs}M",
                  text)
    run = ctx.boot_cfg(text, timeout=180)
    m = run.expect_regex(rf"^apfvisor: error: guest\.kernel 'vmlinux': "
                         rf"guest\.memory \({megs} MiB\) is too small for "
                         rf"this kernel: it needs at least (\d+) MiB")
    expect(int(m[1]) > megs, f"it needs {m[1]} MiB, more than {megs}?")
    expect_refused_before_vtx(run)


def test_image_format_told_not_guessed(ctx):
    # A flat test guest without guest.format = flat is refused with what
    # it looks like (it used to run as flat whatever it was), and so is a
    # file that is not what guest.format says.
    run = ctx.boot_cfg("guest.kernel = hello.bin\n", timeout=120)
    run.expect_regex(r"^apfvisor: error: guest\.kernel 'hello\.bin' is not "
                     r"a bzImage, a multiboot image or an ELF kernel: no "
                     r"known header \(first bytes [0-9a-f]{2} [0-9a-f]{2} "
                     r"[0-9a-f]{2} [0-9a-f]{2}\) \(a flat test guest needs "
                     r"guest\.format = flat\)$")
    expect_refused_before_vtx(run)
    run = ctx.boot_cfg("guest.kernel = hello.bin\nguest.format = bzimage\n",
                       timeout=120)
    run.expect_regex(r"^apfvisor: error: guest\.kernel 'hello\.bin' is not "
                     r"a bzImage \(guest\.format = bzimage\): no known "
                     r"header ")
    expect_refused_before_vtx(run)



def test_replay_needs_its_fault_list(ctx):
    # swap.prefetch = replay reads swap.prefetch_trace from the ESP with
    # the guest's images: without one, or with one that is not there, the
    # run stops with one line before VT-x is looked at.
    base = "guest.kernel = hello.bin\nguest.format = flat\n"
    run = ctx.boot_cfg(base + "swap.prefetch = replay\n", timeout=120)
    run.expect_line("apfvisor: error: apfvisor.cfg: swap.prefetch = replay "
                    "needs swap.prefetch_trace (a fault list: tools/apftrace "
                    "--extract-faults)")
    run.expect_absent(VTX_CHECK)
    run.expect_status(1)
    run = ctx.boot_cfg(base + "swap.prefetch = replay\n"
                       "swap.prefetch_trace = faults.txt\n", timeout=120)
    run.expect_regex(r"^apfvisor: error: apfvisor\.cfg: swap\.prefetch_trace"
                     r": cannot read 'faults\.txt' \(EFI_NOT_FOUND\)$")
    run.expect_absent(VTX_CHECK)
    run.expect_status(1)
