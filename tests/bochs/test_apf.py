# SPDX-License-Identifier: BSD-2-Clause
"""Async page faults (KVM's PV protocol, ../shared/APF-PROTOCOL.md) with a
flat test guest that brings its own handler: the #GP cases of the MSRs, then
"page not present" with a token, other work while the page comes back, and
page-ready with the same token, under overcommit with 1 and 2 host CPUs."""

import re

from lib import cases, expect
from test_swap import formatted_swap, overcommitted_cfg


@cases(cpus=(1, 2))
def test_apftest_guest(ctx, cpus):
    run = ctx.boot_guest("apftest", cpus=cpus, timeout=900,
                         swap=formatted_swap(ctx, "swap.img", "128M"))
    run.expect_line("guest: apftest: 3 refused MSR values raised #GP")
    m = run.expect_regex(r"^guest: apftest: data verified; async faults "
                         r"(\d+), page-ready (\d+), wake-all (\d+), other "
                         r"work while waiting (\d+)$")
    faults, ready = int(m[1]), int(m[2])
    expect(faults > 0, "no async page fault reached the guest")
    expect(ready == faults, f"page-ready {ready} != async faults {faults}")
    run.expect_line("guest: apftest: PASS")
    # The hypervisor's counters agree with what the guest saw.
    expect(run.stat("apf.not_present") == faults,
           f"apf.not_present {run.stat('apf.not_present')} != {faults}")
    expect(run.stat("apf.page_ready") == ready,
           f"apf.page_ready {run.stat('apf.page_ready')} != {ready}")
    run.expect_stat_at_least("apf.vcpus_enabled", 1)
    run.expect_stat_at_least("swap.reads_delayed", 1)
    run.expect_line("apfvisor: guest halted: test-exit code 0")
    run.expect_status(0)


def test_linux_apf_bm(ctx):
    # The stock kernel's own async-PF path under overcommit (256 MiB on
    # 64 MiB of frames), reads held to 1 ms: the 2010 benchmark runs, the
    # kernel enables the protocol, and every token sent gets its page-ready.
    run = ctx.boot_cfg(overcommitted_cfg(
        1, "bm -f 1 -w 1 -t 2 -m 150M", extra="swap.read_latency = 1ms\n"),
        cpus=2, timeout=1500, swap=formatted_swap(ctx, "swap.img"))
    m = run.expect_regex(r"^guest: total: (\d+)$")
    expect(int(m[1]) > 0, f"expected bm's total above 0, got {m[1]}")
    run.expect_line("apfvisor: guest powered off")
    run.expect_stat_at_least("apf.vcpus_enabled", 1)
    sent, ready = run.stat("apf.not_present"), run.stat("apf.page_ready")
    expect(sent > 0, "the kernel got no 'page not present'")
    expect(sent == ready, f"tokens sent {sent} != page-ready {ready}")
    run.expect_stat_at_least("swap.reads_delayed", 1)
    run.expect_status(0)
