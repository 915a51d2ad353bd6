# SPDX-License-Identifier: BSD-2-Clause
"""apftrace's text output: the header block and one line per event (the
default mode), the --summary table and the --latency table.

A library module, not a program: tools/apftrace imports it from its own
folder (tools/), as do its other apftrace_*.py modules.
"""

from apftrace_format import NO_VCPU
from apftrace_stats import summarize

def header_lines(trace):
    h = trace.header
    flags = ",".join(h["flag_names"]) or "none"
    return [
        "# apftrace: %s" % trace.name,
        "# format %s (header %d bytes)" % (h["format"], h["header_size"]),
        "# TSC %d Hz" % h["tsc_hz"],
        "# host CPUs %d, vCPUs %d" % (h["cpus"], h["vcpus"]),
        "# flags %#x (%s)" % (h["flags"], flags),
        "# records kept %d, lost %d" % (h["records_kept"], h["records_lost"]),
    ]


def event_line(trace, d):
    r = d.rec
    vcpu = "-" if r.vcpu == NO_VCPU else "vcpu%d" % r.vcpu
    words = ["%.6f" % trace.seconds(r.tsc), "cpu%d" % r.cpu, vcpu, d.name]
    words += ["%s=%s" % kv for kv in d.items]
    return " ".join(words)


def print_text(trace, out):
    for line in header_lines(trace):
        out.write(line + "\n")
    for d in trace.decoded():
        out.write(event_line(trace, d) + "\n")


def _spread_text(s, unit=""):
    if not s["count"]:
        return "count 0"
    keys = [k for k in ("min", "median", "p90", "max") if k in s]
    fmt = "%.3f" if unit else "%d"
    name = {"median": "p50"} if "p90" in s else {}
    return "count %d, " % s["count"] + ", ".join(
        "%s %s%s" % (name.get(k, k), fmt % s[k], unit) for k in keys)


def print_summary(trace, out):
    s = summarize(trace)
    w = out.write
    for line in header_lines(trace):
        w(line + "\n")
    w("\nexits (cycles in root mode):\n")
    w("  %-24s %8s %12s %12s %12s\n" % ("reason", "count", "min", "median",
                                        "max"))
    for label, e in s["exits"].items():
        w("  %-24s %8d %12s %12s %12s\n" % (
            label, e["count"], e.get("min", "-"), e.get("median", "-"),
            e.get("max", "-")))
    t = s["tokens"]
    w("\nasync PF tokens (not_present -> ready): %d matched, %d unmatched "
      "(%d not_present without ready, %d ready without not_present)\n"
      % (t["count"], t["unmatched"], t["unmatched_not_present"],
         t["unmatched_ready"]))
    if t["count"]:
        w("  cycles: %s\n" % _spread_text(t))
        w("  us:     %s\n" % _spread_text(dict(t["us"], count=t["count"]),
                                          " us"))
    w("\nswap-in latency (cycles):  %s\n" % _spread_text(s["swap_in"]))
    w("swap-out latency (cycles): %s\n" % _spread_text(s["swap_out"]))
    w("\nevents:\n")
    for name, n in s["events"].items():
        w("  %-24s %8d\n" % (name, n))
    w("\ncounters (at the end of the run):\n")
    for name, n in s["counters"].items():
        w("  %s %d\n" % (name, n))


def print_latency(report, out):
    w = out.write
    w("fault latency per path (us at TSC %d Hz; nearest-rank percentiles):"
      "\n" % report["tsc_hz"])
    w("  %-30s %8s %12s %12s %12s %12s\n" % (
        "path", "count", "p50", "p90", "p99", "max"))
    for path, s in report["paths"].items():
        w("  %-30s %8d %s\n" % (path, s["count"], " ".join(
            "%12.3f" % s[k] if k in s else "%12s" % "-"
            for k in ("p50", "p90", "p99", "max"))))
    for path in report["not_in_trace"]:
        w("  %-30s (not in the trace yet)\n" % path)
    lost = [(what, n) for what, n in report["unmatched"].items() if n]
    if lost:
        w("not counted:\n")
        for what, n in lost:
            w("  %d %s\n" % (n, what))
