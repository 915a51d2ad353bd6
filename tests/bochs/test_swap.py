# SPDX-License-Identifier: BSD-2-Clause
"""Memory overcommit: the Linux guest with 256 MiB of RAM on 64 MiB of host
frames, its pages evicted to a swap area on the ATA disk Bochs provides,
runs memcheck (a per-page pattern of page and pass number, written and read
back over most of its RAM, several passes): nothing may be lost."""

import re
import subprocess
from pathlib import Path

from lib import expect

REPO = Path(__file__).resolve().parent.parent.parent
LINUX_CFG = REPO / "guest" / "linux.cfg"
FRAMES_MIB = 64


# The Linux guest with 256 MiB of RAM on FRAMES_MIB of host frames, running
# command. In 256 MiB the stock kernel and the initramfs leave ~176 MiB:
# memcheck -m 200M is OOM-killed there (seen in Bochs and in QEMU without
# apfvisor alike), 160M fits.
def overcommitted_cfg(vcpus, command, extra=""):
    text = LINUX_CFG.read_text()
    text = re.sub(r'apfvisor\.run="[^"]*"', f'apfvisor.run="{command}"',
                  text)
    return text + (f"\nguest.vcpus = {vcpus}\n"
                   f"host.guest_frames = {FRAMES_MIB}M\n"
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


MEMCHECK_PASSES = 1


def test_memcheck_bzimage_injected_io_errors(ctx):
    # One host CPU: the vCPU's own exits run the paging daemon (2 host
    # CPUs, the boot CPU running the daemon: test_apf.py). memcheck, one
    # pass over 64 MiB (writing it pushes the first pages to swap, checking
    # it reads them back: 16,642 injected failures in a run of
    # 2026-12-06, 24,828 with two passes), while every 7th swap read and
    # every 5th swap write fails in
    # the driver (debug.swap_fail_*): the daemon retries a failed I/O (3
    # attempts in all), and a read's retry is never the 7th read again, so
    # every page comes back. The one right end is memcheck's zero
    # mismatches and a clean power-off, with the failures counted, retried,
    # and the slots of failed writes retired; never a mismatch (a lost or
    # stale page handed to the guest), never a hang, never an error.
    # debug.swap_verify: every page read back is checked against the
    # checksum taken when it was written, so a mix-up of slots or I/O
    # order is caught in the hypervisor even where memcheck does not look
    # (the kernel's and the shell's pages).
    # The kernel is the bzImage (guest.kernel = vmlinuz), entered through
    # its decompressor at +0x200, which unpacks ~30 MiB on 64 MiB of
    # frames; earlyprintk and nokaslr make the decompressor print its one
    # line (Debian's has no CONFIG_X86_VERBOSE_BOOTUP), the proof it ran.
    cfg = overcommitted_cfg(1, f"memcheck -m 64M -p {MEMCHECK_PASSES}",
                            extra="debug.swap_verify = on\n"
                                  "debug.swap_fail_reads = 7\n"
                                  "debug.swap_fail_writes = 5\n")
    cfg = re.sub(r"(?m)^guest\.kernel = .*$", "guest.kernel = vmlinuz", cfg)
    cfg = cfg.replace("console=ttyS0,115200 ",
                      "console=ttyS0,115200 earlyprintk=serial,ttyS0,115200 "
                      "nokaslr ")
    run = ctx.boot_cfg(cfg, cpus=1, timeout=1500,
                       swap=formatted_swap(ctx, "swap.img"))
    ctx.log(f"### wall time {run.wall:.1f} s")
    expect(run.status != 2, "the run hung until the timeout")
    run.expect_regex(r"^apfvisor: linux: bzImage, boot protocol 2\.\d+, "
                     r"6\.1\.")
    run.expect_line("guest: KASLR disabled: 'nokaslr' on cmdline.")
    run.expect_regex(r"^guest: \[ *[\d.]+\] Hypervisor detected: KVM$")
    run.expect_line("guest: apfvisor-guest: init")
    run.expect_line("apfvisor: debug: swap pages are checksummed and "
                    "verified on swap-in")
    run.expect_line("apfvisor: debug: failing every 7th swap read, "
                    "every 5th swap write")
    run.expect_regex(r"^apfvisor: swap: ata0-slave, 512 MiB, \d+ pages, "
                     r"uuid [0-9a-f-]{36}$")
    run.expect_line("apfvisor: config: guest.kernel=vmlinuz guest.memory=256 "
                    "MiB host.guest_frames=64 MiB guest.vcpus=1")
    run.expect_absent(MISMATCH_RE)
    for p in range(1, MEMCHECK_PASSES + 1):
        run.expect_regex(rf"^guest: memcheck: pass {p}: wrote \d+ pages, "
                         r"mismatches 0$")
    run.expect_line("guest: memcheck: total mismatches 0")
    run.expect_line("guest: apfvisor-guest: command exited with status 0")
    # Failures were injected, seen by the daemon and retried; failed
    # writes retired their slots. No read was given up (a page lost); a
    # write given up after its attempts only keeps the page resident
    # (swap.write_failures: 623 in a run of 2026-12-05).
    run.expect_stat_at_least("swap.io_errors", 1)
    run.expect_stat_at_least("swap.slots_retired", 1)
    for name in ("swap.io_retries", "swap.injected_read_failures",
                 "swap.injected_write_failures"):
        run.expect_stat_at_least(name, 1)
    run.expect_stat("swap.read_failures", 0)
    # Pages the guest faulted on while their write was in flight were
    # mapped at once, some of those writes failing afterwards, and every
    # word still came back (956 of them on 2026-12-06).
    run.expect_stat_at_least("swap.writeback_mapped", 1)
    expect_swapped_cleanly(run, injected_errors=True)
    expect_swap_checks_clean(run)


def expect_swapped_cleanly(run, injected_errors=False):
    """A clean power-off after pages went both ways over swap, without an
    error, an OOM kill or a kernel splat, within host.guest_frames = 64M;
    without an I/O error unless the run injects them."""
    run.expect_line("apfvisor: guest powered off")
    run.expect_absent(r"^apfvisor: error:")
    run.expect_absent(r"^guest: .*(Out of memory|Killed process|Call Trace|"
                      r"BUG:|WARNING:)")
    # More guest memory was used than the host backs: pages went both ways.
    run.expect_stat_at_least("swap.outs", 10000)
    run.expect_stat_at_least("swap.ins", 10000)
    run.expect_stat_at_least("swap.shootdowns", 1)
    if not injected_errors:
        expect(run.stat("swap.io_errors") == 0,
               f"expected no I/O errors, got {run.stat('swap.io_errors')}")
    expect(run.stat("frames.peak") <= FRAMES_MIB * 256,
           f"the guest used {run.stat('frames.peak')} frames, more than "
           f"host.guest_frames = {FRAMES_MIB}M allows")
    run.expect_status(0)


# Three memcheck processes at once (test_apf.py's 2-vCPU run), 72 MiB in
# all, beside the kernel's own pages and ymmcheck's (64 MiB of host frames
# hold well under all of it): a dense one,
# one with zeroed pages (the "all-zero page is not written" path, read
# back as zeroes) and one whose two threads write different words of the
# same pages at once, sparsely (one word per page and thread each pass).
# Each prints its label: memcheck[dense]: ..., memcheck[zero]: ...
CONCURRENT = {
    "dense": "memcheck -m 24M -p 2 -l dense",
    "zero": "memcheck -m 24M -p 2 -z -l zero",
    "threads": "memcheck -m 24M -p 2 -t 2 -s -l threads",
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


def expect_xsavec_verdict_kept(run):
    """The boot CPU's XSAVEC probe (arch/x86/xsave_probe.h) and what the
    guest was offered agree: XSAVEC found wrong (Bochs 2.7 misplaces AVX
    state) is hidden, so the kernel saves in the standard format; found
    right it is offered, and the kernel (XSAVES is never offered) saves
    with it in the compacted format. Either Bochs passes; the guest's
    registers themselves are checked by ymmcheck."""
    m = run.expect_regex(r"^apfvisor: cpu: XSAVEC (?:stores extended state "
                         r"at the (wrong|right) offsets|(not tested))")
    verdict = m[1] or m[2]
    f = run.expect_regex(r"^guest: \[ *[\d.]+\] x86/fpu: Enabled xstate "
                         r"features 0x[0-9a-f]+, context size is \d+ bytes, "
                         r"using '(standard|compacted)' format\.$")
    wanted = {"wrong": "standard", "right": "compacted"}.get(verdict)
    expect(wanted is None or f[1] == wanted,
           f"the XSAVEC probe said '{verdict}', so the kernel should save "
           f"in the {wanted} format; it uses the {f[1]} one")


MISMATCH_RE = (r"^guest: memcheck.*(: page \d+ word \d+: got |"
               r"mismatches [1-9])")


SMALL_SWAP_MIB = 4


def test_swap_area_too_small(ctx):
    # A 4 MiB swap area (1023 slots) for memtouch's 28 MiB of pages on
    # 8 MiB of frames: the area fills long before the pages are all
    # touched. The run must end soon after, with exactly one error
    # saying so (apfvisor stops the guest rather than lose a page), never
    # by the timeout and never with a page read back wrong
    # (debug.swap_verify). A small guest, not Linux: the path is the
    # hypervisor's alone (until 2026-12-06 this was Linux with memcheck
    # -m 160M and 16 MiB of swap: 83 s of the suite, this ~15 s).
    run = ctx.boot_cfg("guest.kernel = memtouch.bin\nguest.format = flat\n"
                       "guest.memory = 32M\nhost.guest_frames = 8M\n"
                       "swap.device = ata\ndebug.swap_verify = on\n",
                       cpus=1, timeout=600,
                       swap=formatted_swap(ctx, "swap.img",
                                           f"{SMALL_SWAP_MIB}M"))
    ctx.log(f"### wall time {run.wall:.1f} s")
    run.expect_regex(rf"^apfvisor: swap: ata0-slave, {SMALL_SWAP_MIB} MiB, "
                     r"\d+ pages")
    expect(run.status != 2, "the run hung until the timeout")
    expect_swap_checks_clean(run)
    errors = [l for l in run.lines if l.startswith("apfvisor: error:")]
    slots = SMALL_SWAP_MIB * 1024 * 1024 // 4096 - 1
    expect(len(errors) == 1 and re.match(
        rf"apfvisor: error: swap: out of memory: swap area full "
        rf"\((\d+ of )?{slots} slots", errors[0]),
        f"expected exactly one 'apfvisor: error: swap: out of memory: swap "
        f"area full ({slots} slots...' line, got:\n" +
        "\n".join("    > " + l for l in errors[:6] or ["(none)"]))
    run.expect_stat_at_least("swap.full_events", 1)
    # The area filled with pages of memtouch's first pass: it never got
    # to check them (and so never to a verdict).
    run.expect_absent(r"^guest: memtouch: (PASS|FAIL)")
    run.expect_status(1)


def test_whole_page_stores(ctx):
    # memtouch's rep pass (guest.cmdline = rep): 28 MiB of pages filled,
    # then each written again by one REP STOSQ, on 8 MiB of frames. By
    # the rep pass most pages are in swap; each is given a frame already
    # holding its new value instead of being read back
    # (swap.whole_page_stores, on by default), and memtouch's last pass
    # checks every qword of them. Reads are held 1 ms, as the
    # benchmarks' are, so that a page read instead would show.
    run = ctx.boot_cfg("guest.kernel = memtouch.bin\nguest.format = flat\n"
                       "guest.memory = 32M\nhost.guest_frames = 8M\n"
                       "guest.cmdline = rep\nswap.device = ata\n"
                       "swap.read_latency = 1ms\ndebug.swap_verify = on\n",
                       cpus=1, timeout=600,
                       swap=formatted_swap(ctx, "swap.img", "64M"))
    run.expect_line("guest: memtouch: pages written again by rep stosq")
    run.expect_line("guest: memtouch: PASS")
    expect_swap_checks_clean(run)
    pages = 28 * 1024 // 4
    frames = 8 * 1024 // 4
    # Every page not in a frame when the rep pass reached it: all but
    # the last few MiB of pass 1 (what the 8 MiB of frames kept).
    overwrites = run.stat("swap.overwrites")
    expect(overwrites >= pages - frames,
           f"swap.overwrites {overwrites}: expected at least "
           f"{pages - frames} of the {pages} pages to be written by the "
           f"rep pass without a read")
    # Only the last pass reads memtouch's pages back: at most one read
    # per page, plus the reads of the guest's own 4 MiB below them (its
    # code, stack and page tables, evicted too). Reads in the rep pass
    # would make it about two per page (14,341 in a run with
    # swap.whole_page_stores = off).
    ins = run.stat("swap.ins")
    expect(ins <= pages + 1024,
           f"swap.ins {ins}: more than one read per page ({pages} pages "
           f"and 1024 below them)")
    run.expect_status(0)
