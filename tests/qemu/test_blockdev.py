# SPDX-License-Identifier: BSD-2-Clause
"""The swap device and its virtio-blk driver under QEMU TCG (no guest, no
VT-x needed: debug.blockdev_selftest = on). A formatted image must pass the
driver self-test, with the data found at the right offsets of the image
afterwards and the header untouched; a missing disk, an unformatted disk, a
too-small swap area and a header for a larger disk must each be refused
with their exact line, without a single byte written.

The header is also built here in Python from the layout documented in
swap/swap_format.h (an independent implementation: the too-small image
cannot be made with the tool, which refuses it) and the tool's output is
checked against that layout."""

import json
import re
import struct
import subprocess
import threading
import zlib

from lib import TOOLS, TestFailure, expect

FORMAT_TOOL = TOOLS / "apfswap-format"
CONFIG = """\
guest.kernel = hello.bin
debug.blockdev_selftest = on
swap.device = {device}
"""
TIMEOUT = 180
PAGE = 4096
MIB = 1 << 20
SELFTEST_PAGES = 4096
DEV = r"virtio-blk [0-9a-f]{2}:[0-9a-f]{2}\.[0-7]"
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
PREFIX = "apfvisor: blockdev selftest: "

_tool_lock = threading.Lock()


def config(device):
    return CONFIG.format(device=device)


def format_image(path, size):
    """tools/apfswap-format PATH SIZE; returns the UUID it printed. The
    wrapper may build the tool: one test at a time."""
    with _tool_lock:
        r = subprocess.run([str(FORMAT_TOOL), str(path), size],
                           stdin=subprocess.DEVNULL, capture_output=True,
                           text=True)
    if r.returncode != 0:
        raise TestFailure(f"apfswap-format failed: {r.stderr.strip()}")
    m = re.search(rf"uuid ({UUID})$", r.stdout.strip())
    if not m:
        raise TestFailure(f"apfswap-format printed no uuid: {r.stdout!r}")
    return m[1]


def header_bytes(device_size, pages, uuid=bytes(range(16)), version=1):
    """A header as swap/swap_format.h lays it out: little-endian fields,
    CRC-32 (zlib's) over the 4096 bytes with the CRC field zero."""
    h = bytearray(PAGE)
    h[0:8] = b"APFVSWAP"
    struct.pack_into("<IIQQ", h, 8, version, PAGE, device_size, pages)
    h[32:48] = uuid
    struct.pack_into("<I", h, 48, zlib.crc32(bytes(h)))
    return bytes(h)


def check_tool_header(image, size, uuid):
    """The tool wrote the documented layout, field by field."""
    data = image.read_bytes()[:PAGE]
    uuid_bytes = bytes.fromhex(uuid.replace("-", ""))
    want = header_bytes(size, size // PAGE - 1, uuid_bytes)
    expect(data == want, "the header tools/apfswap-format wrote differs "
           "from the layout of swap/swap_format.h")


def slot_words(data, slot):
    return struct.unpack_from("<512Q", data, PAGE * (slot + 1))


def check_slots_on_disk(data, nonce, pages):
    """Word w of slot s holds nonce << 32 | (s * 512 + w) (see
    swap/blockdev_selftest.c); the slot after the last tested one is still
    zero (the image was sparse)."""
    for slot in (0, 1, pages // 2, pages - 1):
        want = tuple(nonce << 32 | (slot * 512 + w) for w in range(512))
        expect(slot_words(data, slot) == want,
               f"slot {slot} in the image does not hold the self-test "
               "pattern")
    after = PAGE * (pages + 1)
    expect(data[after:after + PAGE] == bytes(PAGE),
           f"slot {pages} (not tested) was written")


def expect_refused(run, line_re):
    """One error line, no self-test, a failed run."""
    run.expect_regex(line_re)
    run.expect_absent(r"^apfvisor: swap: ")
    run.expect_absent(r"^apfvisor: blockdev selftest: ")
    run.expect_line("apfvisor: done")
    run.expect_status(1)


def expect_selftest_pass(run, dev):
    """The self-test's lines for a device found as dev, several requests in
    flight, every page verified; returns the run's nonce."""
    m = run.expect_regex(rf"^{PREFIX}{re.escape(dev)}, {SELFTEST_PAGES} "
                         r"pages from slot 0, (\d+) in flight, nonce "
                         r"0x([0-9a-f]{8})$")
    expect(int(m[1]) > 1, f"expected several requests in flight: {m[0]}")
    run.expect_line(f"{PREFIX}wrote {SELFTEST_PAGES} pages, read "
                    f"{SELFTEST_PAGES} pages, mismatches 0, errors 0")
    run.expect_line(f"{PREFIX}PASS")
    return int(m[2], 16)


def check_selftest(ctx, device, dev_re, extra=()):
    """A formatted 64 MiB image on the disk swap.device = device finds
    (its name matches dev_re; extra: how qemu-run attaches it) passes the
    self-test, its pages land in their slots, the header stays. Returns
    the run."""
    image = ctx.workdir / "swap.img"
    uuid = format_image(image, "64M")
    check_tool_header(image, 64 * MIB, uuid)
    header = image.read_bytes()[:PAGE]
    run = ctx.boot_cfg(config(device), swap=image, timeout=TIMEOUT,
                       extra=extra)
    dev = run.expect_regex(rf"^apfvisor: swap: ({dev_re}), 64 MiB, 16383 "
                           rf"pages, uuid {uuid}$")[1]
    nonce = expect_selftest_pass(run, dev)
    run.expect_order(r"^apfvisor: swap: ", rf"^{PREFIX}wrote ",
                     rf"^{PREFIX}PASS$", r"^apfvisor: done$")
    run.expect_absent(r"^apfvisor: error:")
    run.expect_status(0)
    data = image.read_bytes()
    expect(data[:PAGE] == header, "the header page changed")
    check_slots_on_disk(data, nonce, SELFTEST_PAGES)
    return run


def check_unformatted(ctx, device, dev_re, extra=()):
    """An all-zero disk is refused and stays all zeros."""
    image = ctx.workdir / "zeros.img"
    with open(image, "wb") as f:
        f.truncate(16 * MIB)
    run = ctx.boot_cfg(config(device), swap=image, timeout=TIMEOUT,
                       extra=extra)
    expect_refused(run, rf"^apfvisor: error: swap: {dev_re}: no apfvisor "
                   r"swap header \(magic missing\): format it with "
                   r"tools/apfswap-format$")
    data = image.read_bytes()
    expect(len(data) == 16 * MIB and data.count(0) == len(data),
           "the unformatted image is no longer all zeros: apfvisor wrote "
           "to a disk without a swap header")


def check_too_small(ctx, dev_re, extra=()):
    """A valid header for 31 slots (the tool refuses to make one), found
    by swap.device = auto, is refused and left as it was."""
    image = ctx.workdir / "small.img"
    size = 32 * PAGE
    contents = header_bytes(size, 31) + bytes(size - PAGE)
    image.write_bytes(contents)
    run = ctx.boot_cfg(config("auto"), swap=image, timeout=TIMEOUT,
                       extra=extra)
    expect_refused(run, rf"^apfvisor: error: swap: {dev_re}: swap area too "
                   r"small: 31 pages, at least 256 needed$")
    expect(image.read_bytes() == contents, "the too-small image changed")


def test_blockdev_selftest(ctx):
    check_selftest(ctx, "virtio-blk", DEV)


def test_blockdev_no_device(ctx):
    run = ctx.boot_cfg(config("auto"), timeout=TIMEOUT)
    expect_refused(run, r"^apfvisor: error: swap: no swap device found "
                   r"\(swap\.device = auto\): attach one "
                   r"\(tools/\*-run --swap IMAGE\)$")


def test_blockdev_unformatted(ctx):
    check_unformatted(ctx, "virtio-blk", DEV)


def test_blockdev_too_small(ctx):
    check_too_small(ctx, DEV)


def test_blockdev_device_smaller_than_header(ctx):
    """A 64 MiB area cut to 32 MiB: its last slots are gone."""
    image = ctx.workdir / "cut.img"
    format_image(image, "64M")
    with open(image, "r+b") as f:
        f.truncate(32 * MIB)
    contents = image.read_bytes()
    run = ctx.boot_cfg(config("virtio-blk"), swap=image, timeout=TIMEOUT)
    expect_refused(run, rf"^apfvisor: error: swap: {DEV}: swap header says "
                   r"67108864 bytes but the device has 33554432 bytes$")
    expect(image.read_bytes() == contents, "the cut image changed")


def test_trace_of_the_selftest(ctx):
    # trace = on over virtio-blk in QEMU (no VT-x: the self-test's I/O is
    # what gets traced): qemu-run --trace attaches a second virtio disk,
    # apfvisor tells the trace disk from the swap disk by its header,
    # writes the trace there at the end, and qemu-run copies it out.
    image = ctx.workdir / "swap.img"
    format_image(image, "64M")
    trace = ctx.workdir / "selftest.apft"
    run = ctx.boot_cfg(config("virtio-blk") + "trace = on\n", swap=image,
                       timeout=TIMEOUT, extra=("--trace", str(trace)))
    swap_dev = run.expect_regex(rf"^apfvisor: swap: ({DEV}), 64 MiB, ")[1]
    trace_dev = run.expect_regex(rf"^apfvisor: trace: trace disk ({DEV}), "
                                 r"64 MiB$")[1]
    expect(swap_dev != trace_dev, f"swap and trace on one disk {swap_dev}")
    run.expect_line("apfvisor: trace: recording, 1 ring of 4096 KiB, stop "
                    "when full")
    run.expect_line(f"{PREFIX}PASS")
    m = run.expect_regex(r"^apfvisor: trace: (\d+) records \(0 lost\) in "
                         rf"(\d+) bytes on {re.escape(trace_dev)}$")
    # Each page written and read: a submit and a done record.
    expect(int(m[1]) == 4 * SELFTEST_PAGES,
           f"{m[1]} records for {SELFTEST_PAGES} pages written and read")
    expect(trace.stat().st_size == int(m[2]),
           f"{trace} has {trace.stat().st_size} bytes, apfvisor wrote {m[2]}")
    run.expect_status(0)
    r = subprocess.run([str(TOOLS / "apftrace"), "--summary", "--json",
                        str(trace)], capture_output=True, text=True)
    expect(r.returncode == 0, f"apftrace: {r.stderr.strip()}")
    summary = json.loads(r.stdout)
    events = summary["events"]
    for name in ("swap_out_submit", "swap_out_done", "swap_in_submit",
                 "swap_in_done"):
        expect(events.get(name) == SELFTEST_PAGES,
               f"{events.get(name)} {name} events, {SELFTEST_PAGES} pages")
    expect(summary["swap_in"]["count"] == SELFTEST_PAGES,
           f"swap-in latencies: {summary['swap_in']}")
    expect(summary["config"].get("debug.blockdev_selftest") == "on",
           f"the trace's config: {summary['config']!r}")
