# SPDX-License-Identifier: BSD-2-Clause
"""The default Linux guest image (`make guest`: build/guests/vmlinuz and
initrd.img) booted straight in QEMU TCG with -kernel, without apfvisor or
firmware: /init must run the command given as apfvisor.run="..." and power
the machine off. The kernel gets guest/linux.cfg's command line, with the
test's own apfvisor.run=. Also: apfvisor's config parser accepts
guest/linux.cfg."""

import re
import subprocess
import threading

from lib import BUILD, REPO, TestFailure, expect, run_raw

KERNEL = BUILD / "guests" / "vmlinuz"
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


def boot_linux(ctx, command, megs=256, timeout=180):
    """Boots the image with apfvisor.run="COMMAND"; returns the Run."""
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
