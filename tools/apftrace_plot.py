# SPDX-License-Identifier: BSD-2-Clause
"""apftrace's pictures, PNGs drawn with matplotlib's Agg backend (no
display needed): the timeline (--plot), the histograms of the fault
latency per path (--latency OUT) and the heat map of guest memory against
time (--heatmap); and how matplotlib is found (import_pyplot).

A library module, not a program: tools/apftrace imports it from its own
folder (tools/), as do its other apftrace_*.py modules.
"""

import copy
import os
import sys
import warnings
from collections import defaultdict

from apftrace_faults import heatmap_points
from apftrace_format import NO_VCPU, TraceError
from apftrace_stats import match_swaps, match_tokens

# Where Debian's python3-matplotlib lives; a python3 found first in PATH
# (pyenv, a venv) of the same version does not look there by itself.
SYSTEM_SITE = "/usr/lib/python3/dist-packages"


def import_pyplot():
    """matplotlib.pyplot with the Agg backend (no display needed)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _import_pyplot()


def _no_matplotlib(e):
    return TraceError("drawing a PNG (--plot, --latency OUT, --heatmap) "
                      "needs matplotlib (Debian: python3-matplotlib): %s" % e)


def _import_pyplot():
    try:
        import matplotlib
    except ImportError as e:
        if not os.path.isdir(SYSTEM_SITE) or SYSTEM_SITE in sys.path:
            raise _no_matplotlib(e) from None
        sys.path.append(SYSTEM_SITE)    # last: shadows nothing
        try:
            import matplotlib
        except ImportError as e2:
            raise _no_matplotlib(e2) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot(trace, out_path, window=None):
    """Draws the timeline into out_path (PNG) with matplotlib's Agg backend;
    window: (from_ms, to_ms) to draw only that stretch of the run."""
    # A newer pyparsing than the matplotlib's warns of deprecations: they
    # are not the user's business.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        draw(trace, out_path, import_pyplot(), window)


def draw(trace, out_path, plt, window=None):
    hz = trace.header["tsc_hz"]
    t0 = trace.first_tsc()
    lo, hi = window if window else (float("-inf"), float("inf"))

    def ms(tsc):
        return (tsc - t0) * 1000.0 / hz

    def shown(start, end=None):
        return start <= hi and (start if end is None else end) >= lo

    vcpus = trace.vcpus()
    lane = {v: i for i, v in enumerate(vcpus)}
    daemon, swap = len(vcpus), len(vcpus) + 1
    exits, epts, daemon_ticks = defaultdict(list), defaultdict(list), []
    for d in trace.decoded():
        v = d.rec.vcpu
        if not shown(ms(d.rec.tsc)):
            continue
        if d.name == "vm_exit" and v in lane:
            exits[v].append((ms(d.rec.tsc),
                             d.values.get("cycles", 0) * 1000.0 / hz))
        elif d.name == "ept_violation" and v in lane:
            epts[v].append(ms(d.rec.tsc))
        elif v == NO_VCPU and not d.name.startswith("swap_"):
            daemon_ticks.append(ms(d.rec.tsc))
    fig, ax = plt.subplots(figsize=(12, 1.2 + 0.6 * (len(vcpus) + 2)))
    labelled = set()

    def once(label):
        if label in labelled:
            return None
        labelled.add(label)
        return label

    for v in vcpus:
        if exits[v]:
            ax.broken_barh(exits[v], (lane[v] - 0.3, 0.6), color="tab:blue",
                           label=once("VM exit"))
        if epts[v]:
            ax.vlines(epts[v], lane[v] - 0.4, lane[v] + 0.4, color="tab:red",
                      linewidth=0.5, label=once("EPT violation"))
    if daemon_ticks:
        ax.vlines(daemon_ticks, daemon - 0.4, daemon + 0.4, color="tab:gray",
                  linewidth=0.5, label=once("daemon event"))
    swaps = match_swaps(trace)
    for direction, off, color in (("in", -0.2, "tab:green"),
                                  ("out", 0.2, "tab:orange")):
        bars = []
        for submit, done in swaps[direction]:
            if submit and done and shown(ms(submit.rec.tsc),
                                         ms(done.rec.tsc)):
                bars.append((ms(submit.rec.tsc),
                             ms(done.rec.tsc) - ms(submit.rec.tsc)))
        if bars:
            ax.broken_barh(bars, (swap + off - 0.15, 0.3), color=color,
                           label=once("swap-" + direction))
    pairs, _, _ = match_tokens(trace)
    pairs = [(a, b) for a, b in pairs if shown(ms(a.rec.tsc), ms(b.rec.tsc))]
    for np_, ready in pairs:
        if np_.rec.vcpu in lane:
            y = lane[np_.rec.vcpu] + 0.35
            ax.plot([ms(np_.rec.tsc), ms(ready.rec.tsc)], [y, y],
                    color="tab:purple", linewidth=1.2,
                    label=once("async PF token"))
    ax.set_yticks(list(range(len(vcpus) + 2)))
    ax.set_yticklabels(["vCPU %d" % v for v in vcpus] +
                       ["paging daemon", "swap I/O"])
    ax.set_ylim(-0.7, len(vcpus) + 1.7)
    ax.invert_yaxis()
    ax.set_xlabel("time (ms)")
    if window:
        ax.set_xlim(lo, hi)
    n_exits = sum(len(x) for x in exits.values())
    n_swaps = sum(1 for d in swaps.values() for s, e in d
                  if s and e and shown(ms(s.rec.tsc), ms(e.rec.tsc)))
    ax.set_title("%s%s: %d exits, %d swap I/Os, %d tokens" % (
        os.path.basename(trace.name),
        " from %g to %g ms" % tuple(window) if window else "", n_exits,
        n_swaps,
        len(pairs)))
    if labelled:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  fontsize="small")
    save_png(plt, fig, out_path)


def save_png(plt, fig, out_path):
    try:
        fig.tight_layout()
        fig.savefig(out_path, format="png")
    except OSError as e:
        raise TraceError("cannot write %s: %s" % (out_path, e.strerror)) \
            from None
    finally:
        plt.close(fig)


def bucket_label(lower):
    return "<1" if lower == 0 else "%d" % lower


def plot_latency(trace, report, out_path):
    """The log2 histograms of the --latency paths, one subplot per path,
    on one shared row of buckets, into out_path (PNG)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plt = import_pyplot()
        paths = report["paths"]
        edges = sorted({b for s in paths.values()
                        for b, _ in s.get("histogram", ())}) or [0]
        # Every bucket from the lowest to the highest seen, empty ones too.
        row = [0] + [1 << k for k in range(max(edges).bit_length())]
        row = [b for b in row if b >= min(edges)]
        fig, axes = plt.subplots(len(paths), 1, sharex=True, squeeze=False,
                                 figsize=(10, 1.2 + 2.0 * len(paths)))
        for ax, (path, s) in zip(axes[:, 0], paths.items()):
            counts = dict(s.get("histogram", ()))
            ax.bar(range(len(row)), [counts.get(b, 0) for b in row],
                   width=0.9, color="tab:blue")
            title = "%s: %d" % (path, s["count"])
            if s["count"]:
                title += ", p50 %.3f, p99 %.3f, max %.3f us" % (
                    s["p50"], s["p99"], s["max"])
            ax.set_title(title, fontsize="medium", loc="left")
            ax.set_ylabel("count")
        ax = axes[-1, 0]
        ax.set_xticks(list(range(len(row))))
        ax.set_xticklabels([bucket_label(b) for b in row],
                           rotation=45 if len(row) > 16 else 0)
        ax.set_xlabel("latency (us), log2 buckets: [2^k, 2^(k+1)); "
                      "prefetch hit is not in the trace yet")
        fig.suptitle(os.path.basename(trace.name))
        save_png(plt, fig, out_path)


HEATMAP_BINS = (200, 256)       # time bins, address bins


def heatmap(trace, out_path, window=None):
    """Guest-physical memory (MiB) against time (ms) of the faults,
    evictions and swap-ins, a 2D histogram per kind, into out_path (PNG).
    Returns the points drawn (heatmap_points)."""
    points = heatmap_points(trace, window)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plt = import_pyplot()
        draw_heatmap(trace, points, out_path, plt, window)
    return points


def draw_heatmap(trace, points, out_path, plt, window):
    import numpy
    from matplotlib.colors import LogNorm, Normalize
    hz = trace.header["tsc_hz"]
    if window:
        lo, hi = window
    else:
        last = trace.sorted_records[-1].tsc if trace.sorted_records else 0
        lo, hi = 0.0, (last - trace.first_tsc()) * 1000.0 / hz
    if hi <= lo:
        hi = lo + 1.0
    mib = [g / 1048576.0 for pts in points.values() for _, g in pts]
    top = float(int(max(mib)) + 1) if mib else 1.0
    fig, axes = plt.subplots(len(points), 1, sharex=True, squeeze=False,
                             figsize=(12, 1.0 + 3.0 * len(points)))
    cmap = copy.copy(plt.get_cmap("viridis"))
    cmap.set_bad("white")
    for ax, (kind, pts) in zip(axes[:, 0], points.items()):
        counts, _, _ = numpy.histogram2d(
            [t for t, _ in pts], [g / 1048576.0 for _, g in pts],
            bins=HEATMAP_BINS, range=[[lo, hi], [0.0, top]])
        grid = numpy.ma.masked_equal(counts.T, 0)
        most = max(1, int(counts.max()))
        # A log scale when some bins hold many more than others.
        norm = LogNorm(vmin=1, vmax=most) if most > 16 else \
            Normalize(vmin=0, vmax=most)
        image = ax.imshow(grid, origin="lower", aspect="auto", cmap=cmap,
                          extent=(lo, hi, 0.0, top), norm=norm,
                          interpolation="nearest")
        fig.colorbar(image, ax=ax, label="%s per bin" % kind)
        ax.set_ylabel("guest-physical (MiB)")
        ax.set_title("%s: %d" % (kind, len(pts)), fontsize="medium",
                     loc="left")
    axes[-1, 0].set_xlabel("time (ms since the first record)")
    fig.suptitle("%s%s" % (os.path.basename(trace.name),
                           " from %g to %g ms" % (lo, hi) if window else ""))
    save_png(plt, fig, out_path)
