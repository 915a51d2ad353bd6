# SPDX-License-Identifier: BSD-2-Clause
"""The default guest (Debian 12's stock kernel + the busybox initramfs of
`make guest`) under apfvisor in Bochs: it must detect KVM, use kvm-clock,
run the command given on its command line and power off cleanly, with no
kernel warning caused by the virtual platform."""

import re
from pathlib import Path

from lib import cases, expect

REPO = Path(__file__).resolve().parent.parent.parent
LINUX_CFG = REPO / "guest" / "linux.cfg"

# Kernel log lines that mean apfvisor got something wrong.
KERNEL_TROUBLE = (r"^guest: .*(WARNING:|Call Trace|unchecked MSR access|"
                  r"BUG:|Oops|Kernel panic|ACPI BIOS (Error|Warning)|"
                  r"clocksource: .*unstable|TSC.*unstable)")


def linux_cfg(vcpus, command, kernel=None):
    """guest/linux.cfg with another vCPU count and apfvisor.run command
    (and another guest.kernel when given)."""
    text = LINUX_CFG.read_text()
    text = re.sub(r'apfvisor\.run="[^"]*"', f'apfvisor.run="{command}"', text)
    if kernel:
        text = re.sub(r"(?m)^guest\.kernel = .*$", f"guest.kernel = {kernel}",
                      text)
    return text + f"\nguest.vcpus = {vcpus}\n"


def expect_boots_to_init_and_powers_off(run):
    run.expect_regex(r"^guest: \[ *[\d.]+\] Hypervisor detected: KVM$")
    run.expect_line("guest: apfvisor-guest: init")
    run.expect_line("guest: apfvisor-guest: command exited with status 0")
    run.expect_line("apfvisor: guest powered off")
    run.expect_absent(KERNEL_TROUBLE)
    run.expect_status(0)


@cases(vcpus=(1, 2))
def test_linux_boots_runs_bm_powers_off(ctx, vcpus):
    # Three commands: hypercall (an unprivileged process executes VMCALL
    # and every VMX instruction: KVM's answers, and the VM goes on), bm,
    # and arithmetic only a shell running apfvisor.run can have done.
    run = ctx.boot_cfg(linux_cfg(vcpus, "hypercall; "
                                        "bm -f 1 -w 1 -t 2 -m 64M; "
                                        "echo apfvisor-marker $((6 * 7))"),
                       cpus=vcpus, timeout=900)
    run.expect_line("guest: hypercall: vmcall from user mode returned -1")
    run.expect_line("guest: hypercall: 12 of 12 VMX instructions raised "
                    "SIGILL")
    run.expect_stat_at_least("exit.vmcall", 1)
    run.expect_stat_at_least("exit.vmread", 1)
    # The default config's fast path: the uncompressed kernel, entered at
    # startup_64 (the decompressor's "KASLR disabled" line never appears).
    run.expect_regex(r"^apfvisor: linux: uncompressed ELF kernel \(vmlinux\)"
                     r": \d+ segments, \d+ KiB from the file, loaded at "
                     r"0x1000000-0x[0-9a-f]+, entry 0x1000000$")
    run.expect_absent(r"KASLR disabled")
    run.expect_regex(r"^guest: \[ *[\d.]+\] Hypervisor detected: KVM$")
    run.expect_regex(r"^guest: \[ *[\d.]+\] kvm-clock: Using msrs 4b564d01 "
                     r"and 4b564d00$")
    run.expect_regex(r"^guest: \[ *[\d.]+\] clocksource: kvm-clock: mask")
    run.expect_regex(r"^guest: \[ *[\d.]+\] x2apic: enabled by BIOS")
    run.expect_regex(rf"^guest: \[ *[\d.]+\] smp: Brought up 1 node, "
                     rf"{vcpus} CPUs?$")
    run.expect_line("guest: apfvisor-guest: init")
    run.expect_line("guest: start")
    m = run.expect_regex(r"^guest: total: (\d+)$")
    expect(int(m[1]) > 0, f"expected bm's total above 0, got {m[1]}")
    run.expect_line("guest: apfvisor-marker 42")
    run.expect_line("guest: apfvisor-guest: command exited with status 0")
    run.expect_line("apfvisor: guest powered off")
    run.expect_absent(KERNEL_TROUBLE)
    run.expect_stat_at_least("irq.injected_pic", 1)     # the UART's IRQ 4
    run.expect_stat_at_least("irq.injected_lapic", 1)   # the APIC timer
    run.expect_order(r"^guest: apfvisor-guest: init$", r"^guest: total: ",
                     r"^apfvisor: guest powered off$", r"^apfvisor: done$")
    run.expect_status(0)



def test_linux_bzimage_boots(ctx):
    """The same kernel as a bzImage (guest.kernel = vmlinuz): entered
    through the decompressor at +0x200, as before the fast path."""
    run = ctx.boot_cfg(linux_cfg(1, "true", kernel="vmlinuz"), cpus=1,
                       timeout=900)
    run.expect_regex(r"^apfvisor: linux: bzImage, boot protocol 2\.\d+, "
                     r"6\.1\.")
    run.expect_line("guest: KASLR disabled: 'nokaslr' on cmdline.")
    expect_boots_to_init_and_powers_off(run)


def test_linux_guest_memory_too_small(ctx):
    """The loader's refusal comes before the guest runs (a short run)."""
    run = ctx.boot_cfg(linux_cfg(1, "true").replace(
        "guest.memory = 256M", "guest.memory = 64M"), cpus=1, timeout=300)
    run.expect_regex(r"^apfvisor: error: guest\.kernel 'vmlinux': "
                     r"guest\.memory \(64 MiB\) is too small for this "
                     r"kernel: it needs at least \d+ MiB")
    run.expect_absent(r"^apfvisor: vcpu ")
    run.expect_line("apfvisor: done")
    run.expect_status(1)


def test_linux_console_input_and_reset(ctx):
    """Typing on the host console reaches the guest's shell (host COM1 ->
    apfvisor -> the guest UART's receive FIFO and IRQ 4), the shell's prompt
    shows although it ends no line, and a reboot in the guest ends the run
    as a reset (through the FADT reset register, port 0xCF9)."""
    cfg = (REPO / "guest" / "linux-shell.cfg").read_text()
    run = ctx.boot_cfg(cfg, cpus=1, timeout=900, converse=[
        (r"^guest: / #\s*$", "echo typed-$((6 * 7))\n"),
        (r"^guest: .*typed-42$", "reboot -f\n"),
    ])
    run.expect_line("guest: apfvisor-guest: init")
    run.expect_regex(r"^guest: .*typed-42$")
    run.expect_line("apfvisor: guest reset")
    run.expect_line("apfvisor: how: reset through port 0xcf9")
    run.expect_stat_at_least("uart.bytes_in", len("echo typed-$((6 * 7))\n"))
    run.expect_line("apfvisor: done")
    run.expect_status(1)        # the run scripts count a reset as unclean
