# SPDX-License-Identifier: BSD-2-Clause
"""The NVMe driver under QEMU TCG (debug.blockdev_selftest = on, no guest):
the same checks tests/qemu/test_blockdev.py makes of virtio-blk, on
namespace 1 of QEMU's NVMe controller (tools/qemu-run --swap-kind nvme,
512-byte LBAs, or nvme-4k). A formatted namespace passes the self-test
with several commands in flight and its pages at the right offsets; an
unformatted and a too-small one are refused with their exact lines,
nothing written."""

from test_blockdev import check_selftest, check_too_small, check_unformatted

DEV = r"nvme [0-9a-f]{2}:[0-9a-f]{2}\.[0-7] ns1"
NVME = ("--swap-kind", "nvme")


def selftest(ctx, kind, lba_size):
    run = check_selftest(ctx, "nvme", DEV, ("--swap-kind", kind))
    run.expect_regex(rf"^apfvisor: {DEV}: QEMU NVMe Ctrl, 64 MiB in "
                     rf"{lba_size}-byte LBAs, 63 commands in flight$")


def test_blockdev_nvme_selftest(ctx):
    selftest(ctx, "nvme", 512)


def test_blockdev_nvme_4k_selftest(ctx):
    selftest(ctx, "nvme-4k", 4096)


def test_blockdev_nvme_unformatted(ctx):
    check_unformatted(ctx, "nvme", DEV, NVME)


def test_blockdev_nvme_too_small(ctx):
    check_too_small(ctx, DEV, NVME)
