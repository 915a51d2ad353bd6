# SPDX-License-Identifier: BSD-2-Clause
"""The fault analyses of apftrace: the fault latency per path
(--latency), the points of the heat map (--heatmap) and the fault list for
a replay prefetcher (--extract-faults), all derived from a trace's events.

A library module, not a program: tools/apftrace imports it from its own
folder (tools/), as do its other apftrace_*.py modules.
"""

import bisect
from collections import Counter, OrderedDict, defaultdict

from apftrace_format import NO_VCPU, TraceError
from apftrace_stats import has_label, match_tokens, percentile

# ---------------------------------------------------------------------------
# Fault latency per path (--latency)

PAGE_MASK = ~0xFFF
EXIT_EPT_VIOLATION = 48         # vmx/exit_reasons.h
PAGE_UNTOUCHED, PAGE_SWAPPED, PAGE_SWAPIN = 0, 3, 4     # swap/page_state.h
FAULT_RESOLVED = 0              # swap/guest_memory.h, enum guest_fault_result

ZERO_FILL = "zero fill"
WHOLE_PAGE_STORE = "whole-page store"
DISK_WAITED = "disk read, waited"
TOKEN_READY = "async PF: token to page-ready"
SWAPIN_DEVICE = "swap-in device"
LATENCY_PATHS = (ZERO_FILL, WHOLE_PAGE_STORE, DISK_WAITED, TOKEN_READY,
                 SWAPIN_DEVICE)
# Paths issue 28 asks for whose events the trace does not have yet.
LATENCY_NOT_TRACED = ("prefetch hit",)
LATENCY_PERCENTILES = (50, 90, 99)


def ept_exits(trace):
    """Groups the ept_violation records by the VM exit they were emitted
    in. A vm_exit record is stamped with the exit's TSC and carries the
    root-mode cycles until the next entry (vmx/vcpu.c trace_closing_exit);
    ept_violation is stamped inside that handling (swap/swap_daemon.c
    swap_fault_begin_locked, once per try: a vCPU that waits for a frame
    or for I/O tries again in the same exit). So a record belongs to the
    vm_exit of reason EPT violation of the same vCPU with
    exit TSC <= record TSC <= exit TSC + cycles; a vCPU's exits do not
    overlap, so there is at most one.

    Returns (list of (vm_exit Decoded, [ept_violation Decoded, ...]) for
    the exits that carry at least one, the number of ept_violation records
    in no such exit)."""
    starts, exits = defaultdict(list), defaultdict(list)
    records = []
    for d in trace.decoded():
        if d.rec.vcpu == NO_VCPU:
            continue
        if d.name == "vm_exit" and "cycles" in d.values and has_label(
                trace, d, "reason", "ept_violation", EXIT_EPT_VIOLATION):
            starts[d.rec.vcpu].append(d.rec.tsc)
            exits[d.rec.vcpu].append((d, []))
        elif d.name == "ept_violation":
            records.append(d)
    alone = 0
    for d in records:
        i = bisect.bisect_right(starts[d.rec.vcpu], d.rec.tsc) - 1
        if i >= 0:
            exit_, carried = exits[d.rec.vcpu][i]
            if d.rec.tsc <= exit_.rec.tsc + exit_.values["cycles"]:
                carried.append(d)
                continue
        alone += 1
    grouped = [e for per_vcpu in exits.values() for e in per_vcpu if e[1]]
    grouped.sort(key=lambda e: e[0].rec.tsc)
    return grouped, alone


def is_zero_fill(trace, carried):
    """An exit's ept_violation records make a zero fill: the page was
    untouched when the exit came (the first try) and the last try mapped
    it (a try that found no free frame and waited counts: the wait is part
    of that zero fill's cost)."""
    return (has_label(trace, carried[0], "state", "untouched",
                      PAGE_UNTOUCHED) and
            has_label(trace, carried[-1], "outcome", "resolved",
                      FAULT_RESOLVED))


def is_whole_page_store(trace, carried):
    """An exit whose first try found the page on the swap device and
    mapped it at once: only a store that overwrites the whole page does
    that (swap.whole_page_stores, swap/swap_daemon.c
    swap_fault_overwrite); any other fault there starts a read."""
    return (has_label(trace, carried[0], "state", "swapped",
                      PAGE_SWAPPED) and
            has_label(trace, carried[0], "outcome", "resolved",
                      FAULT_RESOLVED))


def fault_latencies(trace):
    """The cycles of each fault path, from the trace's events.

    Returns (OrderedDict path -> list of cycles in event order, OrderedDict
    of the events that could not be paired, by what they lack)."""
    paths = OrderedDict((p, []) for p in LATENCY_PATHS)
    grouped, alone = ept_exits(trace)
    for exit_, carried in grouped:
        if is_zero_fill(trace, carried):
            paths[ZERO_FILL].append(exit_.values["cycles"])
        elif is_whole_page_store(trace, carried):
            paths[WHOLE_PAGE_STORE].append(exit_.values["cycles"])
    done_at = defaultdict(list)         # page -> TSCs of its swap_in_done
    waited = []
    for d in trace.decoded():
        if d.name == "swap_in_done" and "gpa" in d.values:
            done_at[d.values["gpa"] & PAGE_MASK].append(d.rec.tsc)
            if "latency" in d.values:
                paths[SWAPIN_DEVICE].append(d.values["latency"])
        elif (d.name == "try_async_get_page" and "gpa" in d.values and
              d.values.get("async") == 0):
            waited.append(d)
    lone_waits = 0
    for d in waited:
        dones = done_at[d.values["gpa"] & PAGE_MASK]
        i = bisect.bisect_left(dones, d.rec.tsc)
        if i < len(dones):
            paths[DISK_WAITED].append(dones[i] - d.rec.tsc)
        else:
            lone_waits += 1
    pairs, lone_np, _ = match_tokens(trace)
    paths[TOKEN_READY] = [r.rec.tsc - n.rec.tsc for n, r in pairs]
    unmatched = OrderedDict((
        ("ept_violation outside an EPT-violation exit", alone),
        ("waited try_async_get_page without a later swap_in_done",
         lone_waits),
        ("async_pf_not_present without async_pf_ready", lone_np),
    ))
    return paths, unmatched


def us_of(cycles, hz):
    return cycles * 1e6 / hz


def log2_bucket(cycles, hz):
    """The lower edge, in whole microseconds, of the log2 bucket of a
    latency: 0 for [0, 1) us, else 2^k for [2^k, 2^(k+1)) us."""
    whole = cycles * 1000000 // hz
    return 0 if whole <= 0 else 1 << (whole.bit_length() - 1)


def latency_stats(cycles, hz):
    """count, nearest-rank p50/p90/p99 and max in us (and in cycles), and
    the log2 histogram [[lower edge us, count], ...] of one path."""
    v = sorted(cycles)
    s = OrderedDict(count=len(v))
    if not v:
        return s
    picks = [("p%d" % p, percentile(v, p)) for p in LATENCY_PERCENTILES]
    picks.append(("max", v[-1]))
    for name, c in picks:
        s[name] = us_of(c, hz)
    s["cycles"] = OrderedDict(picks)
    s["histogram"] = sorted(Counter(log2_bucket(c, hz) for c in v).items())
    return s


def latency_report(trace):
    """The --latency --json data, as one JSON-ready dict."""
    hz = trace.header["tsc_hz"]
    paths, unmatched = fault_latencies(trace)
    return OrderedDict((
        ("file", trace.name),
        ("tsc_hz", hz),
        ("unit", "us"),
        ("paths", OrderedDict((p, latency_stats(c, hz))
                              for p, c in paths.items())),
        ("unmatched", unmatched),
        ("not_in_trace", list(LATENCY_NOT_TRACED)),
    ))


# ---------------------------------------------------------------------------
# Heat map and fault list (--heatmap, --extract-faults)

# Kind of point -> the event whose gpa it is.
HEATMAP_KINDS = (("faults", "ept_violation"),
                 ("evictions", "swap_out_submit"),
                 ("swap-ins", "swap_in_submit"))


def heatmap_points(trace, window=None):
    """(ms since the first record, gpa) of each fault, eviction and swap-in
    of the trace, inside window (from_ms, to_ms) if given: an OrderedDict
    kind -> list, in TSC order."""
    hz, t0 = trace.header["tsc_hz"], trace.first_tsc()
    lo, hi = window if window else (float("-inf"), float("inf"))
    event_kind = {e: k for k, e in HEATMAP_KINDS}
    points = OrderedDict((k, []) for k, _ in HEATMAP_KINDS)
    for d in trace.decoded():
        kind = event_kind.get(d.name)
        if kind is None or "gpa" not in d.values:
            continue
        ms = (d.rec.tsc - t0) * 1000.0 / hz
        if lo <= ms <= hi:
            points[kind].append((ms, d.values["gpa"]))
    return points


def swapin_fault_pages(trace):
    """(guest page numbers of the swap-in faults in order of first fault,
    each once; how many such faults there were). A swap-in fault is an
    ept_violation on a page whose only copy was on the swap device
    (swapped) or being read back (swapin); not a store over the whole
    page, which reads nothing (is_whole_page_store)."""
    pages, faults = OrderedDict(), 0
    for d in trace.decoded():
        if d.name != "ept_violation" or "gpa" not in d.values:
            continue
        if is_whole_page_store(trace, [d]):
            continue
        if (has_label(trace, d, "state", "swapped", PAGE_SWAPPED) or
                has_label(trace, d, "state", "swapin", PAGE_SWAPIN)):
            faults += 1
            pages.setdefault(d.values["gpa"] >> 12, None)
    return list(pages), faults


def write_fault_list(trace, out_path):
    """The compact fault list for a replay prefetcher: "apfvisor-faults 1",
    then one guest page number (hex) per line. Returns (pages, faults)."""
    pages, faults = swapin_fault_pages(trace)
    text = "apfvisor-faults 1\n" + "".join("%x\n" % p for p in pages)
    try:
        with open(out_path, "w") as f:
            f.write(text)
    except OSError as e:
        raise TraceError("cannot write %s: %s" % (out_path, e.strerror)) \
            from None
    return pages, faults
