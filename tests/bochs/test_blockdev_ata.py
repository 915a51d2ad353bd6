# SPDX-License-Identifier: BSD-2-Clause
"""The ATA swap-disk driver (swap/drivers/ata.c) in Bochs, which has no virtio: no
guest, debug.blockdev_selftest = on, the swap image attached by
tools/bochs-run --swap as ata0-slave (the ESP is ata0-master). A formatted
image passes the driver self-test with its data at the right offsets of the
image afterwards; an unformatted image is refused without a byte written;
without a swap disk the probe finds nothing (ata0-slave absent, ata1 a
floating bus) and says nothing itself."""

import re
import struct
import subprocess

from lib import TOOLS, TestFailure, expect

CONFIG = """\
guest.kernel = hello.bin
debug.blockdev_selftest = on
swap.device = ata
"""
# PIO in Bochs: ~0.5 s of emulated time for the 4096 pages written and
# read; the whole run (OVMF boot included) takes ~15 s of wall time.
TIMEOUT = 180
PAGE = 4096
MIB = 1 << 20
SELFTEST_PAGES = 4096           # swap/blockdev_selftest.c
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
PREFIX = "apfvisor: blockdev selftest: "
ATA_LINE = (r'^apfvisor: ata0-slave: ATA disk "[^"]*", {sectors} sectors '
            r'\({mib} MiB\), LBA48, PIO$')


def format_image(path, size):
    """tools/apfswap-format PATH SIZE; returns the UUID it printed."""
    r = subprocess.run([str(TOOLS / "apfswap-format"), str(path), size],
                       stdin=subprocess.DEVNULL, capture_output=True,
                       text=True)
    m = re.search(rf"uuid ({UUID})$", r.stdout.strip())
    if r.returncode != 0 or not m:
        raise TestFailure(f"apfswap-format failed: {r.stderr.strip()}")
    return m[1]


def check_slots(data, nonce, pages):
    """Word w of slot s (at byte 4096 * (s + 1)) holds nonce << 32 |
    (s * 512 + w), as swap/blockdev_selftest.c writes it: the sectors went
    where the LBAs said."""
    for slot in (0, 1, 255, pages // 2 + 3, pages - 1):
        got = struct.unpack_from("<512Q", data, PAGE * (slot + 1))
        want = tuple(nonce << 32 | (slot * 512 + w) for w in range(512))
        expect(got == want, f"slot {slot} in the image does not hold the "
               "self-test pattern")
    after = PAGE * (pages + 1)
    expect(data[after:after + PAGE] == bytes(PAGE),
           f"slot {pages} (not tested) was written")


def test_ata_selftest(ctx):
    image = ctx.workdir / "swap.img"
    uuid = format_image(image, "64M")
    header = image.read_bytes()[:PAGE]
    run = ctx.boot_cfg(CONFIG, swap=image, timeout=TIMEOUT)
    run.expect_regex(ATA_LINE.format(sectors=131072, mib=64))
    run.expect_line(f"apfvisor: swap: ata0-slave, 64 MiB, 16383 pages, "
                    f"uuid {uuid}")
    m = run.expect_regex(rf"^{PREFIX}ata0-slave, {SELFTEST_PAGES} pages "
                         r"from slot 0, (\d+) in flight, nonce "
                         r"0x([0-9a-f]{8})$")
    expect(int(m[1]) > 1, f"expected several requests in flight: {m[0]}")
    run.expect_line(f"{PREFIX}wrote {SELFTEST_PAGES} pages, read "
                    f"{SELFTEST_PAGES} pages, mismatches 0, errors 0")
    run.expect_line(f"{PREFIX}PASS")
    run.expect_order(r"^apfvisor: ata0-slave: ATA disk ",
                     r"^apfvisor: swap: ", rf"^{PREFIX}wrote ",
                     rf"^{PREFIX}PASS$", r"^apfvisor: done$")
    run.expect_absent(r"^apfvisor: error:")
    run.expect_absent(r"^apfvisor: ata0-slave: .* failed")
    run.expect_status(0)
    data = image.read_bytes()
    expect(len(data) == 64 * MIB, "the image changed size")
    expect(data[:PAGE] == header, "the header page changed")
    check_slots(data, int(m[2], 16), SELFTEST_PAGES)


def test_ata_unformatted(ctx):
    image = ctx.workdir / "zeros.img"
    with open(image, "wb") as f:
        f.truncate(16 * MIB)
    run = ctx.boot_cfg(CONFIG, swap=image, timeout=TIMEOUT)
    run.expect_regex(ATA_LINE.format(sectors=32768, mib=16))
    run.expect_line("apfvisor: error: swap: ata0-slave: no apfvisor swap "
                    "header (magic missing): format it with "
                    "tools/apfswap-format")
    run.expect_absent(r"^apfvisor: swap: ")
    run.expect_absent(rf"^{PREFIX}")
    run.expect_line("apfvisor: done")
    run.expect_status(1)
    data = image.read_bytes()
    expect(len(data) == 16 * MIB and data.count(0) == len(data),
           "the unformatted image is no longer all zeros: apfvisor wrote "
           "to a disk without a swap header")


def test_ata_no_disk(ctx):
    run = ctx.boot_cfg(CONFIG, timeout=TIMEOUT)
    run.expect_line("apfvisor: error: swap: no swap device found "
                    "(swap.device = ata): attach one "
                    "(tools/*-run --swap IMAGE)")
    # ata_probe itself is silent when there is no disk.
    run.expect_absent(r"^apfvisor: (error: )?ata\d-")
    run.expect_line("apfvisor: done")
    run.expect_status(1)
