# SPDX-License-Identifier: BSD-2-Clause
"""What tools/bench (make bench) makes of the results of its sections: the
PNG plots (plot, plot_policy) and build/bench/report.md (report, with a
part per section and policy_report, real_report, remote_report), which
puts apfvisor's figures beside published ones (published_comparison).
Nothing here starts a run; the runs are tools/bench_sections.py's.

A library module, not a program: imported by tools/bench from its own
folder, tools/.
"""
from bench_sections import (EMULATOR, EXIT_FIGURES, OUT, POLICY_COLUMNS,
                            REAL_COLUMNS, REMOTE_COLUMNS, policy_label)


# ---- plots -----------------------------------------------------------------

def save(fig, name):
    """fig, laid out, as OUT/name (PNG, 100 dpi); returns name."""
    fig.tight_layout()
    fig.savefig(OUT / name, dpi=100)
    return name


def plot(results):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    made = []
    if "exits" in results:
        rows = [r for r in results["exits"]["operations"]
                if r["operation"] != "hlt_timer"]
        names = [r["operation"] for r in rows]
        guest = [r["guest_round_trip"]["value"] for r in rows]
        root = [r.get("root_cycles_per_exit", {}).get("value") or 0
                for r in rows]
        fig, ax = plt.subplots(figsize=(9, 4.5))
        x = range(len(rows))
        ax.bar([i - 0.2 for i in x], guest, 0.4, label="guest round trip")
        ax.bar([i + 0.2 for i in x], root, 0.4,
               label="root mode per exit (mean over the run)")
        ax.set_xticks(list(x), names, rotation=30, ha="right")
        ax.set_ylabel("Bochs instructions")
        ax.set_title("apfvisor exit costs under Bochs")
        ax.legend()
        made.append(save(fig, "exits.png"))
    if "boot" in results:
        runs = results["boot"]["runs"]
        fig, ax = plt.subplots(figsize=(8, 4.5))
        bottoms = [0] * len(runs)
        for i, p in enumerate(runs[0]["phases"]):
            vals = [r["phases"][i]["instructions"]["value"] / 1e9
                    for r in runs]
            ax.bar([r["kernel"] for r in runs], vals, bottom=bottoms,
                   label=p["phase"])
            bottoms = [b + v for b, v in zip(bottoms, vals)]
        ax.set_ylabel("Bochs instructions (1e9)")
        ax.set_title("Linux boot by phase (guest/linux.cfg, 1 vCPU)")
        ax.legend(fontsize=7)
        made.append(save(fig, "boot.png"))
    if "apf" in results:
        curves = results["apf"].get("curves") or {"1": results["apf"]["rows"]}
        fig, ax = plt.subplots(figsize=(7, 4))
        top = 0
        for cpus, rows in curves.items():
            ratios = [r["on_over_off"]["value"] for r in rows]
            top = max([top] + ratios)
            ax.plot([r["read_latency_us"] for r in rows], ratios,
                    marker="o", label=f"{cpus} host CPU{'s' * (cpus != '1')}"
                    ": worker total, async PF on / off")
        # From 0, so a ratio of 2 looks like 2, with room above the curves.
        ax.set_ylim(0, top * 1.15)
        ax.set_xlabel("swap.read_latency (us)")
        ax.set_ylabel("ratio")
        ax.set_title("What async page faults give back")
        ax.legend()
        made.append(save(fig, "apf.png"))
    if "policy" in results:
        made += [p for p in [plot_policy(results["policy"], plt)] if p]
    return made


def plot_policy(sec, plt):
    rows = [r for r in sec["rows"] if r["ok"]]
    workloads = sorted({r["workload"] for r in rows})
    if not workloads:
        return None
    fig, axes = plt.subplots(1, len(workloads),
                             figsize=(5 * len(workloads), 4.5), squeeze=False)
    for ax, w in zip(axes[0], workloads):
        mine = [r for r in rows if r["workload"] == w]
        names = [f"{policy_label(r)} {r['prefetch']}" for r in mine]
        x = range(len(mine))
        ax.bar([i - 0.2 for i in x], [r["demand_swap_ins"] for r in mine],
               0.4, label="demand swap-ins")
        ax.bar([i + 0.2 for i in x], [r["prefetched"] for r in mine], 0.4,
               label="read ahead")
        ax.set_xticks(list(x), names, fontsize=7, rotation=60, ha="right")
        ax.set_title(w)
        ax.legend(fontsize=7)
    fig.suptitle("swap.policy x swap.prefetch (Linux guest under Bochs)")
    return save(fig, "policy.png")


# ---- report.md -------------------------------------------------------------

# The 2010 async-PF series' own benchmark (../shared/APF-PROTOCOL.md, 12):
# bm -f 4 -w 4 -t 60, 4 vCPUs, a 2 GiB guest in a 512 MiB host container.
KVM_2010_APF = [
    ("first posting: total with async PF / without",
     258846142585 / 129752639953),
    ("later posting, mean of 10 runs: paravirtual protocol / without",
     234.4e9 / 122.8e9),
]
KVM_2010_WORKER_SHARE = 0.979    # the workers' share of CPU samples, async PF


def published_comparison(results):
    """apfvisor's figures beside the published ones they answer to, each
    with its unit; an emulated instruction is not a cycle of real
    hardware, and the setups differ, so only ratios are put side by side."""
    md = ["## Beside published figures", ""]
    if "apf" in results:
        md += ["Async page faults: the ratio of the working threads' totals "
               "with and without the protocol (a ratio of iteration counts "
               "in both: comparable in kind, not in setup; apfvisor: 1 "
               "vCPU on 1 or 2 host CPUs, 256 MiB on 64 MiB of frames, `bm -f 1 -w 1`, "
               "emulated disk and held reads).", "",
               "| source | setting | on/off | workers' share with async PF |",
               "|---|---|---:|---:|"]
        for what, ratio in KVM_2010_APF:
            md.append(f"| KVM, 2010 series | {what} | {ratio:.2f} | "
                      f"{KVM_2010_WORKER_SHARE:.1%} of CPU samples |")
        curves = results["apf"].get("curves") or \
            {"1": results["apf"]["rows"]}
        for cpus, r in ((c, r) for c, rows in curves.items() for r in rows):
            md.append(f"| apfvisor (Bochs) | {cpus} host CPU(s), "
                      f"swap.read_latency {r['read_latency_us']} us | "
                      f"{r['on_over_off']['value']:.2f} | "
                      f"{r['on_over_ceiling']['value']:.1%} of the worker "
                      "alone |")
        md.append("")
    if "exits" in results:
        md += ["Exits: apfvisor's figures are Bochs instructions per exit "
               "(Bochs advances the TSC by one per emulated instruction, so "
               "a VM exit or entry costs no more than the instructions "
               "around it); the published ones are cycles of real CPUs, "
               "where the two transitions alone take hundreds to thousands "
               "of cycles before any handler runs. Different units: "
               "neither column predicts the other.",
               "", "| source | setting | what | figure | unit |",
               "|---|---|---|---:|---|"]
        for source, setting, what, value, unit in EXIT_FIGURES:
            md.append(f"| {source} | {setting} | {what} | {value:,} | "
                      f"{unit} |")
        by_op = {r["operation"]: r for r in results["exits"]["operations"]}
        for op in ("cpuid", "x2apic_eoi"):
            r = by_op.get(op)
            if r and r["guest_round_trip"]["value"]:
                md.append(f"| apfvisor | Bochs 2.7, 1 vCPU, exitcost guest | "
                          f"{op} round trip | "
                          f"{r['guest_round_trip']['value']:,} | emulated "
                          "instructions |")
        md.append("")
    return md if len(md) > 2 else []


def report(results, plots):
    md = ["# apfvisor benchmark report", "",
          f"Made by `make bench` (tools/bench). {EMULATOR}; figures are "
          "emulated instructions or guest-side counts, never wall-clock "
          "time. Every figure, with its unit and configuration, is in "
          "results.json.", ""]
    if "exits" in results:
        sec = results["exits"]
        md += ["## Exit costs", "", f"Configuration: {sec['config']['guest']}"
               f", {sec['config']['iterations']} iterations per operation.",
               "", "| operation | guest round trip | exit reason | exits | "
               "root cycles / exit | of which handler |",
               "|---|---:|---|---:|---:|---:|"]
        for r in sec["operations"]:
            cells = [f"{r['operation']} ({r['description']})",
                     r["guest_round_trip"]["value"], r["exit_reason"] or "—"]
            cells += [r.get(k, {}).get("value", "—") for k in
                      ("exits", "root_cycles_per_exit",
                       "handler_cycles_per_exit")]
            md.append("| " + " | ".join(str(c) for c in cells) + " |")
        md.append("")
        for g in sec["goals"]:
            md.append(f"- Goal: {g['what']} <= {g['goal']['value']}: "
                      f"measured {g['measured']['value']} — "
                      f"{'met' if g['met'] else 'missed'}.")
        md += [f"- {n}" for n in sec["notes"]] + [""]
    if "boot" in results:
        sec = results["boot"]
        runs = sec["runs"]
        md += ["## Boot", "", "| phase (Bochs instructions) | " +
               " | ".join(r["kernel"] for r in runs) + " |",
               "|---|" + "---:|" * len(runs)]
        for i, p in enumerate(runs[0]["phases"]):
            md.append(f"| {p['phase']} | " + " | ".join(
                f"{r['phases'][i]['instructions']['value'] / 1e9:.3f}e9"
                for r in runs) + " |")
        md.append("| **firmware start to /init** | " + " | ".join(
            f"**{r['firmware_to_init']['value'] / 1e9:.3f}e9**"
            for r in runs) + " |")
        md += ["", f"vmlinux / bzImage, firmware start to /init: "
               f"{sec['vmlinux_over_bzimage']['value']} (goal: at most "
               "0.5). " + "; ".join(f"{r['kernel']}: {r['config']}"
                                    for r in runs) + ".", ""]
    if "swap" in results:
        sec = results["swap"]
        md += ["## Swap", "", f"Configuration: {sec['config']['guest']}.",
               "", "| figure | cycles per page |", "|---|---:|"]
        for k in ("device_read", "swap_in_wait", "device_write",
                  "swap_out_work"):
            md.append(f"| {k} | {sec[k]['value']} |")
        md.append("")
    if "apf" in results:
        sec = results["apf"]
        md += ["## Async page faults", "",
               f"Configuration: {sec['config']['guest']}.", "",
               "Workers' totals and the faulting thread's pages are medians "
               "of the runs (the spread in the JSON).", "",
               "| host CPUs | read latency (us) | on | off | on/off | "
               "on/ceiling | faulter pages on | off | on/off |",
               "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        curves = sec.get("curves") or {"1": sec["rows"]}
        for cpus, rows in curves.items():
            for r in rows:
                f = [r[k]["value"] if k in r else "-" for k in
                     ("faulter_on", "faulter_off", "faulter_on_over_off")]
                md.append(f"| {cpus} | {r['read_latency_us']} | "
                          f"{r['on']['value']} | {r['off']['value']} | "
                          f"{r['on_over_off']['value']} | "
                          f"{r['on_over_ceiling']['value']} | "
                          f"{f[0]} | {f[1]} | {f[2]} |")
        md.append("")
    if "trace" in results:
        sec = results["trace"]
        md += ["## Trace overhead", "", f"Configuration: "
               f"{sec['config']['guest']}.", "",
               "| figure | value | unit |", "|---|---:|---|"]
        for k in ("run_off", "run_on", "on_over_off", "events", "lost",
                  "cycles_per_event"):
            md.append(f"| {k} | {sec[k]['value']} | {sec[k]['unit']} |")
        md.append("")
    if "policy" in results:
        md += policy_report(results["policy"])
    if "real" in results:
        md += real_report(results["real"])
    if "remote" in results:
        md += remote_report(results["remote"])
    md += published_comparison(results)
    md += [f"![{p}]({p})" for p in plots]
    (OUT / "report.md").write_text("\n".join(md) + "\n")


def policy_report(sec):
    md = ["## Eviction and prefetch policies", "",
          f"Configuration: {sec['config']['guest']}. Workload figure: bm's "
          "worker iterations in 2 s of guest time (more is better); "
          "memcheck's guest seconds for one 128 MiB pass and sqlbench's "
          "guest seconds (Debian's sqlite3, 200,000 rows) (less is "
          "better). +pk: swap.protect_kernel; +lz4: the compressed tier; "
          "(rec): the traced run whose faults the replay row reads ahead. "
          "Each row names the run (commit, time) it comes from.",
          "", "| workload | policy | prefetch | " +
          " | ".join(t for _, t in POLICY_COLUMNS) + " | run |",
          "|---|---|---|" + "---:|" * len(POLICY_COLUMNS) + "---|"]
    for r in sec["rows"]:
        cells = [str(r.get(k)) if r["ok"] else "failed" for k, _ in
                 POLICY_COLUMNS]
        md.append(f"| {r['workload']} | {policy_label(r)} | "
                  f"{r['prefetch']} | " + " | ".join(cells) +
                  f" | {r.get('run', 'before runs were named')} |")
    return md + [""]

def real_report(sec):
    md = ["## A real program under overcommit", "",
          f"Configuration: {sec['config']['guest']}. The guest runs "
          f"`{sec['command']}`: Debian's sqlite3 twice (the second run on "
          "the memory the first freed) beside a CPU-bound program (busybox "
          "yes), whose CPU time the guest's kernel reports. Goals: the "
          "CPU-bound program gains 1.5x from async PF; free page "
          "reporting cuts swap-ins plus swap-outs by 30%.", "",
          "| host CPUs | apf | balloon | " +
          " | ".join(t for _, t in REAL_COLUMNS) +
          " | run |", "|---:|---|---|" + "---:|" * len(REAL_COLUMNS) + "---|"]
    for r in sec["rows"]:
        md.append(f"| {r.get('host_cpus', 1)} | {r['apf']} | {r['balloon']} | "
                  + " | ".join(
            str(r.get(k)) if r["ok"] else "failed" for k, _ in REAL_COLUMNS)
            + f" | {r['run']} |")
    md += [""] + [f"- {k}: {v}" for k, v in sec.get("goals", {}).items()]
    return md + [""]

def remote_report(sec):
    md = ["## Far memory: swap over NBD against the local disk", "",
          f"Configuration: {sec['config']['guest']}. Fault latency: a "
          "token's not-present to its page-ready (apf on), a vCPU's "
          "synchronous wait (apf off), in microseconds of the guest's "
          "time (TSC cycles / 200e6). `nbd+D`: nbdkit's delay filter adds "
          "D of this machine's time to each request.", "",
          "| backend | " + " | ".join(t for _, t in REMOTE_COLUMNS) + " |",
          "|---|" + "---:|" * len(REMOTE_COLUMNS)]
    for r in sec["rows"]:
        md.append(f"| {r['backend']} | " + " | ".join(
            f"{r[k]:.1%}" if k == "on_ceiling" else str(r.get(k))
            for k, _ in REMOTE_COLUMNS) + " |")
    return md + [""]
