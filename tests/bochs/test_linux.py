# SPDX-License-Identifier: BSD-2-Clause
"""The default guest (Debian 12's stock kernel + the busybox initramfs of
`make guest`) under apfvisor in Bochs, booted as a user would: it must
detect KVM, use kvm-clock and the I/O APIC, run what is typed into its
shell and power off (or reset) cleanly, with no kernel warning caused by
the virtual platform. One boot per vCPU count runs several programs in
turn, each checked. (The bzImage path: test_swap.py; the loader's
refusals: tests/qemu/test_refusals.py.)"""

import re
import termios
from pathlib import Path

from lib import cases, expect

REPO = Path(__file__).resolve().parent.parent.parent
LINUX_CFG = REPO / "guest" / "linux.cfg"

# Kernel log lines that mean apfvisor got something wrong.
KERNEL_TROUBLE = (r"^guest: .*(WARNING:|Call Trace|unchecked MSR access|"
                  r"BUG:|Oops|Kernel panic|ACPI BIOS (Error|Warning)|"
                  r"clocksource: .*unstable|TSC.*unstable)")


# With its speculation mitigations on (no mitigations=off), the kernel warns
# about the emulated CPU: Bochs' Skylake-X (model 0x55) is on Linux's
# RETBleed list and apfvisor offers no IBRS (CPUID 7 EDX is hidden, as
# Bochs has none to pass on), so Linux falls back to retpolines and says
# they are not enough (arch/x86/kernel/cpu/bugs.c: RETBLEED_INTEL_MSG). It
# is the CPU model's warning, not the platform's; every other one counts.
RETBLEED_NO_IBRS = (r"\[ *[\d.]+\] RETBleed: WARNING: Spectre v2 mitigation "
                    r"leaves CPU vulnerable to RETBleed attacks")
KERNEL_TROUBLE_BUT_RETBLEED = (rf"^guest: (?!{RETBLEED_NO_IBRS})"
                               + KERNEL_TROUBLE[len("^guest: "):])


def ordinary_cfg(vcpus):
    """guest/linux.cfg with the kernel command line a user would write:
    only the console (no apfvisor.run: /init starts a shell)."""
    text = re.sub(r"(?m)^guest\.cmdline = .*$",
                  "guest.cmdline = console=ttyS0,115200",
                  LINUX_CFG.read_text())
    return text + f"\nguest.vcpus = {vcpus}\n"


# What one boot of the ordinary session types into the guest's shell, on a
# terminal (a pty) as a user would: a partial command and a Tab (busybox
# completes `memch` to `memcheck `), the rest of that line once the
# completion shows, then the ending once the last command's output, which
# ends no line, and the prompt after it show. The line runs memcheck (a
# pattern written and read back; no overcommit here: test_swap.py and
# test_apf.py have that); hypercall (an unprivileged process executes
# VMCALL and every VMX instruction: KVM's answers, and the VM goes on); bm
# (the 2010 benchmark); /proc/interrupts (the UART's IRQ 4 came through
# the I/O APIC); and arithmetic only the shell reading the typed line can
# have done.
MEMCHECK_MIB = 32
PARTIAL = "memch\t"
REST = (f" -m {MEMCHECK_MIB}M -p 1; hypercall; bm -f 1 -w 1 -t 1 -m 64M; "
        "cat /proc/interrupts; printf typed-$((6 * 7))\n")
PAGE = 4096
INTRO_RE = re.compile(r"bochs-run: this terminal is the guest's serial "
                      r"console; Ctrl-\] stops the run\. apfvisor's log: "
                      r"(\S+)\r?\n")
SUMMARY_RE = re.compile(r"bochs-run: summary \(exit status (\d+)\)\r?\n")


def check_terminal(run, ending, end_line):
    """What the user saw on the terminal (run.terminal, a pty session):
    raw mode while the guest ran and the settings put back after, the Tab
    completion on the line being edited, output without a newline followed
    at once by the prompt, only the guest's bytes between the run script's
    first line and its summary (apart from the lines that fail the run),
    and a summary of at most 10 lines naming the log, which holds the
    record."""
    t = run.terminal
    during, after = t.tty_during, t.tty_after
    expect(not during[3] & (termios.ICANON | termios.ECHO | termios.ISIG),
           "expected the terminal in raw mode while the guest's prompt was "
           f"up, got lflag {during[3]:#x}")
    expect(after == t.tty_before, "expected the terminal's settings put "
           f"back after the run: before {t.tty_before}, after {after}")
    completion = t.text(t.typed_at[0], t.typed_at[1])
    expect("eck " in completion and "\n" not in completion,
           "expected the Tab completion (memch -> memcheck) on the line "
           f"being edited, without a newline; the terminal showed "
           f"{completion!r}")
    text = t.text()
    expect("typed-42/ # " in text, "expected printf's output, which ends "
           "no line, followed at once by the shell's prompt (typed-42/ # )")
    intro = INTRO_RE.search(text)
    summary = SUMMARY_RE.search(text)
    expect(intro and summary and intro.end() < summary.start(),
           "expected the run script's first line (naming the log) and its "
           f"summary on the terminal; got {text[:200]!r} ... "
           f"{text[-400:]!r}")
    between = text[intro.end():summary.start()]
    expect(not re.search(r"(^|[\r\n])guest: ", between), "expected no "
           "'guest: ' prefix on the terminal")
    host = [l for l in re.findall(r"apfvisor: [^\r\n]*", between)
            if l != end_line]
    expect(not host, f"expected no apfvisor line among the guest's bytes "
           f"on the terminal but {end_line!r}, got {host[:3]}")
    block = text[summary.start():].replace("\r", "").strip().split("\n")
    expect(len(block) <= 10, f"expected a summary of at most 10 lines, got "
           f"{len(block)}: {block}")
    expect(block[1].startswith(
        f"  end       {end_line.removeprefix('apfvisor: ')}"),
           f"expected the summary to say how the run ended "
           f"({end_line!r}), got {block[1]!r}")
    expect(any(re.fullmatch(r"  exits     \d+ \(EPT violations \d+\)", l)
               for l in block), f"expected the exits in the summary: {block}")
    log = Path(intro[1])
    expect(f"  log       {log} " in "\n".join(block) + " ",
           f"expected the summary to name the log {log}: {block}")
    expect(log.read_bytes() == run.record_path.read_bytes(),
           f"expected the log {log} to hold the record (the --serial-out "
           f"copy, {run.record_path})")
    raw_in_record = [l for l in run.lines if l.startswith("guest: ")
                     and re.search(r"[\x00-\x08\x0a-\x1f\x7f]", l)]
    expect(not raw_in_record, "expected the record's guest lines escaped, "
           f"got raw control bytes in {raw_in_record[:2]}")
    return run


@cases(vcpus=(1, 2))
def test_linux_ordinary_session(ctx, vcpus):
    """The stock kernel with `console=ttyS0,115200` and nothing else, as a
    user would boot it, on 1 and 2 vCPUs, its console a terminal (a pty):
    with 1 vCPU through `make run` itself, with 2 through tools/bochs-run
    --interactive. It finds the I/O APIC and routes the UART's IRQ 4
    through it (its timer is the TSC deadline, so it never starts the PIT),
    probes PCI and the COM ports, detects KVM and uses kvm-clock; then
    typed input (the pty -> the machine's COM2 -> apfvisor -> the guest
    UART's receive FIFO and IRQ 4) edits a line with Tab completion and
    runs memcheck, hypercall and bm in its shell. The terminal shows the
    guest's bytes raw (check_terminal); the record keeps them escaped as
    "guest: " lines. With 1 vCPU the session ends with `poweroff -f` (ACPI
    power-off), with 2 with `reboot -f` (a reset through the FADT reset
    register, port 0xCF9)."""
    ending = "poweroff -f\n" if vcpus == 1 else "reboot -f\n"
    run = ctx.boot_cfg(ordinary_cfg(vcpus), cpus=vcpus, timeout=1500,
                       make_run=vcpus == 1,
                       converse=[(r"/ # ", PARTIAL), (r"eck ", REST),
                                 (r"typed-42/ # ", ending)])
    check_terminal(run, ending, "apfvisor: guest powered off" if vcpus == 1
                   else "apfvisor: guest reset")
    # The default config's fast path: the uncompressed kernel, entered at
    # startup_64.
    run.expect_regex(r"^apfvisor: linux: uncompressed ELF kernel \(vmlinux\)"
                     r": \d+ segments, \d+ KiB from the file, loaded at "
                     r"0x1000000-0x[0-9a-f]+, entry 0x1000000$")
    run.expect_regex(r"^guest: \[ *[\d.]+\] Kernel command line: "
                     r"console=ttyS0,115200$")
    run.expect_regex(r"^guest: \[ *[\d.]+\] Hypervisor detected: KVM$")
    run.expect_regex(r"^guest: \[ *[\d.]+\] kvm-clock: Using msrs 4b564d01 "
                     r"and 4b564d00$")
    run.expect_regex(r"^guest: \[ *[\d.]+\] clocksource: kvm-clock: mask")
    run.expect_regex(r"^guest: \[ *[\d.]+\] x2apic: enabled by BIOS")
    run.expect_regex(r"^guest: \[ *[\d.]+\] IOAPIC\[0\]: apic_id \d+, "
                     r"version 32, address 0xfec00000, GSI 0-23$")
    run.expect_absent(r"Skipping IOAPIC probe")
    # PCI configuration mechanism #1 answers the probe (no pci=off).
    run.expect_regex(r"^guest: \[ *[\d.]+\] PCI: Using configuration type 1 "
                     r"for base access$")
    run.expect_absent(r"PCI: Fatal|System does not support PCI")
    run.expect_regex(rf"^guest: \[ *[\d.]+\] smp: Brought up 1 node, "
                     rf"{vcpus} CPUs?$")
    run.expect_regex(r"^guest: \[ *[\d.]+\] Spectre V2 : Mitigation: "
                     r"Retpolines$")
    run.expect_line("guest: apfvisor-guest: init")
    # The image's modules (the virtio-balloon's) load on this platform,
    # signed and untainted, even with no device for them to bind.
    run.expect_line("guest: apfvisor-guest: modules: virtio_ring virtio "
                    "virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci "
                    "virtio_balloon")
    run.expect_absent(r"^guest: apfvisor-guest: error:|taints kernel|"
                      r"Tainted: |module verification failed")

    run.expect_line("apfvisor: console: the guest's terminal is on COM2 "
                    "(0x2f8), raw both ways; COM1 keeps this record, the "
                    "guest's lines escaped")
    # The line typed, as the shell echoed it, in the record.
    run.expect_regex(r"^guest: .*printf typed-\$\(\(6 \* 7\)\)")
    # hypercall
    run.expect_line("guest: hypercall: vmcall from user mode returned -1")
    run.expect_line("guest: hypercall: 12 of 12 VMX instructions raised "
                    "SIGILL")
    run.expect_stat_at_least("exit.vmcall", 1)
    run.expect_stat_at_least("exit.vmread", 1)
    # bm
    run.expect_line("guest: start")
    m = run.expect_regex(r"^guest: total: (\d+)$")
    expect(int(m[1]) > 0, f"expected bm's total above 0, got {m[1]}")
    # memcheck
    pages = MEMCHECK_MIB * 1024 * 1024 // PAGE
    run.expect_line(f"guest: memcheck: pass 1: wrote {pages} pages, "
                    "mismatches 0")
    run.expect_line("guest: memcheck: total mismatches 0")
    # The UART's interrupt arrives through the I/O APIC, and did arrive.
    m = run.expect_regex(r"^guest:\s+4:((?:\s+\d+)+)\s+IO-APIC\s+4-edge\s+"
                         r"ttyS0$")
    expect(sum(int(n) for n in m[1].split()) > 0,
           f"expected IRQ 4 taken at least once, got {m[1].split()}")
    run.expect_regex(r"^guest: typed-42")
    run.expect_order(r"^guest: apfvisor-guest: init$",
                     r"^guest: memcheck: total mismatches 0$",
                     r"^guest: hypercall: vmcall", r"^guest: total: ",
                     r"^guest: typed-42")
    typed = len(PARTIAL) + len(REST) + len(ending)
    run.expect_stat_at_least("uart.bytes_in", typed)
    run.expect_stat_at_least("console.terminal_bytes", 1)
    run.expect_absent(KERNEL_TROUBLE_BUT_RETBLEED)
    # Only the I/O APIC carries interrupts: Linux masks the 8259s.
    run.expect_stat_at_least("ioapic.messages", 1)
    run.expect_stat("irq.injected_pic", 0)
    run.expect_stat_at_least("irq.injected_lapic", 1)
    # The kernel took PV EOI (CPUID 0x40000001 bit 6): EOIs of edge
    # vectors alone in service went through its word, without an exit.
    run.expect_stat_at_least("lapic.pv_eois", 1)
    if vcpus == 1:
        run.expect_line("apfvisor: guest powered off")
        run.expect_order(r"^guest: typed-42",
                         r"^apfvisor: guest powered off$",
                         r"^apfvisor: done$")
        run.expect_status(0)
    else:
        run.expect_line("apfvisor: guest reset")
        run.expect_line("apfvisor: how: reset through port 0xcf9")
        run.expect_line("apfvisor: done")
        run.expect_status(1)    # the run scripts count a reset as unclean
