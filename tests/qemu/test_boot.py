# SPDX-License-Identifier: BSD-2-Clause
"""apfvisor under QEMU TCG + OVMF, where the CPU has no VT-x: it must load,
report the machine, name the missing feature and hand control back to the
firmware with an error status; a bad config must name its line."""

import re
import subprocess

from lib import EFI, REPO, TOOLS, expect

VTX_ABSENT = ("apfvisor: error: VT-x is not supported by this CPU "
              "(CPUID.1:ECX.VMX[bit 5] = 0)")
BANNER = r"^apfvisor: apfvisor \S+ starting$"
MEMORY_MAP = r"^apfvisor: memory map: (\d+) entries, (\d+) MiB usable$"


def firmware_failed(status_text):
    """What OVMF (edk2 BdsDxe) prints when a boot option returns an error,
    e.g. 'BdsDxe: failed to start Boot0001 "UEFI QEMU HARDDISK QM00001 "
    from PciRoot(0x0)/...: Unsupported'."""
    return r"^BdsDxe: failed to start Boot[0-9A-F]{4} .*: " + \
        re.escape(status_text) + "$"


# Line 3 has an unknown key (a misspelt guest.memory).
BAD_CONFIG = """\
# bad config: line 3 has an unknown key
guest.kernel = hello.bin
guest.memroy = 32M
"""


def check_startup(run):
    run.expect_regex(BANNER)
    m = run.expect_regex(MEMORY_MAP)
    expect(int(m[1]) > 0 and int(m[2]) > 0,
           f"expected a non-empty memory map, got: {m[0]}")
    run.expect_regex(r"^apfvisor: host cpus: \d+( |$)")
    run.expect_order(BANNER, MEMORY_MAP, r"^apfvisor: host cpus: ")


def test_vtx_absent(ctx):
    run = ctx.boot_guest("hello", timeout=120)
    check_startup(run)
    run.expect_line(VTX_ABSENT)
    run.expect_line("apfvisor: exiting to firmware with status "
                    "EFI_UNSUPPORTED")
    run.expect_order(BANNER, "^" + re.escape(VTX_ABSENT) + "$",
                     r"^apfvisor: exiting to firmware ",
                     firmware_failed("Unsupported"))
    run.expect_absent(r"^apfvisor: vcpu ")
    run.expect_status(1)


def test_host_cpus(ctx):
    run = ctx.boot_guest("hello", cpus=2, timeout=120)
    run.expect_regex(r"^apfvisor: host cpus: 2( |$)")
    run.expect_line(VTX_ABSENT)


def test_bad_config(ctx):
    # The config is read before the VT-x check, so this works without VT-x.
    run = ctx.boot_cfg(BAD_CONFIG, timeout=120)
    run.expect_line("apfvisor: error: apfvisor.cfg:3: unknown key "
                    "'guest.memroy'")
    run.expect_line("apfvisor: exiting to firmware with status "
                    "EFI_INVALID_PARAMETER")
    run.expect_regex(firmware_failed("Invalid Parameter"))
    run.expect_absent(r"^apfvisor: error: apfvisor\.cfg:[^3]")
    run.expect_status(1)


def test_bad_value_names_line(ctx):
    run = ctx.boot_cfg("guest.kernel = hello.bin\n\n# comment\n"
                       "guest.memory = lots\n", timeout=120)
    run.expect_regex(r"^apfvisor: error: apfvisor\.cfg:4: bad value 'lots' "
                     r"for guest\.memory")
    run.expect_status(1)


def test_overcommit_refused_without_swap_device(ctx):
    run = ctx.boot_cfg("guest.kernel = hello.bin\nguest.memory = 64M\n"
                       "host.guest_frames = 16M\n", timeout=120)
    run.expect_line("apfvisor: error: apfvisor.cfg: guest.memory (64 MiB) is "
                    "larger than host.guest_frames (16 MiB): overcommit needs "
                    "a swap device (swap.device = auto, virtio-blk, ahci or "
                    "ata)")
    run.expect_line("apfvisor: exiting to firmware with status "
                    "EFI_INVALID_PARAMETER")
    run.expect_status(1)


def test_usb_image_boots(ctx):
    """The stick `make usb-image` writes (a GPT disk with one ESP, the
    Linux guest's files and guest/linux-usb.cfg as apfvisor.cfg) is found
    and started by the firmware, and apfvisor reads its config from it."""
    esp = ctx._make_esp(REPO / "guest" / "linux-usb.cfg", EFI, "usb-esp")
    image = ctx.workdir / "apfvisor-usb.img"
    r = subprocess.run([str(TOOLS / "mkimg"), str(esp), str(image), "--gpt"],
                       stdin=subprocess.DEVNULL, capture_output=True,
                       text=True)
    expect(r.returncode == 0, f"mkimg --gpt failed: {r.stderr.strip()}")
    expect(image.read_bytes()[512:520] == b"EFI PART",
           "the USB image has no GPT header at LBA 1")
    run = ctx.boot_cfg("", esp_image=image, cpus=2, megs=2048, timeout=180)
    check_startup(run)
    run.expect_regex(r"^apfvisor: config: guest.kernel=vmlinux "
                     r"guest.memory=1024 MiB .*guest.vcpus=2")
    run.expect_line(VTX_ABSENT)
    run.expect_status(1)
