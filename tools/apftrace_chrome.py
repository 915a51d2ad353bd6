# SPDX-License-Identifier: BSD-2-Clause
"""apftrace's Chrome trace-event JSON (--chrome), for Perfetto and
chrome://tracing: the tracks, slices, flows and counters built from a
trace (the layout is told below).

A library module, not a program: tools/apftrace imports it from its own
folder (tools/), as do its other apftrace_*.py modules.
"""

from collections import defaultdict

from apftrace_format import NO_VCPU
from apftrace_stats import enum_of, match_swaps, match_tokens

# Layout (pid/tid):
#   pid 1 "vCPUs": tid 1+N "vCPU N": vm_exit as X slices named by reason
#     (start = the record's TSC, dur = cycles), "halted" X slices from
#     vcpu_halt to vcpu_wake, other events of that vCPU as instants.
#     tid 1001+N "vCPU N async PF": every async-PF token shown twice: an
#     async b/e span "token T" (cat async_pf) from not_present to ready, and
#     two 1 ns X slices ("not_present T" and "ready T") joined by a flow
#     arrow (s at not_present, f with bp "e" at ready, one id per token).
#     Flow events bind to thread slices, so the flow needs those small X
#     slices; the async span shows the wait, and overlapping tokens of one
#     vCPU stay correct because async spans do not have to nest.
#   pid 2 "service CPU", tid 1 "paging daemon": evict_step, shootdown and
#     every event with vCPU 0xFFFF (except swap I/O) as instants.
#   pid 3 "swap I/O", tid 1 "swap-in", tid 2 "swap-out": each request as an
#     async b/e span (cat swap, its own id) from submit to done, matched by
#     direction and slot; overlapping requests need no nesting that way.
# Counters (C): swap-ins and swap-outs done so far (pid 3), tokens in
# flight (pid 1). The final counters section goes into "metadata".
# X slices on one thread are made to nest (a slice that would end after its
# parent is cut at the parent's end), since the importers drop the others.

CHROME_TINY_NS = 1
VCPU_PID, SERVICE_PID, SWAP_PID = 1, 2, 3
DAEMON_EVENTS = ("evict_step", "shootdown")     # whatever their vCPU


class ChromeBuilder:
    """Builds the traceEvents list; times are kept in ns until the end."""

    def __init__(self, trace):
        self.trace = trace
        self.t0 = trace.first_tsc()
        self.hz = trace.header["tsc_hz"]
        self.events = []
        self.next_id = 1

    def ns(self, tsc):
        return (tsc - self.t0) * 1000000000 // self.hz

    def cycles_ns(self, cycles):
        return cycles * 1000000000 // self.hz

    def add(self, ph, name, pid, tid, ts_ns, **kw):
        ev = {"ph": ph, "name": name, "pid": pid, "tid": tid, "ts": ts_ns}
        ev.update(kw)
        self.events.append(ev)
        return ev

    def new_id(self):
        self.next_id += 1
        return "0x%x" % (self.next_id - 1)

    def meta(self, what, pid, tid, name, sort):
        self.events.append({"ph": "M", "name": what + "_name", "pid": pid,
                            "tid": tid, "args": {"name": name}})
        self.events.append({"ph": "M", "name": what + "_sort_index",
                            "pid": pid, "tid": tid,
                            "args": {"sort_index": sort}})

    def build(self):
        self.metadata()
        self.per_record()
        self.halts()
        self.tokens()
        self.swaps()
        nest_slices(self.events)
        for ev in self.events:
            if "ts" in ev:
                ev["ts"] = ev["ts"] / 1000.0
            if "dur" in ev:
                ev["dur"] = ev["dur"] / 1000.0
        return self.events

    def metadata(self):
        self.meta("process", VCPU_PID, 0, "vCPUs", 1)
        for v in self.trace.vcpus():
            self.meta("thread", VCPU_PID, 1 + v, "vCPU %d" % v, v)
            self.meta("thread", VCPU_PID, 1001 + v, "vCPU %d async PF" % v,
                      1000 + v)
        self.meta("process", SERVICE_PID, 0, "service CPU", 2)
        self.meta("thread", SERVICE_PID, 1, "paging daemon", 1)
        self.meta("process", SWAP_PID, 0, "swap I/O", 3)
        self.meta("thread", SWAP_PID, 1, "swap-in", 1)
        self.meta("thread", SWAP_PID, 2, "swap-out", 2)

    def track(self, d):
        if d.rec.vcpu == NO_VCPU or d.name in DAEMON_EVENTS:
            return SERVICE_PID, 1
        return VCPU_PID, 1 + d.rec.vcpu

    def per_record(self):
        handled = ("vcpu_halt", "vcpu_wake", "async_pf_not_present",
                   "async_pf_ready") + tuple(
            "swap_%s_%s" % (d, k) for d in ("in", "out")
            for k in ("submit", "done"))
        for d in self.trace.decoded():
            args = dict(d.items, cpu=d.rec.cpu)
            pid, tid = self.track(d)
            ts = self.ns(d.rec.tsc)
            if d.name == "vm_exit" and "reason" in d.values:
                label = self.trace.label(
                    enum_of(self.trace, d.rec.event, "reason"),
                    d.values["reason"])
                dur = self.cycles_ns(d.values.get("cycles", 0))
                self.add("X", label, pid, tid, ts, dur=dur, cat="exit",
                         args=args)
            elif d.name not in handled:
                self.add("i", d.name, pid, tid, ts, s="t", cat="event",
                         args=args)

    def halts(self):
        halted = {}
        last = self.ns(self.trace.sorted_records[-1].tsc) \
            if self.trace.sorted_records else 0
        for d in self.trace.decoded():
            if d.rec.vcpu == NO_VCPU:
                continue
            if d.name == "vcpu_halt":
                halted.setdefault(d.rec.vcpu, self.ns(d.rec.tsc))
            elif d.name == "vcpu_wake":
                end = self.ns(d.rec.tsc)
                start = halted.pop(d.rec.vcpu, None)
                if start is None:       # the halt was before the trace
                    start = max(0, end - self.cycles_ns(
                        d.values.get("halted_cycles", 0)))
                self.add("X", "halted", VCPU_PID, 1 + d.rec.vcpu, start,
                         dur=end - start, cat="halt",
                         args=dict(d.items))
        for vcpu, start in halted.items():
            self.add("X", "halted", VCPU_PID, 1 + vcpu, start,
                     dur=last - start, cat="halt",
                     args={"note": "no wake before the trace ends"})

    def tokens(self):
        pairs, _, _ = match_tokens(self.trace)
        changes = []
        for np_, ready in pairs:
            tid = 1001 + np_.rec.vcpu
            token = np_.values["token"]
            t1, t2 = self.ns(np_.rec.tsc), self.ns(ready.rec.tsc)
            args = dict(np_.items, cycles=ready.rec.tsc - np_.rec.tsc)
            span = self.new_id()
            self.add("b", "token %#x" % token, VCPU_PID, tid, t1,
                     cat="async_pf", id=span, args=args)
            self.add("e", "token %#x" % token, VCPU_PID, tid, t2,
                     cat="async_pf", id=span)
            self.add("X", "not_present %#x" % token, VCPU_PID, tid, t1,
                     dur=CHROME_TINY_NS, cat="async_pf", args=args)
            self.add("X", "ready %#x" % token, VCPU_PID, tid, t2,
                     dur=CHROME_TINY_NS, cat="async_pf",
                     args=dict(ready.items))
            flow = self.new_id()
            self.add("s", "async PF", VCPU_PID, tid, t1, cat="async_pf",
                     id=flow)
            self.add("f", "async PF", VCPU_PID, tid, t2, cat="async_pf",
                     id=flow, bp="e")
            changes += [(t1, 1), (t2, -1)]
        inflight = 0
        for ts, delta in sorted(changes):
            inflight += delta
            self.add("C", "tokens in flight", VCPU_PID, 0, ts,
                     args={"tokens": inflight})

    def swaps(self):
        last = self.ns(self.trace.sorted_records[-1].tsc) \
            if self.trace.sorted_records else 0
        done_at = []
        for direction, tid in (("in", 1), ("out", 2)):
            name = "swap-" + direction
            for submit, done in match_swaps(self.trace)[direction]:
                if done is not None:
                    end = self.ns(done.rec.tsc)
                    done_at.append((end, direction))
                    start = self.ns(submit.rec.tsc) if submit else max(
                        0, end - self.cycles_ns(done.values.get("latency", 0)))
                    args = dict(done.items)
                else:
                    start, end = self.ns(submit.rec.tsc), last
                    args = dict(submit.items, note="no done in the trace")
                span = self.new_id()
                self.add("b", name, SWAP_PID, tid, start, cat="swap", id=span,
                         args=args)
                self.add("e", name, SWAP_PID, tid, end, cat="swap", id=span)
        totals = {"in": 0, "out": 0}
        for ts, direction in sorted(done_at):
            totals[direction] += 1
            self.add("C", "swap-%ss done" % direction, SWAP_PID, 0, ts,
                     args={"total": totals[direction]})


def nest_slices(events):
    """Cuts X slices so that those of one thread nest properly."""
    by_thread = defaultdict(list)
    for ev in events:
        if ev["ph"] == "X":
            by_thread[(ev["pid"], ev["tid"])].append(ev)
    for slices in by_thread.values():
        slices.sort(key=lambda e: (e["ts"], -e["dur"]))
        open_ends = []
        for ev in slices:
            while open_ends and open_ends[-1] <= ev["ts"]:
                open_ends.pop()
            if open_ends and ev["ts"] + ev["dur"] > open_ends[-1]:
                ev["dur"] = open_ends[-1] - ev["ts"]
            open_ends.append(ev["ts"] + ev["dur"])


def chrome_json(trace):
    events = ChromeBuilder(trace).build()
    return {
        "traceEvents": events,
        "displayTimeUnit": "ns",
        "metadata": {
            "source": "apftrace",
            "file": trace.name,
            "header": trace.header,
            "counters": trace.counters,
            "config": trace.config,
        },
    }
