# SPDX-License-Identifier: BSD-2-Clause
"""Async page faults (KVM's PV protocol, ../shared/APF-PROTOCOL.md) with a
flat test guest that brings its own handler: the #GP cases of the MSRs, then
"page not present" with a token, other work while the page comes back, and
page-ready with the same token, under overcommit with 1 and 2 host CPUs."""

import re
from pathlib import Path

from lib import cases, expect
from test_trace import (APFTEST_TRACE_CFG, expect_apftest_trace,
                        expect_chrome_trace)
from test_swap import (CONCURRENT, expect_memchecks_clean,
                       expect_swap_checks_clean, expect_swapped_cleanly,
                       expect_xsavec_verdict_kept, formatted_swap,
                       overcommitted_cfg)


GUESTS = Path(__file__).resolve().parent.parent / "guests"
PAGE = 4096
MIB = 1 << 20
APFTEST_SWAP_MIB = 128


def cfg_megs(text, key):
    """The MiB of a 'key = NM' line of a config."""
    m = re.search(rf"(?m)^{re.escape(key)} = (\d+)M$", text)
    expect(m, f"the config has no '{key} = <N>M' line")
    return int(m[1])


def expect_slot_line(run, swap_mib, guest_mib):
    """A swap disk larger than the guest needs: the slot bitmap covers the
    guest's pages and a sixteenth more (for retired slots), not the whole
    disk (whose first page is the header)."""
    slots = swap_mib * MIB // PAGE - 1
    pages = guest_mib * MIB // PAGE
    used = pages + pages // 16
    expect(used < slots, f"test bug: a {swap_mib} MiB disk is not larger "
           f"than a {guest_mib} MiB guest needs")
    run.expect_line(f"apfvisor: swap: the swap area has {slots} slots; a "
                    f"guest of {pages} pages uses the first {used}")


APFTEST_READ_LATENCY_S = 100e-6      # swap.read_latency in apftest.cfg


def expect_latency_at_least(run, path, seconds):
    """The median of histogram lat.PATH is at least `seconds` of the TSC
    rate the run measured (a bucket's upper end is reported: never less
    than the true median)."""
    m = run.expect_regex(r"^apfvisor: tsc: (\d+\.\d{3}) MHz from ")
    floor = float(m[1]) * 1e6 * seconds
    p50 = run.stat(f"lat.{path}.p50_tsc")
    expect(p50 >= floor, f"expected lat.{path}.p50_tsc >= {floor:.0f} "
           f"({seconds * 1e6:.0f} us), got {p50}")
    expect(run.stat(f"lat.{path}.max_tsc") >= p50,
           f"lat.{path}.max_tsc below its median")


@cases(cpus=(1, 2))
def test_apftest_guest(ctx, cpus):
    # With 2 host CPUs the run is traced too, and the trace checked
    # (test_trace.py's expect_apftest_trace): one boot for both.
    cfg = (GUESTS / "apftest.cfg").read_text()
    trace = ctx.workdir / "apftest.apft"
    swap = formatted_swap(ctx, "swap.img", f"{APFTEST_SWAP_MIB}M")
    if cpus == 2:
        run = ctx.boot_cfg(cfg + APFTEST_TRACE_CFG, cpus=cpus, timeout=900,
                           swap=swap, extra=("--trace", str(trace)))
    else:
        run = ctx.boot_guest("apftest", cpus=cpus, timeout=900, swap=swap)
    run.expect_line("guest: apftest: 3 refused MSR values raised #GP")
    expect_slot_line(run, APFTEST_SWAP_MIB, cfg_megs(cfg, "guest.memory"))
    m = run.expect_regex(r"^guest: apftest: data verified; async faults "
                         r"(\d+), page-ready (\d+), wake-all (\d+), other "
                         r"work while waiting (\d+)$")
    faults, ready = int(m[1]), int(m[2])
    expect(faults > 0, "no async page fault reached the guest")
    expect(ready == faults, f"page-ready {ready} != async faults {faults}")
    # Turned off with a token outstanding: no page-ready for it, and the
    # rest of that pass (the same data) is served synchronously.
    run.expect_regex(r"^guest: apftest: turned off with token 0x[0-9a-f]+ "
                     r"outstanding; data verified synchronously$")
    m = run.expect_regex(r"^guest: apftest: on again; data verified; async "
                         r"faults (\d+), page-ready (\d+), stale page-ready "
                         r"0$")
    faults_on, ready_on = int(m[1]), int(m[2])
    expect(faults_on > 0 and ready_on == faults_on,
           f"after re-enabling: async faults {faults_on}, page-ready "
           f"{ready_on}")
    run.expect_line("guest: apftest: PASS")
    # The hypervisor's counters agree with what the guest saw: every token
    # sent, the one outstanding at "off" included; page-ready for all but it.
    sent = faults + 1 + faults_on
    expect(run.stat("apf.not_present") == sent,
           f"apf.not_present {run.stat('apf.not_present')} != {sent}")
    expect(run.stat("apf.page_ready") == ready + ready_on,
           f"apf.page_ready {run.stat('apf.page_ready')} != "
           f"{ready + ready_on}")
    expect(run.stat("apf.dropped") == 1,
           f"apf.dropped {run.stat('apf.dropped')}, expected the 1 token "
           "outstanding when the guest turned the protocol off")
    run.expect_stat("swap.read_failures", 0)
    run.expect_stat_at_least("apf.vcpus_enabled", 1)
    run.expect_stat_at_least("swap.reads_delayed", 1)
    # The latency histograms (lib/latency_hist.h): one entry per
    # page-ready, its median at least the time reads are held back for,
    # and every first touch (a minor fault) timed.
    expect(run.stat("lat.apf_ready.count") == run.stat("apf.page_ready"),
           f"lat.apf_ready.count {run.stat('lat.apf_ready.count')} != "
           f"apf.page_ready {run.stat('apf.page_ready')}")
    expect_latency_at_least(run, "apf_ready", APFTEST_READ_LATENCY_S)
    run.expect_stat_at_least("lat.fault_minor.count", 1)
    run.expect_line("apfvisor: guest halted: test-exit code 0")
    run.expect_status(0)
    if cpus == 2:
        expect_apftest_trace(run, trace)


YMMCHECK_THREADS = 2
YMMCHECK = f"ymmcheck -t {YMMCHECK_THREADS} -m 8M"
# Long enough that nearly every fault on a page in swap goes out as a
# token (thousands of them), short enough that the run is not mostly
# emulated waiting: over 20,000-odd swap-ins each 100 us of latency costs
# ~0.25e9 emulated ticks at the tests' ips. A token goes out when the
# read is not done by the time the fault is handled, which 100 us still
# is (apftest too holds reads 100 us). make bench-apf measures 0, 200 us,
# 1 ms and 5 ms.
READ_LATENCY_US = 100


def apf_memcheck_run(ctx, vcpus, command, extra="", trace=None):
    """The Linux guest over swap (256 MiB on 64 MiB of frames, reads held
    to READ_LATENCY_US, async PF on, debug.swap_verify on) with one host
    CPU per vCPU plus the paging daemon's, running command; with trace (a
    path), the trace disk is written there."""
    run = ctx.boot_cfg(overcommitted_cfg(
        vcpus, command,
        extra=f"swap.read_latency = {READ_LATENCY_US}us\n"
              "debug.swap_verify = on\n" + extra),
        cpus=vcpus + 1, timeout=1800, swap=formatted_swap(ctx, "swap.img"),
        extra=("--trace", str(trace), "--trace-size", "160M")
        if trace else ())
    ctx.log(f"### wall time {run.wall:.1f} s")
    run.expect_line(f"apfvisor: swap: reads complete {READ_LATENCY_US} us "
                    "after submission at the earliest (swap.read_latency)")
    run.expect_line(f"apfvisor: host cpus: {vcpus + 1} (UEFI MP services)")
    for n in range(vcpus):
        run.expect_line(f"apfvisor: vcpu {n} runs on host cpu {n + 1}")
        run.expect_stat_at_least(f"host_cpu.{n + 1}.vm_entries", 1)
    run.expect_regex(rf"^guest: \[ *[\d.]+\] smp: Brought up 1 node, "
                     rf"{vcpus} CPUs?$")
    return run


def expect_apf_memcheck_clean(run, vcpus):
    """Whatever ran under ymmcheck: the registers held, no NUL bytes in
    the guest's lines, the swap checks clean, every token sent on every
    vCPU got its page-ready."""
    # Bochs's XSAVEC misplaces AVX state: found, and not offered, so the
    # kernel saves in the standard format; ymmcheck checks the registers.
    expect_xsavec_verdict_kept(run)
    run.expect_absent(r"^guest: ymmcheck: thread \d+ step \d+ after")
    m = run.expect_regex(rf"^guest: ymmcheck: {YMMCHECK_THREADS} threads, "
                         r"(\d+) checks "
                         r"\((\d+) sleeps, (\d+) yields, (\d+) page "
                         r"reads\), mismatches (\d+)$")
    checks, sleeps, yields, reads, bad = map(int, m.groups())
    expect(bad == 0, f"ymmcheck found {bad} registers changed")
    # Each thread takes at least 100 steps, in turn of the three kinds.
    expect(min(sleeps, yields, reads) >= YMMCHECK_THREADS * 100 // 3,
           f"ymmcheck did too little: {m[0]}")
    run.expect_absent(r"^guest: .*\\x00")
    run.expect_line("apfvisor: guest powered off")
    run.expect_absent(r"^apfvisor: error:")
    expect_swap_checks_clean(run)
    run.expect_stat("apf.vcpus_enabled", vcpus)
    run.expect_stat_at_least("swap.reads_delayed", 1000)
    sent, ready = run.stat("apf.not_present"), run.stat("apf.page_ready")
    expect(sent >= 1000, f"only {sent} 'page not present' tokens sent")
    expect(sent == ready, f"tokens sent {sent} != page-ready {ready}")
    run.expect_status(0)


MEMCHECK_MIB = 64
# After memcheck (its boot is shared): a page that cannot be read back.
# ("[f]": the pattern does not match the kernel's command line, which
# holds it.)
MCETEST = "mcetest -m 160 && dmesg | grep 'Memory [f]ailure'"


def expect_lost_page_killed_its_owner(run):
    """mcetest (guest/programs/mcetest/mcetest.c): its page is made unreadable in
    swap (debug.hypercall), evicted on request (the same hypercall), and
    touched. The swap-in fails
    for good, the page is lost, and the guest gets an action-required
    machine check for it (bank 9, SRAR data load, ADDR = its gpa); Linux's
    memory_failure() kills the process that owned it with SIGBUS
    (BUS_MCEERR_AR) and the kernel log says so for that pfn; the shell
    runs the next command and the VM powers off cleanly."""
    m = run.expect_regex(r"^guest: mcetest: buffer at pfn 0x([0-9a-f]+)$")
    pfn = int(m[1], 16)
    gpa = pfn * PAGE
    run.expect_line(f"apfvisor: debug: reads of gpa {gpa:#x} from swap "
                    "will fail")
    run.expect_line(f"apfvisor: debug: the page at gpa {gpa:#x} is evicted")
    run.expect_line("guest: mcetest: the page is in swap (evicted on "
                    "request); reading it")
    run.expect_line(f"apfvisor: swap: the page at gpa {gpa:#x} could not be "
                    "read back (3 attempts): lost; an access to it is a "
                    "machine check for the guest")
    run.expect_regex(r"^apfvisor: vcpu 0: machine check \(action required, "
                     rf"data load\) injected for lost gpa {gpa:#x} at rip "
                     r"0x[0-9a-f]+$")
    run.expect_line("guest: mcetest: SIGBUS, si_code 4 (BUS_MCEERR_AR), at "
                    "the buffer")
    run.expect_line("guest: mcetest: child killed by signal 7 (Bus error)")
    # mm/memory-failure.c, kill_proc(): the pfn and the process.
    sigbus = (rf"^guest: .*Memory failure: {pfn:#x}: Sending SIGBUS to "
              r"mcetest:\d+ due to hardware memory corruption$")
    run.expect_regex(sigbus)
    run.expect_stat("mce.injected", 1)
    run.expect_stat("swap.pages_lost", 1)
    run.expect_stat("swap.reads_made_to_fail", 3)
    run.expect_order(r"^guest: mcetest: buffer at pfn ",
                     r"^apfvisor: vcpu 0: machine check ",
                     r"^guest: mcetest: child killed by signal 7",
                     sigbus,
                     r"^guest: apfvisor-guest: command exited with status 0$",
                     r"^apfvisor: guest powered off$")


BM = "bm -f 1 -w 1 -t 2 -m 100M"


def test_linux_apf_memcheck_1vcpu(ctx):
    # memcheck over 64 MiB (one pass: writing it swaps out, reading it
    # back swaps in) on 1 vCPU, with a second host CPU for the paging
    # daemon: every word it wrote comes back, while its faults went out as
    # "page not present" tokens and came back as page-ready. Meanwhile
    # ymmcheck's threads hold known values in ymm0-15 across sleeps,
    # yields and reads of their own pages (in swap as often as not: async
    # page faults) and check them every time: the kernel's context
    # switches in the middle of an async fault must give every task its
    # AVX registers back (Bochs' wrong XSAVEC once broke it). Then, on the
    # same boot, the 2010 benchmark (bm: a thread faulting on 100 MiB
    # beside a worker) and mcetest: a page lost to swap is a machine check
    # that kills only its owner (expect_lost_page_killed_its_owner).
    # The run is traced: its Chrome trace must have the tracks and one flow
    # per token (tests/bochs/test_trace.py checks a test guest's in full).
    # (bm had a boot of its own until 2026-12-07: 115 s of the suite.)
    trace = ctx.workdir / "linux.apft"
    run = apf_memcheck_run(ctx, 1, f"{YMMCHECK} memcheck -m "
                                   f"{MEMCHECK_MIB}M -p 1 && {BM} && "
                                   f"hypercall mark 7 && {MCETEST}",
                           extra="debug.hypercall = on\ntrace = on\n"
                                 "trace.buffer = 64M\n",
                           trace=trace)
    pages = MEMCHECK_MIB * MIB // PAGE
    run.expect_regex(rf"^guest: memcheck: pass 1: wrote {pages} pages, "
                     r"mismatches 0$")
    run.expect_line("guest: memcheck: total mismatches 0")
    m = run.expect_regex(r"^guest: total: (\d+)$")
    expect(int(m[1]) > 0, f"expected bm's total above 0, got {m[1]}")
    expect_mark(run, 7)
    run.expect_line("guest: apfvisor-guest: command exited with status 0")
    expect_apf_memcheck_clean(run, 1)
    expect_lost_page_killed_its_owner(run)
    # Each page-ready interrupt is alone in service: its EOI is the PV
    # one (guest/pv_eoi.c), so there are at least as many as tokens.
    ready = run.stat("apf.page_ready")
    run.expect_stat_at_least("lapic.pv_eois", ready)
    m = run.expect_regex(r"^apfvisor: trace: (\d+) records \((\d+) lost\)")
    expect(int(m[2]) == 0, f"{m[2]} trace records lost in 64 MiB rings")
    expect_chrome_trace(trace, tokens=ready)


def expect_mark(run, n):
    """debug.hypercall's mark n (tools/bench-real's phases): one line with
    the phase counters as they were then, after memcheck and bm swapped,
    none of them above its value at the end of the run."""
    m = run.expect_regex(rf"^apfvisor: mark {n}: swap\.ins (\d+) swap\.outs "
                         r"(\d+) apf\.not_present (\d+) apf\.page_ready "
                         r"(\d+) balloon\.reported_pages (\d+) "
                         r"swap\.discard_refaults (\d+) swap\.overwrites "
                         r"(\d+)$")
    names = ("swap.ins", "swap.outs", "apf.not_present", "apf.page_ready",
             "balloon.reported_pages", "swap.discard_refaults",
             "swap.overwrites")
    for name, value in zip(names, map(int, m.groups())):
        expect(value <= run.stat(name),
               f"mark {n}: {name} {value} above its final {run.stat(name)}")
    expect(int(m[1]) >= 10000 and int(m[3]) >= 1000,
           f"mark {n} came before the swapping: {m[0]}")


SQLBENCH_ROWS = 5000


def test_linux_apf_memcheck_2vcpus_concurrent(ctx):
    # 2 vCPUs on 3 host CPUs (the boot CPU runs the paging daemon): three
    # memchecks at once (CONCURRENT in test_swap.py: dense, with zeroed
    # pages, and two threads writing different words of the same pages),
    # so both vCPUs fault on one page whose swap-in is in flight and on
    # different processes' pages at once, with ymmcheck's threads beside
    # them; two passes each, every word back, every token answered; then
    # sqlbench (Debian's sqlite3) over what the memchecks left in swap.
    dense, zero, threads = (CONCURRENT[k] for k in ("dense", "zero",
                                                     "threads"))
    run = apf_memcheck_run(ctx, 2, f"{dense} & {zero} & {YMMCHECK} "
                                   f"{threads}; wait; sqlbench "
                                   f"{SQLBENCH_ROWS}")
    threads_mib = int(re.search(r"-m (\d+)M", threads)[1])
    run.expect_line(f"guest: memcheck[threads]: {threads_mib * MIB // PAGE} "
                    "pages of 4096 bytes, 2 passes, sparse, 2 threads")
    expect_memchecks_clean(run, CONCURRENT, 2)
    # Then a program nobody here wrote, with its shared libraries: Debian's
    # sqlite3 builds and sorts a table in the guest's memory.
    run.expect_regex(rf"^guest: sqlbench: {SQLBENCH_ROWS} rows, 0 out of "
                     r"order, \d+\.\d\d seconds$")
    # memcheck[zero] zeroes a quarter of its pages in each pass.
    run.expect_stat_at_least("swap.zero_pages_skipped", 1000)
    expect_swapped_cleanly(run)
    expect_apf_memcheck_clean(run, 2)
