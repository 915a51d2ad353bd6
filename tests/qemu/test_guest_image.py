# SPDX-License-Identifier: BSD-2-Clause
"""The default Linux guest image (`make guest`: build/guests/vmlinuz and
initrd.img) booted straight in QEMU TCG with -kernel, without apfvisor or
firmware: /init must load the image's kernel modules, run the command given
as apfvisor.run="..." and power the machine off. The kernel gets
guest/linux.cfg's command line, with the test's own apfvisor.run=. Also:
what the initramfs holds (read from the cpio), and apfvisor's config
parser accepts guest/linux.cfg."""

import re
import subprocess
import threading

from lib import BUILD, REPO, TestFailure, expect, run_raw

KERNEL = BUILD / "guests" / "vmlinuz"
VERSION = BUILD / "guests" / "vmlinuz.version"
VMLINUX = BUILD / "guests" / "vmlinux"      # what guest/linux.cfg names
INITRD = BUILD / "guests" / "initrd.img"
LINUX_CFG = REPO / "guest" / "linux.cfg"
QEMU = "qemu-system-x86_64"
RUN_OPTION = re.compile(r'(^|\s)("apfvisor\.run=[^"]*"|apfvisor\.run='
                        r'("[^"]*"|\S*))')
INIT = "apfvisor-guest: init"
POWER_OFF = r"reboot: Power down"

_image_lock = threading.Lock()


def ensure_image():
    """Builds the image once if it is missing (tests may run in parallel)."""
    with _image_lock:
        if KERNEL.is_file() and VMLINUX.is_file() and INITRD.is_file():
            return
        r = subprocess.run(["make", "-C", str(REPO), "guest"],
                           stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, errors="replace")
        if r.returncode != 0:
            tail = " | ".join((r.stdout + r.stderr).strip()
                              .splitlines()[-4:])
            raise TestFailure(f"make guest failed: {tail}")


def linux_cmdline():
    """guest.cmdline of guest/linux.cfg without its apfvisor.run=."""
    for line in LINUX_CFG.read_text().splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "guest.cmdline":
            return " ".join(RUN_OPTION.sub(" ", value).split())
    raise TestFailure(f"{LINUX_CFG} has no guest.cmdline line")


def boot_linux(ctx, command, megs=256, timeout=180, devices=()):
    """Boots the image with apfvisor.run="COMMAND" and the QEMU -device
    options of DEVICES; returns the Run."""
    ensure_image()
    # no_timer_check: on a busy machine TCG runs the kernel's check of the
    # 8254 through the IO-APIC too slowly, and Linux panics ("IO-APIC +
    # timer doesn't work!", seen in CI); the check tests QEMU, not us.
    append = (f'{linux_cmdline()} no_timer_check '
              f'apfvisor.run="{command}"')
    cmd = [QEMU, "-m", str(megs), "-kernel", str(KERNEL),
           "-initrd", str(INITRD), "-append", append,
           "-nodefaults", "-display", "none", "-serial", "stdio",
           "-no-reboot"]
    for device in devices:
        cmd += ["-device", device]
    return run_raw(ctx, cmd, f"Linux in QEMU TCG: {command}", timeout)


def test_linux_bm(ctx):
    run = boot_linux(ctx, "bm -f 1 -w 1 -t 1 -m 16M")
    run.expect_line(INIT)
    run.expect_line("start")
    worker = run.expect_regex(r"^worker 0: (\d+)$")
    total = run.expect_regex(r"^total: (\d+)$")
    expect(int(total[1]) > 0, f"expected a total above 0, got: {total[0]}")
    expect(int(total[1]) == int(worker[1]),
           f"with one working thread the total ({total[1]}) must equal "
           f"worker 0's count ({worker[1]})")
    # The faulting thread's side: the pages it wrote, and their sum.
    faulter = run.expect_regex(r"^faulter 0: (\d+) pages$")
    touched = run.expect_regex(r"^touched: (\d+)$")
    expect(int(faulter[1]) > 0 and touched[1] == faulter[1],
           f"expected the faulting thread's pages above 0 and equal to "
           f"the sum: {faulter[0]!r}, {touched[0]!r}")
    run.expect_line("apfvisor-guest: command exited with status 0")
    run.expect_order("^" + INIT + "$", "^start$", r"^faulter 0: ",
                     r"^worker 0: ", r"^touched: ", r"^total: ",
                     "^apfvisor-guest: command exited ", POWER_OFF)
    run.expect_status(0)


def test_linux_memcheck(ctx):
    run = boot_linux(ctx, "memcheck -m 32M -p 2")
    run.expect_line(INIT)
    run.expect_line("memcheck: pass 1: wrote 8192 pages, mismatches 0")
    run.expect_line("memcheck: pass 2: wrote 8192 pages, mismatches 0")
    run.expect_line("memcheck: total mismatches 0")
    run.expect_line("apfvisor-guest: command exited with status 0")
    run.expect_order("^" + INIT + "$", "^memcheck: total mismatches 0$",
                     "^apfvisor-guest: command exited ", POWER_OFF)
    run.expect_status(0)


def test_linux_command_status(ctx):
    # A quoted command with spaces and shell syntax, and its exit status.
    run = boot_linux(ctx, "echo one  two; exit 3")
    run.expect_line("one two")
    run.expect_line("apfvisor-guest: command exited with status 3")
    run.expect_regex(POWER_OFF)
    run.expect_status(0)


def test_linux_cfg_accepted(ctx):
    # Under TCG apfvisor stops at the VT-x check, after reading the config.
    ensure_image()
    run = ctx.boot_cfg(LINUX_CFG.read_text(), timeout=120)
    run.expect_regex(r"^apfvisor: config: guest\.kernel=vmlinux "
                     r"guest\.memory=256 MiB ")
    run.expect_absent(r"^apfvisor: error: apfvisor\.cfg")
    # The kernel was judged loadable (test_refusals.py has the other
    # side) before the VT-x check refused the CPU.
    run.expect_absent(r"^apfvisor: error: guest\.kernel")
    run.expect_regex(r"^apfvisor: error: VT-x is not supported")


def initrd_files():
    """{name: (mode, data)} of every entry of initrd.img (newc cpio, as
    build-image writes it: "070701", thirteen 8-digit hex fields, the name
    and the data each padded to 4 bytes)."""
    ensure_image()
    blob = INITRD.read_bytes()
    files = {}
    at = 0
    while True:
        expect(blob[at:at + 6] == b"070701",
               f"{INITRD}: no newc header at offset {at}")
        fields = [int(blob[at + 6 + 8 * i:at + 14 + 8 * i], 16)
                  for i in range(13)]
        mode, size, namesize = fields[1], fields[6], fields[11]
        at += 110
        name = blob[at:at + namesize - 1].decode()
        at = (at + namesize + 3) & ~3
        if name == "TRAILER!!!":
            return files
        files[name] = (mode, blob[at:at + size])
        at = (at + size + 3) & ~3


# The modules build-image's GUEST_MODULES names and those they depend on
# (kernel 6.1's drivers/virtio/Makefile): what /init loads.
MODULES = ("virtio_pci", "virtio_balloon")
MODULE_CLOSURE = ("virtio", "virtio_ring", "virtio_pci_modern_dev",
                  "virtio_pci_legacy_dev") + MODULES


def test_linux_image_contents(ctx):
    files = initrd_files()
    release = re.search(r"(?m)^release=(\S+)$", VERSION.read_text())
    expect(release, f"{VERSION} names no release=")
    mods = f"lib/modules/{release[1]}"
    expect(f"{mods}/modules.dep" in files,
           f"expected {mods}/modules.dep in {INITRD}")
    dep = files[f"{mods}/modules.dep"][1].decode()
    kos = sorted(n for n in files if n.endswith(".ko"))
    names = sorted(n.rsplit("/", 1)[1][:-3] for n in kos)
    expect(names == sorted(MODULE_CLOSURE),
           f"expected the modules {sorted(MODULE_CLOSURE)}, the image has "
           f"{names}")
    for ko in kos:
        rel = ko[len(mods) + 1:]
        expect(re.search(rf"(?m)^{re.escape(rel)}:", dep),
               f"expected a line for {rel} in modules.dep: {dep!r}")
        # Signed by Debian (the kernel has CONFIG_MODULE_SIG).
        expect(files[ko][1].endswith(b"~Module signature appended~\n"),
               f"{ko} is not signed")
    balloon = re.search(r"(?m)^\S*/virtio_balloon\.ko:(.*)$", dep)
    expect(balloon and "virtio_ring.ko" in balloon[1],
           f"expected virtio_balloon's dependencies in modules.dep: {dep!r}")
    expect(files.get("etc/modules", (0, b""))[1].decode().split()
           == list(MODULES),
           f"expected /etc/modules to name {MODULES}")
    for prog in ("bin/churn", "bin/lspci", "bin/modprobe", "bin/lsmod",
                 "bin/insmod"):
        expect(prog in files, f"expected {prog} in {INITRD}")


def test_linux_balloon_churn(ctx):
    # A modern-only virtio-balloon with free page reporting at 00:03.0, as
    # apfvisor's: the image's modules bind it and churn frees pages to it.
    run = boot_linux(ctx, "lsmod; lspci; cat /proc/sys/kernel/tainted; "
                     "churn -m 16 -r 2 -s 3",
                     devices=["virtio-balloon-pci,free-page-reporting=on,"
                              "disable-legacy=on,addr=03.0"])
    run.expect_line(INIT)
    run.expect_line("apfvisor-guest: modules: virtio_ring virtio "
                    "virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci "
                    "virtio_balloon")
    run.expect_absent(r"^apfvisor-guest: error:")
    run.expect_regex(r"Free page reporting enabled")
    run.expect_regex(r"^virtio_balloon +\d+ +0")
    run.expect_regex(r"^00:03\.0 00ff: 1af4:1045 .*driver virtio-pci$")
    run.expect_line("0")        # /proc/sys/kernel/tainted: not tainted
    run.expect_line("churn: round 1: 16 MiB ok")
    run.expect_line("churn: round 2: 16 MiB ok")
    run.expect_line("churn: total: 2 rounds, 8192 pages, 0 mismatches")
    run.expect_line("apfvisor-guest: command exited with status 0")
    run.expect_order("^" + INIT + "$", "^apfvisor-guest: modules: ",
                     "^churn: total: ", "^apfvisor-guest: command exited ",
                     POWER_OFF)
    run.expect_status(0)
