# SPDX-License-Identifier: BSD-2-Clause
"""Multiboot kernels, differentially: each test kernel of
tests/guests/multiboot/ runs under QEMU TCG started as `qemu -kernel` starts
it (the reference PC) and under apfvisor in Bochs; the kernel's lines must
be the same in both, line for line, apart from the ones it marks "host: ",
and so must the exit status it asks for through port 0xf4 (QEMU's
isa-debug-exit: (value << 1) | 1)."""

import difflib
import re
import secrets
import shutil
import socket
import subprocess
import time

from lib import BUILD, TestFailure, expect, run_raw

QEMU = "qemu-system-x86_64"
MEGS = 64
HOST_SPECIFIC = "host: "


def qemu_kernel(ctx, kernel, append, initrd, cpus):
    """The kernel as `qemu -kernel` runs it: the default PC machine with
    its firmware's multiboot loader, COM1 on stdout, isa-debug-exit."""
    cmd = [QEMU, "-machine", "pc", "-accel", "tcg", "-m", str(MEGS),
           "-smp", str(cpus), "-nodefaults", "-display", "none",
           "-serial", "stdio",
           "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
           "-kernel", kernel, "-append", append]
    if initrd:
        cmd += ["-initrd", initrd]
    return run_raw(ctx, cmd, f"{kernel} under QEMU -kernel", timeout=120,
                   cwd=ctx.workdir)


def apfvisor_kernel(ctx, kernel, append, initrd, cpus):
    cfg = (f"guest.kernel = {kernel}\n"
           f"guest.cmdline = {append}\n"
           f"guest.memory = {MEGS}M\n"
           f"guest.vcpus = {cpus}\n")
    if initrd:
        cfg += f"guest.initrd = {initrd}\n"
    return ctx.boot_cfg(cfg, cpus=cpus, timeout=300)


def kernel_lines(lines, prefix=""):
    """The kernel's own lines (without apfvisor's "guest: " prefix), the
    host-specific ones left out."""
    out = []
    for line in lines:
        if not line.startswith(prefix):
            continue
        line = line[len(prefix):].rstrip()
        if line and not line.startswith(HOST_SPECIFIC):
            out.append(line)
    return out


def compare(name, reference, ours):
    """Raises with a unified diff when the two line lists differ."""
    if reference == ours:
        return
    diff = "\n".join(difflib.unified_diff(reference, ours, "QEMU -kernel",
                                          "apfvisor", lineterm="", n=1))
    raise AssertionError(f"{name}: apfvisor's output differs from QEMU's:"
                         f"\n{diff}")


def run_both(ctx, name, append, initrd_bytes=None, cpus=1):
    kernel = f"{name}.elf"
    shutil.copy(BUILD / "guests" / kernel, ctx.workdir / kernel)
    initrd = None
    if initrd_bytes is not None:
        initrd = "module.bin"
        (ctx.workdir / initrd).write_bytes(initrd_bytes)
    ref = qemu_kernel(ctx, kernel, append, initrd, cpus)
    run = apfvisor_kernel(ctx, kernel, append, initrd, cpus)
    reference = kernel_lines(ref.lines)
    ours = kernel_lines(run.lines, "guest: ")
    expect(len(reference) >= 5,
           f"QEMU's run of {kernel} printed too little to compare "
           f"(exit status {ref.status}): {ref.lines[-5:]}")
    run.expect_absent(r"^apfvisor: error:")
    try:
        compare(kernel, reference, ours)
    except AssertionError as e:
        run.fail(str(e))
    run.expect_status(ref.status)
    return ref, run


def test_multiboot_info(ctx):
    """The multiboot information (magic, memory, command line, a module,
    the memory map) and fw_cfg as a multiboot kernel reads them."""
    ref, run = run_both(ctx, "mbinfo", "one two=3",
                        initrd_bytes=secrets.token_bytes(5000))
    run.expect_regex(r"^apfvisor: multiboot: ELF32 kernel, header flags "
                     r"0x3, 1 segment at 0x100000-")
    run.expect_line("guest: mbinfo: command line 'mbinfo.elf one two=3'")
    run.expect_line("guest: mbinfo: fw_cfg signature 'QEMU'")
    run.expect_line("apfvisor: guest halted: isa-debug-exit value 0x21, "
                    "exit status 67")
    expect(ref.status == 67, f"QEMU's exit status {ref.status}, "
                             f"expected 67 ((0x21 << 1) | 1)")


def test_multiboot_pit(ctx):
    """The 8254 PIT as small kernels use it (mbpit): counter 2 in mode 0
    gated and polled through port 0x61, the latch and read-back commands,
    counter 0 in mode 2 interrupting through the 8259 until 20 ticks."""
    ref, run = run_both(ctx, "mbpit", "pit")
    run.expect_line("guest: mbpit: counter 2 OUT went high: yes")
    run.expect_line("guest: mbpit: 20 ticks")
    run.expect_stat_at_least("pit.irq0_edges", 20)
    run.expect_line("apfvisor: guest halted: isa-debug-exit value 0x22, "
                    "exit status 69")
    expect(ref.status == 69, f"QEMU's exit status {ref.status}, "
                             f"expected 69 ((0x22 << 1) | 1)")


def test_multiboot_ioapic(ctx):
    """The I/O APIC at 0xFEC00000 (tests/guests/multiboot/mbioapic.c): its
    registers, a redirection entry read back, masking, and COM1's IRQ 4
    through it to the boot CPU, edge- and level-triggered (remote IRR and
    the EOI), reached by emulated MMIO from 32-bit code. QEMU 7.2's TCG
    has no x2APIC: the kernel uses the xAPIC page there, the x2APIC MSRs
    under apfvisor (a "host: " line says which)."""
    ref, run = run_both(ctx, "mbioapic", "ioapic")
    run.expect_line("guest: mbioapic: version 0x20, 24 redirection entries")
    run.expect_line("guest: mbioapic: edge: 1 interrupts on vector 0x41, "
                    "in service 1")
    run.expect_line("guest: mbioapic: level: 2 interrupts, remote IRR in "
                    "service 1, after 0")
    run.expect_line("apfvisor: guest halted: isa-debug-exit value 0x31, "
                    "exit status 99")
    expect(ref.status == 99, f"QEMU's exit status {ref.status}, "
                             f"expected 99 ((0x31 << 1) | 1)")


def test_multiboot_xapic(ctx):
    """The local APIC in xAPIC mode at 0xFEE00000, through its page only
    (tests/guests/multiboot/mbxapic.c): IA32_APIC_BASE's reset value, ID
    and version, the timer in periodic mode, fixed IPIs to itself (ICR high
    destination and self shorthand), and vCPU 1 started with INIT/SIPI at
    a real-mode trampoline that prints its own line. Two CPUs in both."""
    ref, run = run_both(ctx, "mbxapic", "xapic", cpus=2)
    run.expect_line("guest: mbxapic: IA32_APIC_BASE 0xfee00000, enabled 1, "
                    "x2APIC 0, BSP 1")
    run.expect_line("guest: mbxapic: ID 0, version 0x14")
    run.expect_line("guest: mbxapic: timer periodic: at least 5 ticks 1, "
                    "count within the initial count 1, stopped count 0")
    run.expect_line("guest: mbxapic: fixed IPI to my ID on vector 0x41: 1, "
                    "self shorthand on vector 0x42: 1")
    run.expect_line("guest: mbxapic: AP up")
    run.expect_line("guest: mbxapic: AP 1 started with INIT/SIPI: yes")
    run.expect_line("apfvisor: guest halted: isa-debug-exit value 0x35, "
                    "exit status 107")
    expect(ref.status == 107, f"QEMU's exit status {ref.status}, "
                              f"expected 107 ((0x35 << 1) | 1)")


# ---- a multiboot kernel nobody here wrote: the specification's example

EXAMPLE = "multiboot-spec-example.elf"
VGA_TEXT = 0xb8000
VGA_ROW_BYTES = 160


def vga_rows(data):
    """Non-blank rows of a VGA text screen (character, attribute pairs) as
    apfvisor prints them (guest/devices/vga_text.c): printable ASCII, NUL as a
    blank, anything else as '.', trailing blanks dropped."""
    rows = {}
    for r in range(25):
        cells = data[r * VGA_ROW_BYTES:(r + 1) * VGA_ROW_BYTES:2]
        text = "".join(chr(c) if 32 <= c < 127 else ("." if c else " ")
                       for c in cells).rstrip()
        if text:
            rows[r] = text
    return rows


def qemu_vga_text(ctx, kernel, append, timeout=90):
    """Runs kernel under QEMU -kernel with a VGA card and reads its text
    screen through the monitor (pmemsave) until it shows "Halted."."""
    sock = ctx.workdir / "monitor.sock"
    dump = ctx.workdir / "vga.bin"
    cmd = [QEMU, "-machine", "pc", "-accel", "tcg", "-m", str(MEGS),
           "-nodefaults", "-vga", "std", "-display", "none",
           "-serial", "null", "-monitor", f"unix:{sock},server,nowait",
           "-kernel", kernel, "-append", append]
    ctx.log("### QEMU -kernel, the screen read through the monitor\n### " +
            " ".join(cmd))
    with open(ctx.workdir / "qemu-vga.err", "wb") as err:
        proc = subprocess.Popen(cmd, cwd=ctx.workdir,
                                stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err)
        try:
            deadline = time.monotonic() + timeout
            while not sock.exists():
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise TestFailure("QEMU did not open its monitor socket")
                time.sleep(0.1)
            # The socket file appears at bind(), a moment before QEMU
            # listens: a connection refused then is tried again.
            mon = socket.socket(socket.AF_UNIX)
            while True:
                try:
                    mon.connect(str(sock))
                    break
                except ConnectionRefusedError:
                    if time.monotonic() > deadline or \
                            proc.poll() is not None:
                        raise TestFailure("QEMU's monitor socket refused "
                                          "every connection")
                    time.sleep(0.1)
            rows = {}
            while time.monotonic() < deadline:
                time.sleep(1)
                dump.unlink(missing_ok=True)
                mon.sendall(f'pmemsave {VGA_TEXT:#x} 4000 "{dump}"\n'
                            .encode())
                for _ in range(50):
                    if dump.exists() and dump.stat().st_size == 4000:
                        break
                    time.sleep(0.1)
                if dump.exists() and dump.stat().st_size == 4000:
                    rows = vga_rows(dump.read_bytes())
                    if "Halted." in rows.values():
                        break
            mon.sendall(b"quit\n")
            mon.close()
        finally:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    ctx.log("".join(f"{r:02d} |{t}|\n" for r, t in sorted(rows.items())))
    return rows


def apfvisor_vga_rows(run):
    rows = {}
    for line in run.lines:
        m = re.match(r"^apfvisor: vga: (\d\d) \|(.*)\|$", line.rstrip())
        if m:
            rows[int(m[1])] = m[2]
    return rows


# What the example kernel prints that depends on the firmware's memory
# layout, not on the multiboot protocol: mem_upper (QEMU's firmware keeps
# the top 128 KiB of RAM), where the module list lies, and the memory map
# itself (QEMU's has the BIOS ROM, the firmware's tables and, for an
# AMD-like CPU, the HyperTransport hole). They are compared by shape below.
LAYOUT_FIELDS = (
    (r"(mem_upper = )\d+KB", r"\1<n>KB"),
    (r"(mods_addr = )0x[0-9a-f]+", r"\1<addr>"),
    (r"(mmap_length = )0x[0-9a-f]+", r"\1<len>"),
)
MMAP_ENTRY = re.compile(r"^ size = 0x14, base_addr = 0x([0-9a-f]+), "
                        r"length = 0x([0-9a-f]+), type = 0x([0-9a-f]+)$")


def protocol_lines(rows):
    """The screen's lines without the layout-dependent values, and the
    memory map's entries as (base, length, type)."""
    lines, mmap = [], []
    for _, text in sorted(rows.items()):
        m = MMAP_ENTRY.match(text)
        if m:
            mmap.append(tuple(int(g, 16) for g in m.groups()))
            continue
        for pattern, repl in LAYOUT_FIELDS:
            text = re.sub(pattern, repl, text)
        lines.append(text)
    return lines, mmap


def test_multiboot_spec_example_kernel(ctx):
    """The Multiboot Specification's example kernel (Debian's `multiboot`
    package, not written here) prints the information it was given to the
    VGA text screen and halts: the same screen under QEMU -kernel and under
    apfvisor, apart from the firmware's memory layout."""
    shutil.copy(BUILD / "guests" / EXAMPLE, ctx.workdir / EXAMPLE)
    append = "one two=3"
    reference = qemu_vga_text(ctx, EXAMPLE, append)
    expect("Halted." in reference.values(),
           f"QEMU's run of {EXAMPLE} never showed 'Halted.' on its screen: "
           f"{reference}")
    run = ctx.boot_cfg(f"guest.kernel = {EXAMPLE}\n"
                       f"guest.cmdline = {append}\n"
                       f"guest.memory = {MEGS}M\n", timeout=300)
    run.expect_regex(r"^apfvisor: multiboot: ELF32 kernel, header flags "
                     r"0x[0-9a-f]+, 1 segment at 0x100000-")
    run.expect_line("apfvisor: multiboot: the kernel asks for a video mode; "
                    "there is no display, so it gets none (as under QEMU)")
    run.expect_line("apfvisor: guest halted: hlt with interrupts disabled")
    ours = apfvisor_vga_rows(run)
    ref_lines, ref_mmap = protocol_lines(reference)
    our_lines, our_mmap = protocol_lines(ours)
    try:
        compare(EXAMPLE + " (its screen)", ref_lines, our_lines)
    except AssertionError as e:
        run.fail(str(e))
    expect(f"cmdline = {EXAMPLE} {append}" in our_lines,
           f"expected the command line '{EXAMPLE} {append}' on the screen: "
           f"{our_lines}")
    for name, mmap in (("QEMU", ref_mmap), ("apfvisor", our_mmap)):
        expect(mmap and mmap[0] == (0, 0x9fc00, 1),
               f"{name}: the memory map should start with RAM "
               f"[0, 0x9fc00): {mmap}")
        expect(any(b == 0x100000 and t == 1 for b, _, t in mmap),
               f"{name}: the memory map has no RAM at 1 MiB: {mmap}")
    run.expect_status(0)
