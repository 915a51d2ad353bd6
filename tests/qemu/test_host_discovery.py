# SPDX-License-Identifier: BSD-2-Clause
"""Host discovery and the TSC sources on QEMU's q35 with OVMF (TCG, no
VT-x: debug.blockdev_selftest = on runs the core without a guest). The
lines checked are those of docs/platform.md, "Host discovery and the TSC":
  - the CPUs from the ACPI MADT, cross-checked with UEFI MP services;
  - the RAM below and above 4 GiB, with the guest frames taken above it;
  - PCI config space through the MCFG's ECAM window, which the virtio-blk
    self-test then uses;
  - the TSC rate from the ACPI PM timer (q35's ICH9, FADT), from the PIT
    when forced, and CPUID 0x15: QEMU under TCG offers the leaf (with
    level=0x16) but leaves it zero, so it is seen and passed over, and a
    forced tsc.source = cpuid is refused with an error."""

import re

from lib import expect
from test_blockdev import format_image

CONFIG = """\
guest.kernel = hello.bin
debug.blockdev_selftest = on
swap.device = virtio-blk
"""
TIMEOUT = 240
PM_TIMER_LINE = ("apfvisor: tsc: ACPI PM timer at port 0x608, 24-bit "
                 "(FADT)")
MHZ = r"(\d+)\.(\d{3}) MHz"
# A TSC under TCG runs at the host's rate; plausible is all that is known.
TSC_MIN_MHZ, TSC_MAX_MHZ = 100, 10000


def boot_selftest(ctx, extra_cfg="", **opts):
    image = ctx.workdir / "swap.img"
    if not image.exists():
        format_image(image, "64M")
    return ctx.boot_cfg(CONFIG + extra_cfg, swap=image, timeout=TIMEOUT,
                        **opts)


def expect_rate_from(run, source):
    m = run.expect_regex(rf"^apfvisor: tsc: {MHZ} from {re.escape(source)}$")
    mhz = int(m[1])
    expect(TSC_MIN_MHZ <= mhz <= TSC_MAX_MHZ,
           f"implausible TSC rate in: {m[0]}")
    run.expect_absent(r"^apfvisor: tsc: [\d.]+ MHz from (?!" +
                      re.escape(source) + ")")
    return mhz


def expect_selftest_passed(run):
    run.expect_line("apfvisor: blockdev selftest: PASS")
    run.expect_absent(r"^apfvisor: error:")
    run.expect_status(0)


def test_host_discovery_q35(ctx):
    run = boot_selftest(ctx, cpus=2, megs=5120)
    run.expect_line("apfvisor: host cpus: 2 (ACPI MADT; UEFI MP services "
                    "agree)")
    m = run.expect_regex(r"^apfvisor: memory: (\d+) RAM range\(s\), (\d+) "
                         r"MiB below 4 GiB, (\d+) MiB above 4 GiB, mapped "
                         r"up to 0x([0-9a-f]+)$")
    # q35 puts 2 GiB below the PCI hole and the other 3 GiB above 4 GiB.
    expect(int(m[3]) == 3072, f"expected 3072 MiB above 4 GiB: {m[0]}")
    expect(int(m[4], 16) >= 7 << 30, f"not mapped up to 7 GiB: {m[0]}")
    run.expect_line("apfvisor: memory: guest frames 64 MiB in 1 range(s), "
                    "64 MiB of them above 4 GiB")
    run.expect_line("apfvisor: pci: ECAM at 0xb0000000 for buses 0-255 "
                    "(ACPI MCFG); config space through memory")
    run.expect_line(PM_TIMER_LINE)
    run.expect_line("apfvisor: tsc: CPUID 0x15: the CPU has no leaf 0x15")
    expect_rate_from(run, "the ACPI PM timer")
    run.expect_order(r"^apfvisor: host cpus: 2 \(ACPI MADT",
                     r"^apfvisor: pci: ECAM ", r"^apfvisor: tsc: [\d.]+ MHz",
                     r"^apfvisor: swap: virtio-blk ",
                     r"^apfvisor: blockdev selftest: PASS$")
    expect_selftest_passed(run)


def test_tsc_source_pit(ctx):
    run = boot_selftest(ctx, "tsc.source = pit\n")
    expect_rate_from(run, "the PIT")
    run.expect_absent(r"^apfvisor: tsc: CPUID")
    expect_selftest_passed(run)


def test_tsc_cpuid_leaf_empty_under_tcg(ctx):
    cpu = ("--cpu", "max,level=0x16")
    run = boot_selftest(ctx, extra=cpu)
    run.expect_line("apfvisor: tsc: CPUID 0x15: leaf 0x15 reports no "
                    "TSC/crystal ratio")
    expect_rate_from(run, "the ACPI PM timer")
    expect_selftest_passed(run)
    run = boot_selftest(ctx, "tsc.source = cpuid\n", extra=cpu)
    run.expect_line("apfvisor: error: tsc: CPUID 0x15: leaf 0x15 reports "
                    "no TSC/crystal ratio")
    run.expect_line("apfvisor: error: tsc: tsc.source asks for CPUID 0x15, "
                    "which gave no TSC rate")
    run.expect_absent(r"^apfvisor: blockdev selftest: ")
    run.expect_line("apfvisor: done")
    run.expect_status(1)
