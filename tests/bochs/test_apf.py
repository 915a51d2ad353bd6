# SPDX-License-Identifier: BSD-2-Clause
"""Async page faults (KVM's PV protocol, ../shared/APF-PROTOCOL.md) with a
flat test guest that brings its own handler: the #GP cases of the MSRs, then
"page not present" with a token, other work while the page comes back, and
page-ready with the same token, under overcommit with 1 and 2 host CPUs."""

import re

from lib import cases, expect
from test_trace import expect_chrome_trace
from test_swap import (expect_swap_checks_clean, expect_xsavec_hidden,
                       formatted_swap, overcommitted_cfg)


@cases(cpus=(1, 2))
def test_apftest_guest(ctx, cpus):
    run = ctx.boot_guest("apftest", cpus=cpus, timeout=900,
                         swap=formatted_swap(ctx, "swap.img", "128M"))
    run.expect_line("guest: apftest: 3 refused MSR values raised #GP")
    # A 128 MiB swap disk for a 64 MiB guest: the slot bitmap covers the
    # guest's pages and a sixteenth more, not the whole disk.
    run.expect_line("apfvisor: swap: the swap area has 32767 slots; a guest "
                    "of 16384 pages uses the first 17408")
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
    run.expect_line("apfvisor: guest halted: test-exit code 0")
    run.expect_status(0)


def test_linux_apf_bm(ctx):
    # The stock kernel's own async-PF path under overcommit (256 MiB on
    # 64 MiB of frames), reads held to 1 ms: the 2010 benchmark runs, the
    # kernel enables the protocol, and every token sent gets its page-ready.
    # The run is traced: its Chrome trace must have the tracks and one flow
    # per token (tests/bochs/test_trace.py checks a test guest's in full).
    trace = ctx.workdir / "linux.apft"
    run = ctx.boot_cfg(overcommitted_cfg(
        1, "bm -f 1 -w 1 -t 2 -m 150M",
        extra="swap.read_latency = 1ms\ntrace = on\ntrace.buffer = 64M\n"),
        cpus=2, timeout=1500, swap=formatted_swap(ctx, "swap.img"),
        extra=("--trace", str(trace), "--trace-size", "160M"))
    m = run.expect_regex(r"^guest: total: (\d+)$")
    expect(int(m[1]) > 0, f"expected bm's total above 0, got {m[1]}")
    run.expect_line("apfvisor: guest powered off")
    run.expect_stat_at_least("apf.vcpus_enabled", 1)
    sent, ready = run.stat("apf.not_present"), run.stat("apf.page_ready")
    expect(sent > 0, "the kernel got no 'page not present'")
    expect(sent == ready, f"tokens sent {sent} != page-ready {ready}")
    run.expect_stat_at_least("swap.reads_delayed", 1)
    run.expect_status(0)
    m = run.expect_regex(r"^apfvisor: trace: (\d+) records \((\d+) lost\)")
    expect(int(m[2]) == 0, f"{m[2]} trace records lost in 64 MiB rings")
    expect_chrome_trace(trace, tokens=ready)


@cases(vcpus=(1, 2))
def test_linux_apf_memcheck(ctx, vcpus):
    # memcheck over 150 MiB in the same configuration as the benchmark
    # (256 MiB on 64 MiB of frames, reads held to 1 ms, async PF on), with
    # 1 vCPU and with 2 (one host CPU each, plus the paging daemon's): every
    # word it wrote comes back, while its faults went out as "page not
    # present" tokens and came back as page-ready. One pass: writing it
    # swaps out, reading it back swaps in. With 2 vCPUs two threads write
    # the same pages, so both vCPUs fault on one page whose swap-in is in
    # flight.
    threads = " -t 2" if vcpus > 1 else ""
    run = ctx.boot_cfg(overcommitted_cfg(
        vcpus, "memcheck -m 150M -p 1" + threads,
        extra="swap.read_latency = 1ms\ndebug.swap_verify = on\n"),
        cpus=vcpus + 1, timeout=1800, swap=formatted_swap(ctx, "swap.img"))
    ctx.log(f"### wall time {run.wall:.1f} s")
    run.expect_line("apfvisor: swap: reads complete 1000 us after "
                    "submission at the earliest (swap.read_latency)")
    if vcpus > 1:
        expect_xsavec_hidden(run)
    run.expect_regex(r"^guest: memcheck: pass 1: wrote 38400 pages, "
                     r"mismatches 0$")
    run.expect_line("guest: memcheck: total mismatches 0")
    run.expect_absent(r"^guest: .*\\x00")
    run.expect_line("guest: apfvisor-guest: command exited with status 0")
    run.expect_line("apfvisor: guest powered off")
    run.expect_absent(r"^apfvisor: error:")
    expect_swap_checks_clean(run)
    run.expect_stat("apf.vcpus_enabled", vcpus)
    run.expect_stat_at_least("swap.reads_delayed", 1000)
    sent, ready = run.stat("apf.not_present"), run.stat("apf.page_ready")
    expect(sent >= 1000, f"only {sent} 'page not present' tokens sent")
    expect(sent == ready, f"tokens sent {sent} != page-ready {ready}")
    run.expect_status(0)
