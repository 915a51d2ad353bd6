# SPDX-License-Identifier: BSD-2-Clause
"""Far memory under QEMU TCG (no guest, no VT-x: debug.blockdev_selftest):
the swap area is an NBD export served by nbdkit on this machine's
127.0.0.1, which the hypervisor reaches over QEMU's user-mode network
(the gateway 10.0.2.2) through its e1000 or virtio-net driver, lwIP and
its NBD client. The block self-test writes 4096 pages and reads them
back; the pages must then be in the served file at their slots' offsets
and the header untouched. A server that is not there, an export that
does not exist and a machine without a network card are each refused
with their one line.

Servers that misbehave (tests/harness/bad_nbd_server.py) test the
client's side of a broken connection: a reply to a cookie never sent is
refused for good, with one line, and the self-test fails instead of
waiting; a connection closed in the middle of a read's data, or after
some requests, is made again and the requests on it sent again, and the
self-test passes with the data right in the file."""

import re
import struct

from lib import expect
from bad_nbd_server import BadNbdServer, WRONG_COOKIE
from nbd_server import NbdServer, GATEWAY
from test_blockdev import (PREFIX, SELFTEST_PAGES, check_slots_on_disk,
                           expect_selftest_pass, format_image)

TIMEOUT = 240
# A run against a misbehaving server: it ends in ~15 s, or it hangs.
BAD_SERVER_TIMEOUT = 90
NBD_QUEUE_DEPTH = 32            # swap/drivers/nbd.h
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


# ------------------------------------------------ misbehaving servers


def boot_bad_server(ctx, mode, **opts):
    """The self-test over the e1000 against BadNbdServer(mode, **opts)
    serving a formatted 64 MiB image; returns the run, the server, the
    device's name, the image and its header page."""
    image = ctx.workdir / "swap.img"
    uuid = format_image(image, "64M")
    header = image.read_bytes()[:PAGE]
    with BadNbdServer(ctx.workdir, image, mode, **opts) as srv:
        run = ctx.boot_cfg(config(srv.url()), timeout=BAD_SERVER_TIMEOUT,
                           extra=("--net", "e1000"))
    expect(not srv.errors, f"the client broke the protocol: {srv.errors}")
    expect(srv.misbehaved, f"the {mode} server never misbehaved (see "
           f"{srv.log_path})")
    dev = f"nbd {GATEWAY}:{srv.port}/"
    run.expect_line(f"apfvisor: {dev}: connected, export of 64 MiB, flush")
    run.expect_line(f"apfvisor: swap: {dev}, 64 MiB, 16383 pages, "
                    f"uuid {uuid}")
    return run, srv, dev, image, header


def error_lines(run):
    return [l.rstrip() for l in run.lines
            if l.startswith("apfvisor: error: ")]


def check_reconnected(run, srv, dev, image, header, why):
    """One outage, said by one line (why the connection was lost); the
    connection made again with the requests on it sent again; the
    self-test passes, no error line, and its pages are in the file."""
    lost = f"apfvisor: {dev}: connection lost ({why}); connecting again"
    reconnected = (rf"^apfvisor: {re.escape(dev)}: connected again after "
                   r"\d+ ms; (\d+) request\(s\) sent again$")
    run.expect_line(lost)
    m = run.expect_regex(reconnected)
    expect(1 <= int(m[1]) <= NBD_QUEUE_DEPTH,
           f"expected 1 to {NBD_QUEUE_DEPTH} requests sent again: {m[0]}")
    nonce = expect_selftest_pass(run, dev)
    run.expect_order(rf"^{re.escape(lost)}$", reconnected,
                     rf"^{PREFIX}PASS$", r"^apfvisor: done$")
    outage = [l for l in run.lines if "connection lost" in l
              or "connected again" in l]
    expect(len(outage) == 2, f"expected one outage (2 lines), got: "
           f"{outage}")
    run.expect_absent(r"^apfvisor: error:")
    run.expect_status(0)
    expect(srv.connections == 2, f"expected 2 connections to the server, "
           f"got {srv.connections}")
    data = image.read_bytes()
    expect(data[:PAGE] == header, "the header page changed")
    check_slots_on_disk(data, nonce, SELFTEST_PAGES)


def test_nbd_wrong_cookie_refused(ctx):
    """After 100 good replies the server answers a cookie it was never
    sent, with the client's 32 requests in flight: one line naming the
    cookie, every request fails (those in flight, and every later one
    at once), the self-test says FAIL instead of waiting, and the
    server is not connected to again."""
    writes_ok = 100
    run, srv, dev, image, _ = boot_bad_server(
        ctx, "wrong-cookie", after=writes_ok, hold=NBD_QUEUE_DEPTH)
    refusal = (f"apfvisor: error: {dev}: reply for cookie {WRONG_COOKIE} "
               f"which is not in flight (error 0): the server is not used "
               f"again ({NBD_QUEUE_DEPTH} request(s) failed)")
    run.expect_line(refusal)
    m = run.expect_regex(rf"^{PREFIX}{re.escape(dev)}, {SELFTEST_PAGES} "
                         r"pages from slot 0, \d+ in flight, nonce "
                         r"0x([0-9a-f]{8})$")
    # The header's read came first: writes_ok - 1 writes went through.
    written = writes_ok - 1
    run.expect_line(f"{PREFIX}wrote {written} pages, read 0 pages, "
                    f"mismatches 0, errors {2 * SELFTEST_PAGES - written}")
    run.expect_line("apfvisor: error: blockdev selftest: the header page "
                    "could not be read back")
    run.expect_line(f"{PREFIX}FAIL")
    run.expect_order(rf"^{re.escape(refusal)}$", rf"^{PREFIX}wrote ",
                     rf"^{PREFIX}FAIL$", r"^apfvisor: done$")
    run.expect_absent(rf"^{PREFIX}PASS$")
    run.expect_absent(r"connection lost|connected again")
    nbd_lines = [l for l in error_lines(run) if l.startswith(
        f"apfvisor: error: {dev}:")]
    expect(nbd_lines == [refusal], f"expected one line of the NBD client, "
           f"got: {nbd_lines}")
    run.expect_status(1)
    expect(srv.connections == 1, f"the refused server was connected to "
           f"again ({srv.connections} connections)")
    # What the server answered is in the file, nothing after it.
    check_slots_on_disk(image.read_bytes(), int(m[1], 16), written)


def test_nbd_short_read_reconnects(ctx):
    """The server answers a read with 1000 of its 4096 bytes and closes:
    one line saying so, a new connection with the read sent again, and
    (the server sound again) the self-test passes."""
    run, srv, dev, image, header = boot_bad_server(
        ctx, "short-read", after=SELFTEST_PAGES + 100, short=1000)
    check_reconnected(run, srv, dev, image, header,
                      "the server closed the connection in the middle of "
                      "a read's data (1000 of 4096 bytes came)")


def test_nbd_drop_after_reconnects(ctx):
    """The server closes the connection after 1000 requests (in the
    self-test's writes): the writes on it are sent again on a new
    connection and land in the file."""
    run, srv, dev, image, header = boot_bad_server(ctx, "drop-after",
                                                   after=1000)
    check_reconnected(run, srv, dev, image, header,
                      "the server closed the connection")


def test_nbd_set_with_copies_and_a_spare(ctx):
    """Two servers with both copies of every page and a spare in reserve:
    the self-test passes over the set, each page is found in both served
    files where the layout puts its copies (copy k of data page d on
    server (d % 2 + k) % 2, at its page 1 + d // 2 * 2 + k), and the spare
    is connected, checked and left untouched."""
    images = [ctx.workdir / f"{n}.img" for n in ("a", "b", "spare")]
    for image in images:
        format_image(image, "64M")
    spare_before = images[2].read_bytes()
    with NbdServer(ctx.workdir, ["file", str(images[0])]) as a, \
            NbdServer(ctx.workdir, ["file", str(images[1])]) as b, \
            NbdServer(ctx.workdir, ["file", str(images[2])]) as c:
        run = ctx.boot_cfg(
            config(f"{a.url()}, {b.url()}",
                   f"swap.replicas = 2\nswap.spare = {c.url()}\n"),
            timeout=TIMEOUT, extra=("--net", "e1000"))
    run.expect_line(f"apfvisor: swap: spare: nbd {GATEWAY}:{c.port}/, in "
                    "reserve")
    run.expect_regex(r"^apfvisor: swap: stripe of 2, 2 copies, 63 MiB, "
                     r"16382 pages, uuid ")
    nonce = expect_selftest_pass(run, "stripe of 2, 2 copies")
    run.expect_absent(r"^apfvisor: error:")
    run.expect_status(0)
    data = [images[0].read_bytes(), images[1].read_bytes()]
    for d in (0, 1, 2, 3, SELFTEST_PAGES - 1):
        want = struct.pack("<512Q", *(nonce << 32 | (d * 512 + w)
                                      for w in range(512)))
        for k in (0, 1):
            page = 1 + d // 2 * 2 + k
            got = data[(d % 2 + k) % 2][PAGE * page:PAGE * (page + 1)]
            expect(got == want, f"copy {k} of data page {d} is not where "
                   "the layout puts it")
    expect(images[2].read_bytes() == spare_before,
           "the spare was written to while every server was there")
