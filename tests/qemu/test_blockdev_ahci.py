# SPDX-License-Identifier: BSD-2-Clause
"""The AHCI driver under QEMU TCG (debug.blockdev_selftest = on, no guest):
the swap image on port 2 of q35's built-in AHCI (tools/qemu-run
--swap-kind ahci), the ESP apfvisor was loaded from on port 0 of the same
controller. A formatted image must pass the self-test with the data at the
right offsets afterwards; an unformatted and a too-small one must be
refused with their exact lines without a byte written; a read error that
QEMU injects must be reported, fail that page alone and leave the port
working; and the ESP image must be the same after every run (apfvisor
never touches the boot port).
The helpers are those of the virtio-blk tests (test_blockdev.py)."""

import hashlib
import re

import test_blockdev as vblk
from lib import expect

AHCI = ("--swap-kind", "ahci")
DEV = "ahci 00:1f.2 port2"
DISK_LINE = (f"apfvisor: {DEV}: ATA disk \"QEMU HARDDISK\", {{sectors}} "
             "sectors ({mib} MiB), LBA48, NCQ, 32 slots")


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def boot(ctx, device, swap, extra=()):
    """Boots the self-test from a ready ESP image and checks that the run
    left it as it was."""
    text = vblk.config(device)
    esp = ctx.esp_image(text)
    before = digest(esp)
    run = ctx.boot_cfg(text, swap=swap, timeout=vblk.TIMEOUT,
                       extra=AHCI + tuple(extra), esp_image=esp)
    expect(digest(esp) == before, "the ESP image changed: apfvisor wrote "
           "to the boot disk")
    run.expect_absent(r"ahci 00:1f\.2 port0")
    return run


def selftest(ctx, device):
    image = ctx.workdir / "swap.img"
    uuid = vblk.format_image(image, "64M")
    header = image.read_bytes()[:vblk.PAGE]
    run = boot(ctx, device, image)
    run.expect_line(DISK_LINE.format(sectors=131072, mib=64))
    run.expect_line(f"apfvisor: swap: {DEV}, 64 MiB, 16383 pages, uuid "
                    f"{uuid}")
    nonce = vblk.expect_selftest_pass(run, DEV)
    run.expect_absent(r"^apfvisor: error:")
    run.expect_status(0)
    data = image.read_bytes()
    expect(data[:vblk.PAGE] == header, "the header page changed")
    vblk.check_slots_on_disk(data, nonce, vblk.SELFTEST_PAGES)


def test_blockdev_ahci_selftest(ctx):
    selftest(ctx, "ahci")


def test_blockdev_ahci_auto(ctx):
    """swap.device = auto finds the AHCI disk (no virtio disk there)."""
    selftest(ctx, "auto")


def test_blockdev_ahci_unformatted(ctx):
    image = ctx.workdir / "zeros.img"
    with open(image, "wb") as f:
        f.truncate(16 * vblk.MIB)
    run = boot(ctx, "ahci", image)
    run.expect_line(DISK_LINE.format(sectors=32768, mib=16))
    vblk.expect_refused(run, rf"^apfvisor: error: swap: {DEV}: no apfvisor "
                        r"swap header \(magic missing\): format it with "
                        r"tools/apfswap-format$")
    data = image.read_bytes()
    expect(len(data) == 16 * vblk.MIB and data.count(0) == len(data),
           "the unformatted image is no longer all zeros: apfvisor wrote "
           "to a disk without a swap header")


def test_blockdev_ahci_too_small(ctx):
    """A valid header for 31 slots, found by auto."""
    image = ctx.workdir / "small.img"
    size = 32 * vblk.PAGE
    contents = vblk.header_bytes(size, 31) + bytes(size - vblk.PAGE)
    image.write_bytes(contents)
    run = boot(ctx, "auto", image)
    vblk.expect_refused(run, rf"^apfvisor: error: swap: {DEV}: swap area "
                        r"too small: 31 pages, at least 256 needed$")
    expect(image.read_bytes() == contents, "the too-small image changed")


# QEMU's blkdebug fails every read of sector 800: slot 99 (page 100).
READ_ERROR_RULES = """\
[inject-error]
event = "read_aio"
iotype = "read"
errno = "5"
sector = "800"
once = "off"
"""


def test_blockdev_ahci_read_error(ctx):
    """QEMU's AHCI turns the injected EIO into a task-file error (TFES,
    ABRT) on the NCQ read: one error line from the driver, the read of
    slot 99 failed, every other page written and read back, no hang."""
    image = ctx.workdir / "swap.img"
    vblk.format_image(image, "64M")
    rules = ctx.workdir / "blkdebug.conf"
    rules.write_text(READ_ERROR_RULES)
    run = boot(ctx, "ahci", image, ("--swap-blkdebug", str(rules)))
    m = run.expect_regex(rf"^apfvisor: error: {DEV}: (\d+) commands? "
                         r"failed: command aborted \(ABRT\) \(PxIS "
                         r"0x4[0-9a-f]{7}, PxTFD 0x000004[0-9a-f]{2}, "
                         r"PxSERR 0x[0-9a-f]{8}\)$")
    failed = int(m[1])
    expect(1 <= failed <= 32, f"{failed} commands failed at once")
    # The injected error hits slot 99 (sector 800); the HBA fails every
    # command in flight with it (up to 32 at once), and the self-test
    # names the first three failures in the order they complete. Slots
    # are submitted in order but complete out of order, so a slot in
    # flight with 99 can be more than 31 away from it (CI saw [130, 99,
    # 131]: slot 100 had completed, freeing a tag for 131): the bound is
    # two queue depths, and slot 99 itself is named when at most three
    # failed.
    named = [int(m[1]) for m in (
        re.match(r"^apfvisor: error: blockdev selftest: read of slot (\d+) "
                 r"failed \(blk_status 1\)$", l) for l in run.lines) if m]
    expect(named, "no 'read of slot N failed' line")
    expect(len(named) == min(failed, 3) and len(set(named)) == len(named),
           f"failed reads named {named} for {failed} failed commands")
    expect(failed > 3 or 99 in named,
           f"failed reads named {named}: slot 99 (the injected error) "
           "is not among them")
    expect(all(abs(n - 99) < 64 for n in named),
           f"failed reads named {named}: not all near slot 99")
    run.expect_line(f"{vblk.PREFIX}wrote {vblk.SELFTEST_PAGES} pages, read "
                    f"{vblk.SELFTEST_PAGES - failed} pages, mismatches 0, "
                    f"errors {failed}")
    run.expect_line(f"{vblk.PREFIX}FAIL")
    run.expect_line("apfvisor: done")
    run.expect_status(1)
