# SPDX-License-Identifier: BSD-2-Clause
"""Tracing (trace = on): a run records its events into per-CPU rings,
writes them at the guest's end to the trace disk tools/bochs-run --trace
attaches, and tools/apftrace decodes the file. The decoded events must
agree with the counters the same run printed."""

import json
import subprocess
from pathlib import Path

from lib import expect
from test_swap import formatted_swap

REPO = Path(__file__).resolve().parent.parent.parent
APFTRACE = REPO / "tools" / "apftrace"
GUESTS = REPO / "tests" / "guests"


def apftrace(*args):
    done = subprocess.run([str(APFTRACE), *map(str, args)],
                          capture_output=True, text=True)
    expect(done.returncode == 0,
           f"apftrace {' '.join(map(str, args))} failed: {done.stderr}")
    return done.stdout


def exit_counts_from_stats(run):
    """'exit.NAME' counters (not .root_tsc, .handler_tsc or details)."""
    return {name[len("exit."):]: value for name, value in run.stats.items()
            if name.startswith("exit.") and name.count(".") == 1 and value}


def expect_exits_match(run, summary):
    traced = {name: e["count"] for name, e in summary["exits"].items()}
    counted = exit_counts_from_stats(run)
    expect(traced == counted,
           "decoded exit counts differ from the stat counters: "
           f"trace {sorted(traced.items())}, stats {sorted(counted.items())}")


def expect_chrome_trace(trace, tokens, exits=None):
    """apftrace --chrome gives JSON that Perfetto loads: a track per vCPU
    and one for the paging daemon, an exit slice per exit, one flow (start
    and end) per async-PF token."""
    chrome = json.loads(apftrace("--chrome", trace))
    events = chrome["traceEvents"]
    threads = {e["args"]["name"] for e in events
               if e.get("ph") == "M" and e.get("name") == "thread_name"}
    for track in ("vCPU 0", "paging daemon"):
        expect(track in threads, f"no {track!r} track in {sorted(threads)}")
    starts = sum(1 for e in events if e.get("ph") == "s")
    ends = sum(1 for e in events if e.get("ph") == "f")
    expect(starts == ends == tokens,
           f"flows: {starts} starts, {ends} ends, {tokens} tokens")
    if exits is not None:
        slices = sum(1 for e in events if e.get("ph") == "X"
                     and e.get("cat") == "exit")
        expect(slices == exits,
               f"{slices} exit slices in the Chrome trace, {exits} exits")


# apftest's config traced: test_apf.py's test_apftest_guest[cpus2] boots
# it (one boot for both checks) and calls expect_apftest_trace.
APFTEST_TRACE_CFG = "trace = on\ntrace.buffer = 16M\n"


def expect_apftest_trace(run, trace):
    """apftest (async page faults under overcommit) on 2 host CPUs, traced:
    exits, EPT violations, swap I/O on the service CPU and async-PF
    tokens, each as the run's counters say."""
    run.expect_line("guest: apftest: PASS")
    run.expect_line("apfvisor: trace: trace disk ata1-master, 64 MiB")
    run.expect_line("apfvisor: trace: recording, 2 rings of 16384 KiB, stop "
                    "when full")
    m = run.expect_regex(r"^apfvisor: trace: (\d+) records \((\d+) lost\) "
                         r"in (\d+) bytes on ata1-master$")
    records, lost, size = int(m[1]), int(m[2]), int(m[3])
    expect(lost == 0, f"{lost} records lost in 16 MiB rings")
    expect(trace.stat().st_size == size,
           f"{trace} has {trace.stat().st_size} bytes, apfvisor wrote "
           f"{size}")
    run.expect_status(0)

    summary = json.loads(apftrace("--summary", "--json", trace))
    expect(sum(summary["events"].values()) == records,
           f"decoded {sum(summary['events'].values())} events, apfvisor "
           f"wrote {records}")
    expect_exits_match(run, summary)
    # Every token: sent, completed and delivered as page-ready, as counted.
    events = summary["events"]
    expect(events.get("async_pf_not_present") == run.stat("apf.not_present"),
           f"async_pf_not_present {events.get('async_pf_not_present')} != "
           f"apf.not_present {run.stat('apf.not_present')}")
    # A wake-all (token 0xffffffff) is delivered as a page-ready too.
    delivered = run.stat("apf.page_ready") + run.stat("apf.wake_all")
    expect(events.get("async_pf_ready") == delivered,
           f"async_pf_ready {events.get('async_pf_ready')} != "
           f"apf.page_ready + apf.wake_all {delivered}")
    expect(events.get("swap_in_done") == run.stat("swap.ins"),
           f"swap_in_done {events.get('swap_in_done')} != swap.ins "
           f"{run.stat('swap.ins')}")
    expect(summary["tokens"]["count"] == run.stat("apf.page_ready"),
           f"{summary['tokens']['count']} tokens matched not-present to "
           f"ready, apf.page_ready is {run.stat('apf.page_ready')}")
    # The trace's own copy of the counters is the one printed.
    for name in ("apf.not_present", "exit.ept_violation", "swap.outs"):
        expect(summary["counters"].get(name) == run.stat(name),
               f"trace counter {name} {summary['counters'].get(name)} != "
               f"stat {run.stat(name)}")

    expect_chrome_trace(trace, tokens=summary["tokens"]["count"],
                        exits=sum(e["count"]
                                  for e in summary["exits"].values()))

    text = apftrace(trace).splitlines()
    expect(any(" async_pf_not_present " in l for l in text),
           "the text output shows no async_pf_not_present event")


def test_trace_ring_full(ctx):
    # memtouch (15360 EPT violations) on 2 host CPUs with 64 KiB rings in
    # stop mode: the vCPU's ring fills early; the service CPU writes the
    # trace at once and again at the end, and the file says it is cut.
    trace = ctx.workdir / "memtouch.apft"
    cfg = ((GUESTS / "memtouch.cfg").read_text() +
           "trace = on\ntrace.buffer = 64K\ntrace.mode = stop\n")
    run = ctx.boot_cfg(cfg, cpus=2, timeout=600,
                       extra=("--trace", str(trace)))
    run.expect_line("guest: memtouch: PASS")
    run.expect_regex(r"^apfvisor: trace: a ring is full \(trace.mode = "
                     r"stop\): later events are not recorded; the \d+ "
                     r"records so far are on ata1-master, and the trace is "
                     r"written again at the end$")
    m = run.expect_regex(r"^apfvisor: trace: (\d+) records \((\d+) lost\) "
                         r"in \d+ bytes on ata1-master$")
    kept, lost = int(m[1]), int(m[2])
    expect(lost > 0 and kept > 0, f"kept {kept}, lost {lost}")
    run.expect_status(0)
    summary = json.loads(apftrace("--summary", "--json", trace))
    header = summary["header"]
    expect(header["records_lost"] == lost and header["records_kept"] == kept,
           f"header says {header['records_kept']} kept, "
           f"{header['records_lost']} lost; apfvisor said {kept}, {lost}")
    # Stop mode keeps the oldest events: the first exits are there.
    expect(sum(summary["events"].values()) == kept,
           f"decoded {sum(summary['events'].values())} of {kept} records")


def test_trace_without_disk(ctx):
    # trace = on but no trace disk: one clear error, the guest still runs.
    run = ctx.boot_cfg((GUESTS / "hello.cfg").read_text() + "trace = on\n",
                       cpus=1, timeout=300)
    run.expect_line("apfvisor: error: trace: no trace disk found (trace = "
                    "on): attach one (tools/*-run --trace FILE) or make one "
                    "with tools/apfswap-format --trace")
    run.expect_line("guest: hello: PASS cpuid")
    run.expect_absent(r"^apfvisor: trace: recording")
