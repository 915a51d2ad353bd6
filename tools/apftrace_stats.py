# SPDX-License-Identifier: BSD-2-Clause
"""What apftrace derives from a trace for --summary: nearest-rank
percentiles and spreads, the pairing of async-PF tokens (not_present with
ready) and of swap I/O (submit with done), the summary itself, and how an
event's enum field is read (enum_of, has_label).

A library module, not a program: tools/apftrace imports it from its own
folder (tools/), as do its other apftrace_*.py modules.
"""

from collections import Counter, OrderedDict, defaultdict, deque

def percentile(sorted_values, p):
    """Nearest-rank percentile (p in 0..100) of a sorted list; p50 is the
    lower median."""
    n = len(sorted_values)
    rank = max(1, -(-n * p // 100))     # ceil(n * p / 100)
    return sorted_values[int(rank) - 1]


def spread(values, p90=False):
    """count, min, median (lower), [p90,] max of a list of numbers."""
    v = sorted(values)
    out = OrderedDict(count=len(v))
    if v:
        out["min"] = v[0]
        out["median"] = percentile(v, 50)
        if p90:
            out["p90"] = percentile(v, 90)
        out["max"] = v[-1]
    return out


def match_tokens(trace):
    """Pairs each async_pf_not_present with the next async_pf_ready of the
    same vCPU and token (tokens are reused over time).

    Returns (pairs, unmatched_not_present, unmatched_ready), pairs being
    (not_present Decoded, ready Decoded) in the not_present's order.
    """
    pending = defaultdict(deque)
    pairs, lone_ready = [], 0
    for d in trace.decoded():
        if d.name not in ("async_pf_not_present", "async_pf_ready"):
            continue
        token = d.values.get("token")
        if token is None:
            continue
        key = (d.rec.vcpu, token)
        if d.name == "async_pf_not_present":
            pending[key].append(d)
        elif pending[key]:
            pairs.append((pending[key].popleft(), d))
        else:
            lone_ready += 1
    lone_np = sum(len(q) for q in pending.values())
    pairs.sort(key=lambda p: p[0].rec.tsc)
    return pairs, lone_np, lone_ready


def match_swaps(trace):
    """Pairs each swap_{in,out}_submit with the next done of the same
    direction and slot. Returns {direction: [(submit or None, done or None)]}.
    """
    pending = defaultdict(deque)
    out = {"in": [], "out": []}
    for d in trace.decoded():
        for direction in ("in", "out"):
            if d.name == "swap_%s_submit" % direction:
                pending[(direction, d.values.get("slot"))].append(d)
            elif d.name == "swap_%s_done" % direction:
                q = pending[(direction, d.values.get("slot"))]
                out[direction].append((q.popleft() if q else None, d))
    for (direction, _), q in pending.items():
        out[direction].extend((s, None) for s in q)
    return out


def summarize(trace):
    """The --summary data, as one JSON-ready dict."""
    hz = trace.header["tsc_hz"]
    exits = defaultdict(list)
    events = Counter()
    latency = {"in": [], "out": []}
    for d in trace.decoded():
        events[d.name] += 1
        if d.name == "vm_exit" and "reason" in d.values:
            label = trace.label(enum_of(trace, d.rec.event, "reason"),
                                d.values["reason"])
            if "cycles" in d.values:
                exits[label].append(d.values["cycles"])
            else:
                exits[label].append(None)
        for direction in ("in", "out"):
            if d.name == "swap_%s_done" % direction and "latency" in d.values:
                latency[direction].append(d.values["latency"])
    pairs, lone_np, lone_ready = match_tokens(trace)
    cycles = [r.rec.tsc - n.rec.tsc for n, r in pairs]
    tokens = spread(cycles, p90=True)
    tokens["unmatched"] = lone_np + lone_ready
    tokens["unmatched_not_present"] = lone_np
    tokens["unmatched_ready"] = lone_ready
    tokens["us"] = OrderedDict(
        (k, v * 1e6 / hz) for k, v in tokens.items()
        if k in ("min", "median", "p90", "max"))
    exit_stats = OrderedDict()
    for label in sorted(exits, key=lambda k: (-len(exits[k]), k)):
        s = spread([c for c in exits[label] if c is not None])
        s["count"] = len(exits[label])
        exit_stats[label] = s
    return OrderedDict((
        ("file", trace.name),
        ("header", trace.header),
        ("exits", exit_stats),
        ("events", OrderedDict(sorted(events.items()))),
        ("tokens", tokens),
        ("swap_in", spread(latency["in"])),
        ("swap_out", spread(latency["out"])),
        ("counters", trace.counters),
        ("config", trace.config),
    ))


def enum_of(trace, event_id, field_name):
    desc = trace.events.get(event_id)
    for f in desc.fields if desc else ():
        if f.name == field_name:
            return f.enum
    return None


def has_label(trace, d, field, label, number):
    """Whether field of the decoded record d means label: by the trace's
    enum when it names label, else by number, the value the C code gives
    it (swap/page_state.h, swap/guest_memory.h, vmx/exit_reasons.h)."""
    value = d.values.get(field)
    if value is None:
        return False
    labels = trace.enums.get(enum_of(trace, d.rec.event, field), {})
    if label in labels.values():
        return labels.get(value) == label
    return value == number
