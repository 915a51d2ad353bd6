# SPDX-License-Identifier: BSD-2-Clause
"""Guest RAM above the PCI hole: a guest of 6 GiB, laid out as on QEMU's PC
(3 GiB from 0, 3 GiB from 4 GiB), on a few MiB of host frames."""

from test_guests import GUESTS, MIB, PAGE, asm_constant_mib
from test_swap import formatted_swap

GIB = 1 << 30


def hex16(value):
    """A value as the test guests' print_hex writes it."""
    return f"0x{value:016x}"


def test_ramsplit_6g_overcommitted(ctx):
    # ramsplit (tests/guests/ramsplit.asm) touches one page every STRIDE
    # in both ranges, writes a pattern of its address, and reads it back
    # after its pages went to swap (4 MiB of frames for 6 GiB); then the
    # first address of the hole reads all ones (no RAM, no device).
    cfg = (GUESTS / "ramsplit.cfg").read_text()
    assert "guest.memory = 6G" in cfg and "host.guest_frames = 4M" in cfg
    stride = asm_constant_mib("ramsplit", "STRIDE") * MIB
    first = asm_constant_mib("ramsplit", "FIRST_PAGE") * MIB
    low_pages = (3 * GIB - first) // stride
    high_pages = 3 * GIB // stride
    last = 4 * GIB + 3 * GIB - stride
    run = ctx.boot_guest("ramsplit", cpus=1, timeout=1200,
                         swap=formatted_swap(ctx, "swap.img", "64M"))
    ctx.log(f"### wall time {run.wall:.1f} s")
    run.expect_line("apfvisor: config: guest.kernel=ramsplit.bin "
                    "guest.memory=6144 MiB host.guest_frames=4 MiB "
                    "guest.vcpus=1")
    run.expect_line("apfvisor: guest RAM: 3072 MiB from 0, 3072 MiB from "
                    "4 GiB (above the PCI hole, as on QEMU's PC)")
    run.expect_line(f"guest: ramsplit: RAM below the hole {hex16(3 * GIB)}"
                    f", from 4 GiB {hex16(3 * GIB)}")
    run.expect_line(f"guest: ramsplit: filled {low_pages} pages below "
                    f"4 GiB and {high_pages} above, the last at "
                    f"{hex16(last)}")
    run.expect_line(f"guest: ramsplit: checked {low_pages + high_pages} "
                    "pages, mismatches 0")
    run.expect_line(f"guest: ramsplit: the hole at {hex16(3 * GIB)} reads "
                    "all ones")
    run.expect_line("guest: ramsplit: PASS")
    run.expect_line("apfvisor: guest halted: test-exit code 0")
    run.expect_absent(r"FAIL")
    run.expect_absent(r"^apfvisor: error:")
    run.expect_stat("mmio.unclaimed", 1)
    # The touched pages did not fit in the frames: most went to swap after
    # the fill and came back for the check, high ones included.
    frames = 4 * MIB // PAGE
    floor = low_pages + high_pages - frames
    for name in ("swap.outs", "swap.ins"):
        run.expect_stat_at_least(name, floor)
        ctx.log(f"### {name} {run.stat(name)}")
    run.expect_stat("swap.read_failures", 0)
    run.expect_status(0)
