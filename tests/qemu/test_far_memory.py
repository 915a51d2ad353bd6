# SPDX-License-Identifier: BSD-2-Clause
"""Far memory under QEMU TCG (no guest, no VT-x: debug.blockdev_selftest):
the swap area is an NBD export served by nbdkit on this machine's
127.0.0.1, which the hypervisor reaches over QEMU's user-mode network
(the gateway 10.0.2.2) through its e1000 or virtio-net driver, lwIP and
its NBD client. The block self-test writes 4096 pages and reads them
back; the pages must then be in the served file at their slots' offsets
and the header untouched. A server that is not there, an export that
does not exist and a machine without a network card are each refused
with their one line."""

import re

from lib import expect
from nbd_server import NbdServer, GATEWAY
from test_blockdev import (PREFIX, SELFTEST_PAGES, check_slots_on_disk,
                           expect_selftest_pass, format_image)

TIMEOUT = 240
MIB = 1 << 20
PAGE = 4096
MAC = r"([0-9a-f]{2}:){5}[0-9a-f]{2}"
PCI = r"[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]"
CONFIG = """\
guest.kernel = hello.bin
debug.blockdev_selftest = on
swap.device = {device}
{extra}"""


def config(device, extra=""):
    return CONFIG.format(device=device, extra=extra)


def check_nbd_selftest(ctx, nic, qemu_nic, net_lines="", how="dhcp"):
    """The self-test over nbd://10.0.2.2:PORT/ through the card nic
    ("e1000", "virtio-net"), attached as qemu-run --net qemu_nic."""
    image = ctx.workdir / "swap.img"
    uuid = format_image(image, "64M")
    header = image.read_bytes()[:PAGE]
    with NbdServer(ctx.workdir, ["file", str(image)]) as srv:
        run = ctx.boot_cfg(config(srv.url(), net_lines), timeout=TIMEOUT,
                           extra=("--net", qemu_nic))
    run.expect_regex(rf"^apfvisor: net: {nic} {PCI}, MAC {MAC}, link up$")
    run.expect_regex(rf"^apfvisor: net: {nic} {PCI} is 10\.0\.2\.15/24, "
                     rf"gateway {re.escape(GATEWAY)} \({how}\)$")
    dev = f"nbd {GATEWAY}:{srv.port}/"
    run.expect_line(f"apfvisor: {dev}: connected, export of 64 MiB, flush")
    run.expect_line(f"apfvisor: swap: {dev}, 64 MiB, 16383 pages, "
                    f"uuid {uuid}")
    nonce = expect_selftest_pass(run, dev)
    run.expect_order(r"^apfvisor: net: .* is 10\.0\.2\.15",
                     r"^apfvisor: swap: nbd ", rf"^{PREFIX}PASS$",
                     r"^apfvisor: done$")
    run.expect_absent(r"^apfvisor: error:")
    run.expect_status(0)
    data = image.read_bytes()
    expect(data[:PAGE] == header, "the header page changed")
    check_slots_on_disk(data, nonce, SELFTEST_PAGES)
    return run


def test_nbd_selftest_e1000(ctx):
    check_nbd_selftest(ctx, "e1000", "e1000")


def test_nbd_selftest_virtio_net_static(ctx):
    check_nbd_selftest(ctx, "virtio-net", "virtio",
                       "net.address = 10.0.2.15/24\n"
                       "net.gateway = 10.0.2.2\n", how="static")


def test_nbd_refusals(ctx):
    """Nobody listening, an export the server does not have, no card:
    each its one line, and nothing else is tried."""
    image = ctx.workdir / "swap.img"
    format_image(image, "16M")
    nobody = NbdServer(ctx.workdir, []).port      # a port nothing binds
    run = ctx.boot_cfg(config(f"nbd://{GATEWAY}:{nobody}/"),
                       timeout=TIMEOUT, extra=("--net", "e1000"))
    run.expect_line(f"apfvisor: error: swap: nbd: {GATEWAY}:{nobody}: the "
                    "server refused or reset the connection")
    run.expect_absent(r"^apfvisor: blockdev selftest: ")
    run.expect_status(1)

    with NbdServer(ctx.workdir, ["file", str(image),
                                 "exportname=swap", "exportname-strict=true"],
                   filters=["exportname"]) as srv:
        run = ctx.boot_cfg(config(srv.url("other")), timeout=TIMEOUT,
                           extra=("--net", "virtio"))
    run.expect_regex(rf"^apfvisor: error: swap: nbd: {GATEWAY}:{srv.port}: "
                     r".*'other'.*NBD_REP_ERR_UNKNOWN")
    run.expect_absent(r"^apfvisor: blockdev selftest: ")
    run.expect_status(1)

    run = ctx.boot_cfg(config(f"nbd://{GATEWAY}:10809/"), timeout=TIMEOUT)
    run.expect_line("apfvisor: error: net: no network card found (e1000 or "
                    "virtio-net): attach one (tools/qemu-run --net, "
                    "tools/bochs-run --net)")
    run.expect_absent(r"^apfvisor: blockdev selftest: ")
    run.expect_status(1)
