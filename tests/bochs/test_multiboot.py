# SPDX-License-Identifier: BSD-2-Clause
"""Multiboot kernels, differentially: each test kernel of
tests/guests/multiboot/ runs under QEMU TCG started as `qemu -kernel` starts
it (the reference PC) and under apfvisor in Bochs; the kernel's lines must
be the same in both, line for line, apart from the ones it marks "host: ",
and so must the exit status it asks for through port 0xf4 (QEMU's
isa-debug-exit: (value << 1) | 1)."""

import secrets
import shutil

from lib import BUILD, expect, run_raw

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
    import difflib
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
