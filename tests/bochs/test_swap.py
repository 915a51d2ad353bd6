# SPDX-License-Identifier: BSD-2-Clause
"""Memory overcommit: the Linux guest with 256 MiB of RAM on 64 MiB of host
frames, its pages evicted to a swap area on the ATA disk Bochs provides,
runs memcheck (a per-page pattern of page and pass number, written and read
back over most of its RAM, several passes): nothing may be lost."""

import re
import subprocess
from pathlib import Path

from lib import cases, expect

REPO = Path(__file__).resolve().parent.parent.parent
LINUX_CFG = REPO / "guest" / "linux.cfg"
# 160 MiB, not the 200 of the issue: in a 256 MiB guest the stock kernel and
# the initramfs leave ~176 MiB, and memcheck -m 200M is OOM-killed there
# (seen in Bochs and in QEMU without apfvisor alike).
MEMCHECK = "memcheck -m 160M -p 3"


def overcommitted_cfg(vcpus, command=MEMCHECK, extra=""):
    text = LINUX_CFG.read_text()
    text = re.sub(r'apfvisor\.run="[^"]*"', f'apfvisor.run="{command}"',
                  text)
    return text + (f"\nguest.vcpus = {vcpus}\nhost.guest_frames = 64M\n"
                   "swap.device = ata\n") + extra


# debug.swap_verify's findings: each must stay 0.
VERIFY_STATS = ("swap.verify_mismatches", "swap.verify_clean_changed",
                "swap.quarantine_changed", "swap.frame_free_errors")


def expect_swap_checks_clean(run):
    for name in VERIFY_STATS:
        run.expect_stat(name, 0)


def formatted_swap(ctx, name, size="512M"):
    image = ctx.workdir / name
    subprocess.run([str(REPO / "tools" / "apfswap-format"), str(image), size],
                   check=True, stdout=subprocess.DEVNULL)
    return image


@cases(cpus=(1,))
def test_memcheck_overcommitted(ctx, cpus):
    # 1 host CPU: the vCPU's own exits run the paging daemon. (2 host CPUs,
    # the boot CPU running the daemon: test_apf.test_linux_apf_memcheck.)
    # debug.swap_verify: every page read back is checked against the
    # checksum taken when it was written, so a mix-up of slots or I/O
    # order is caught in the hypervisor even where memcheck does not look
    # (the kernel's and the shell's pages).
    run = ctx.boot_cfg(overcommitted_cfg(1, extra="debug.swap_verify = on\n"),
                       cpus=cpus, timeout=1500,
                       swap=formatted_swap(ctx, "swap.img"))
    run.expect_line("apfvisor: debug: swap pages are checksummed and "
                    "verified on swap-in")
    run.expect_regex(r"^apfvisor: swap: ata0-slave, 512 MiB, \d+ pages, "
                     r"uuid [0-9a-f-]{36}$")
    run.expect_line("apfvisor: config: guest.kernel=vmlinux guest.memory=256 "
                    "MiB host.guest_frames=64 MiB guest.vcpus=1")
    for p in (1, 2, 3):
        run.expect_regex(rf"^guest: memcheck: pass {p}: wrote \d+ pages, "
                         r"mismatches 0$")
    run.expect_line("guest: memcheck: total mismatches 0")
    run.expect_line("guest: apfvisor-guest: command exited with status 0")
    expect_swapped_cleanly(run)
    expect_swap_checks_clean(run)


def expect_swapped_cleanly(run):
    """A clean power-off after pages went both ways over swap, without an
    error, an OOM kill or a kernel splat, within host.guest_frames = 64M."""
    run.expect_line("apfvisor: guest powered off")
    run.expect_absent(r"^apfvisor: error:")
    run.expect_absent(r"^guest: .*(Out of memory|Killed process|Call Trace|"
                      r"BUG:|WARNING:)")
    # More guest memory was used than the host backs: pages went both ways.
    run.expect_stat_at_least("swap.outs", 10000)
    run.expect_stat_at_least("swap.ins", 10000)
    run.expect_stat_at_least("swap.shootdowns", 1)
    expect(run.stat("swap.io_errors") == 0,
           f"expected no I/O errors, got {run.stat('swap.io_errors')}")
    expect(run.stat("frames.peak") <= 64 * 256,
           f"the guest used {run.stat('frames.peak')} frames, more than "
           "host.guest_frames = 64M allows")
    run.expect_status(0)


# Three memcheck processes at once, 96 MiB in all, beside the kernel's own
# pages (64 MiB of host frames hold about half of that): a dense one,
# one with zeroed pages (the "all-zero page is not written" path, read
# back as zeroes) and one whose two threads write different words of the
# same pages at once, sparsely (one word per page and thread each pass).
# Each prints its label: memcheck[dense]: ..., memcheck[zero]: ...
CONCURRENT = {
    "dense": "memcheck -m 32M -p 2 -l dense",
    "zero": "memcheck -m 32M -p 2 -z -l zero",
    "threads": "memcheck -m 32M -p 2 -t 2 -s -l threads",
}


def expect_memchecks_clean(run, labels, passes):
    """Every labelled memcheck finished every pass with 0 mismatches, and
    none reported a mismatched word."""
    run.expect_absent(r"^guest: memcheck.*: page \d+ word \d+: got ")
    for label in labels:
        prefix = rf"^guest: memcheck\[{label}\]: "
        for p in range(1, passes + 1):
            run.expect_regex(prefix + rf"pass {p}: wrote \d+ pages, "
                             r"mismatches 0$")
        run.expect_line(f"guest: memcheck[{label}]: total mismatches 0")


def test_memcheck_concurrent_2vcpus(ctx):
    # 2 vCPUs on 3 host CPUs: the boot CPU runs the paging daemon, the two
    # APs the vCPUs, so two vCPUs fault on the same pages (the threaded
    # memcheck) and on different processes' pages at once. Slow: Bochs
    # emulates the three CPUs in turn, the spinning service CPU included
    # (with 3 x 48M, 30 min with three emulators on 2 cores, unfinished).
    command = " & ".join(CONCURRENT.values()) + "; wait"
    run = ctx.boot_cfg(overcommitted_cfg(2, command), cpus=3, timeout=2400,
                       swap=formatted_swap(ctx, "swap.img"))
    ctx.log(f"### wall time {run.wall:.1f} s")
    run.expect_line("apfvisor: config: guest.kernel=vmlinux guest.memory=256 "
                    "MiB host.guest_frames=64 MiB guest.vcpus=2")
    run.expect_line("apfvisor: host cpus: 3 (UEFI MP services)")
    run.expect_line("apfvisor: vcpu 0 runs on host cpu 1")
    run.expect_line("apfvisor: vcpu 1 runs on host cpu 2")
    run.expect_regex(r"^guest: \[ *[\d.]+\] smp: Brought up 1 node, "
                     r"2 CPUs$")
    # Bochs's XSAVEC misplaces AVX state: found, and not offered, so the
    # kernel saves in the standard format. With it, tasks that slept in an
    # async page fault in the middle of a SIMD copy got their AVX registers
    # back wrong: memcheck's printf lines came out as NUL bytes.
    expect_xsavec_hidden(run)
    run.expect_line("guest: memcheck[threads]: 8192 pages of 4096 bytes, "
                    "2 passes, sparse, 2 threads")
    expect_memchecks_clean(run, CONCURRENT, 2)
    run.expect_absent(r"^guest: .*\\x00")
    # memcheck[zero] zeroes a quarter of its pages in each pass.
    run.expect_stat_at_least("swap.zero_pages_skipped", 1000)
    expect_swapped_cleanly(run)
    # Both vCPUs' kernels took "page not present" tokens, each got its
    # page-ready.
    run.expect_stat("apf.vcpus_enabled", 2)
    sent, ready = run.stat("apf.not_present"), run.stat("apf.page_ready")
    expect(sent > 0 and sent == ready,
           f"tokens sent {sent}, page-ready {ready}")


def expect_xsavec_hidden(run):
    run.expect_line("apfvisor: cpu: XSAVEC stores extended state at the "
                    "wrong offsets (Bochs 2.7 does); the guest is not offered "
                    "XSAVEC and saves in the standard format")
    run.expect_regex(r"^guest: \[ *[\d.]+\] x86/fpu: Enabled xstate "
                     r"features 0x[0-9a-f]+, context size is \d+ bytes, "
                     r"using 'standard' format\.$")


MISMATCH_RE = (r"^guest: memcheck.*(: page \d+ word \d+: got |"
               r"mismatches [1-9])")


def test_memcheck_injected_io_errors(ctx):
    # Every 7th swap read and every 5th swap write fails in the driver
    # (debug.swap_fail_*): the daemon retries a failed I/O (3 attempts in
    # all). Acceptable ends: memcheck's zero mismatches and a clean
    # power-off, or an "apfvisor: error:" line naming the page (gpa) that
    # could not be saved or brought back. Never a mismatch (a lost or stale
    # page handed to the guest), never a hang.
    # Measured: 0 mismatches, swap.io_errors 41539, 901 s of wall time
    # with other emulators beside it.
    cfg = overcommitted_cfg(1, "memcheck -m 128M -p 2", extra=(
        "debug.swap_fail_reads = 7\ndebug.swap_fail_writes = 5\n"))
    run = ctx.boot_cfg(cfg, cpus=2, timeout=1200,
                       swap=formatted_swap(ctx, "swap.img"))
    ctx.log(f"### wall time {run.wall:.1f} s")
    run.expect_line("apfvisor: debug: failing every 7th swap read, "
                    "every 5th swap write")
    expect(run.status != 2, "the run hung until the timeout")
    run.expect_absent(MISMATCH_RE)
    errors = [l for l in run.lines if l.startswith("apfvisor: error:")]
    if errors:
        expect(any(re.search(r"\bgpa 0x[0-9a-f]+", l) for l in errors),
               "apfvisor reported errors, none naming the page (gpa):\n" +
               "\n".join("    > " + l for l in errors[:5]))
        run.expect_status(1)
        return
    for p in (1, 2):
        run.expect_regex(rf"^guest: memcheck: pass {p}: wrote \d+ pages, "
                         r"mismatches 0$")
    run.expect_line("guest: memcheck: total mismatches 0")
    run.expect_line("apfvisor: guest powered off")
    # Failures were injected, seen by the daemon and retried; failed
    # writes retired their slots.
    run.expect_stat_at_least("swap.io_errors", 1)
    run.expect_stat_at_least("swap.slots_retired", 1)
    for name in ("swap.io_retries", "swap.injected_read_failures",
                 "swap.injected_write_failures"):
        run.expect_stat_at_least(name, 1)
    run.expect_status(0)


def test_swap_area_too_small(ctx):
    # A 16 MiB swap area (4095 slots) for a working set of ~100 MiB more
    # than the 64 MiB of frames: the run must end soon after the area
    # fills, with one clear error about it, or by the guest's own OOM
    # handling, never by the timeout and never with a mismatch.
    # debug.swap_verify: should a page come back wrong here (the open bug
    # in README's Known limits), the hypervisor says which and how.
    run = ctx.boot_cfg(overcommitted_cfg(1, "memcheck -m 160M -p 2",
                                         extra="debug.swap_verify = on\n"),
                       cpus=2, timeout=900,
                       swap=formatted_swap(ctx, "swap.img", "16M"))
    ctx.log(f"### wall time {run.wall:.1f} s")
    run.expect_regex(r"^apfvisor: swap: ata0-slave, 16 MiB, \d+ pages")
    expect(run.status != 2, "the run hung until the timeout")
    expect_swap_checks_clean(run)
    run.expect_absent(MISMATCH_RE)
    errors = [l for l in run.lines if l.startswith("apfvisor: error:")]
    oom = [l for l in run.lines
           if re.search(r"^guest: .*(Out of memory|Killed process)", l)]
    if errors or not oom:
        expect(len(errors) == 1 and re.search(
            r"swap.*(full|too small|insufficient|not enough)", errors[0]),
            "expected exactly one 'apfvisor: error:' line saying the swap "
            "area is full (or the guest's OOM killer), got:\n" +
            "\n".join("    > " + l for l in errors[:6] or ["(none)"]))
        run.expect_status(1)
        return
    run.expect_line("apfvisor: guest powered off")
    run.expect_status(0)
