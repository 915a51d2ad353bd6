# SPDX-License-Identifier: BSD-2-Clause
"""The sections of tools/bench (make bench): for each of exits (with
kvm-unit-tests' vmexit_* tests), boot, trace, swap, apf, policy, real and
remote, its run_NAME (boots the guests or runs the tools/bench-* program
and returns the section's results, every figure with its unit) and its
print_NAME (the table tools/bench prints), with what they share: the
paths, one Bochs boot of a configuration, the "apfvisor: stat" counters.
The plots and build/bench/report.md are tools/bench_report.py's.

A library module, not a program: imported by tools/bench (and by
tools/bench_report.py) from their own folder, tools/.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "build" / "bench"
sys.path.insert(0, str(REPO / "tests" / "harness"))

import exitcost  # noqa: E402  (tests/harness/exitcost.py)

EMULATOR = "Bochs 2.7, ips 200e6: 1 TSC cycle = 1 emulated instruction"
CYCLES = "TSC cycles (= Bochs instructions)"
STAT_RE = re.compile(r"^apfvisor: stat (\S+) (\d+)$", re.M)
# Goals of issue 10, in root-mode instructions per exit.
CPUID_GOAL = 100
ZERO_FILL_GOAL = 1000           # plus the page clearing


def figure(value, unit):
    return {"value": value, "unit": unit}


def boot_esp(name, cfg_text, timeout, extra=()):
    """One Bochs boot of cfg_text; returns (serial text, instructions)."""
    work = OUT / name
    work.mkdir(parents=True, exist_ok=True)
    (work / "apfvisor.cfg").write_text(cfg_text)
    subprocess.run([REPO / "tools" / "mkesp", work / "apfvisor.cfg",
                    work / "esp"], check=True, stdout=subprocess.DEVNULL)
    print(f"bench: booting {name} in Bochs (log: "
          f"{(work / 'serial.log').relative_to(REPO)})", flush=True)
    with open(work / "serial.log", "w") as out, \
            open(work / "stderr.log", "w") as err:
        status = subprocess.run(
            [REPO / "tools" / "bochs-run", work / "esp", "--workdir",
             work / "run", "--timeout", str(timeout), *extra],
            stdout=out, stderr=err).returncode
    text = (work / "serial.log").read_text(errors="replace")
    m = re.search(r"bochs-run: instructions (\d+)",
                  (work / "stderr.log").read_text(errors="replace"))
    if status != 0:
        sys.exit(f"bench: {name}: bochs-run exit status {status}; see "
                 f"{work.relative_to(REPO)}/")
    return text, int(m[1]) if m else None


def stats_of(text):
    return {k: int(v) for k, v in STAT_RE.findall(text)}


# ---- exits -----------------------------------------------------------------

def exit_row(op, reason, desc, found, stats):
    row = {"operation": op, "description": desc, "exit_reason": reason,
           "guest_round_trip": figure(found.get(op), f"{CYCLES} per "
                                      "operation, guest RDTSC, loop "
                                      "overhead subtracted")}
    if reason:
        count, per_exit = exitcost.root_cycles(stats, reason)
        handler = stats.get(f"exit.{reason}.handler_tsc", 0)
        row["exits"] = figure(count, f"VM exits '{reason}' in the whole run")
        row["root_cycles_per_exit"] = figure(
            round(per_exit) if per_exit else None,
            f"{CYCLES} from VM exit to next VM entry, mean over all "
            f"'{reason}' exits of the run")
        row["handler_cycles_per_exit"] = figure(
            round(handler / count) if count else None,
            f"{CYCLES} from VM exit to the handler's return, same mean")
    return row


def exit_goals(rows):
    by_op = {r["operation"]: r for r in rows}
    goals = []
    cpuid = by_op["cpuid"]
    goals.append({"what": "CPUID root-mode cycles per exit",
                  "goal": figure(CPUID_GOAL, CYCLES),
                  "measured": cpuid["root_cycles_per_exit"]})
    ept = by_op["ept_zero_fill"]
    clear = by_op["page_clear"]["guest_round_trip"]["value"] or 0
    goals.append({"what": "zero-fill EPT violation root-mode cycles per "
                          "exit, page clearing excluded",
                  "goal": figure(ZERO_FILL_GOAL, CYCLES),
                  "page_clearing": figure(clear, f"{CYCLES}: REP STOSB of "
                                          "4 KiB as measured in the guest"),
                  "measured": figure(
                      ept["root_cycles_per_exit"]["value"] - clear, CYCLES)})
    for g in goals:
        g["met"] = g["measured"]["value"] <= g["goal"]["value"]
    return goals


def where_it_goes(row):
    """The split of a round trip: transition, handler, pre-entry work."""
    total = row["guest_round_trip"]["value"]
    root = row["root_cycles_per_exit"]["value"]
    handler = row["handler_cycles_per_exit"]["value"]
    return (f"round trip {total} = {total - root} VM exit + entry "
            f"(transition, entry stub) + {handler} exit dispatch and "
            f"handler + {root - handler} vCPU loop before the entry "
            f"(the exit statistics, the request word, vmx/vcpu_entry.h "
            f"vcpu_prepare_entry: the preemption-timer VMWRITE when its "
            f"value changes, and the "
            f"PIC/LAPIC/UART interrupt poll under dev_lock only when "
            f"irq_poll_needed says a device, a request or the timer may "
            f"have changed something; then the shootdown generation "
            f"check), paid by every exit whatever its reason")


def run_exits():
    cfg = (REPO / "tests" / "guests" / "exitcost.cfg").read_text()
    text, instructions = boot_esp("exits", cfg, 600)
    found = exitcost.parse(text.splitlines())
    stats = stats_of(text)
    missing = [op for op, _, _ in exitcost.OPERATIONS if op not in found]
    if missing:
        sys.exit(f"bench: exitcost printed no figure for {missing}")
    rows = [exit_row(op, reason, desc, found, stats)
            for op, reason, desc in exitcost.OPERATIONS]
    goals = exit_goals(rows)
    by_op = {r["operation"]: r for r in rows}
    notes = [
        "io rows: the root-mode mean is over every IN of the run "
        "(exit.io.in; the console's LSR polls included); console writes "
        "are counted apart (exit.io.out) because each line the guest ends "
        "is printed on the host's serial port from the exit handler.",
        "hlt_timer: the guest figure is the delay from the TSC deadline to "
        "the timer handler; the root-mode mean of 'hlt' includes the wait "
        "until the deadline (the guest arms it 50000 cycles ahead).",
        "wrmsr rows share one counter: TSC_DEADLINE, EOI and SELF_IPI "
        "writes (and the few setup writes) are averaged together.",
    ]
    for g, op in zip(goals, ("cpuid", "ept_zero_fill")):
        verdict = "goal met" if g["met"] else "goal missed"
        notes.append(f"{op}: {verdict}; {where_it_goes(by_op[op])}.")
    return {"config": {"guest": "tests/guests/exitcost.cfg (32 MiB, 1 vCPU)",
                       "iterations": 128, "host_cpus": 1,
                       "emulator": EMULATOR},
            "operations": rows, "goals": goals, "notes": notes,
            "kvm_unit_tests": run_kut_vmexit(rows),
            "published": [{"source": s, "setting": c, "what": w,
                           "value": v, "unit": u}
                          for s, c, w, v, u in EXIT_FIGURES],
            "run_instructions": figure(instructions, "Bochs instructions, "
                                       "whole run from firmware start")}


# kvm-unit-tests' vmexit tests (KVM's own exit microbenchmarks, run by
# tools/kut-run): unittests.cfg name, the figure's name in the output, the
# apfvisor exit counter that carries it (root/exit from the same run) and
# the exitcost operation measuring the same thing, if any.
KUT_VMEXIT = (
    ("vmexit_cpuid", "cpuid", "cpuid", "cpuid"),
    ("vmexit_vmcall", "vmcall", "vmcall", None),
    ("vmexit_mov_from_cr8", "mov_from_cr8", "cr_access", None),
    ("vmexit_mov_to_cr8", "mov_to_cr8", "cr_access", None),
    ("vmexit_inl_pmtimer", "inl_from_pmtimer", "io.in", "io_unclaimed"),
    ("vmexit_ipi", "ipi", "wrmsr", None),
    ("vmexit_ipi_halt", "ipi_halt", "wrmsr", None),
    ("vmexit_ple_round_robin", "ple_round_robin", "pause", None),
    ("vmexit_tscdeadline", "tscdeadline", "wrmsr", "wrmsr"),
    ("vmexit_tscdeadline_immed", "tscdeadline_immed", "wrmsr", None),
)
# vmexit_cr0_wp and vmexit_cr4_pge are left out: under Bochs neither
# reached its first figure in 15 minutes (docs/kvm-unit-tests.md).


def run_kut_vmexit(own_rows):
    """The vmexit_* tests under apfvisor, two at a time: the guest's
    cycles per operation as the test prints them, and from the same run
    apfvisor's root-mode cycles per exit of the counter behind it."""
    out = OUT / "kut-vmexit"
    names = [t for t, _, _, _ in KUT_VMEXIT]
    print(f"bench: kvm-unit-tests {' '.join(names)} (logs: "
          f"{out.relative_to(REPO)}/NAME/serial.log)", flush=True)
    r = subprocess.run([REPO / "tools" / "kut-run", "-j", "2", "--timeout",
                        "900", "--out", out, *names],
                       capture_output=True, text=True)
    print(r.stdout, end="", flush=True)
    own = {row["operation"]: row for row in own_rows}
    rows = []
    for test, figure_name, reason, own_op in KUT_VMEXIT:
        log = out / test / "serial.log"
        text = log.read_text(errors="replace") if log.exists() else ""
        m = re.search(rf"^guest: {figure_name} (\d+)$", text, re.M)
        stats = stats_of(text)
        count, per_exit = exitcost.root_cycles(stats, reason)
        row = {"test": test, "guest_cycles_per_op": figure(
                   int(m[1]) if m else None,
                   f"{CYCLES} per operation as vmexit.flat prints it"),
               "exit_reason": reason,
               "root_cycles_per_exit": figure(
                   round(per_exit) if per_exit else None,
                   f"{CYCLES} from VM exit to next VM entry, mean over "
                   f"the run's '{reason}' exits"),
               "exits": figure(count, f"'{reason}' exits in the run")}
        if own_op:
            row["exitcost_round_trip"] = own[own_op]["guest_round_trip"]
        rows.append(row)
    return {"command": "tools/kut-run -j 2 " + " ".join(names),
            "status": r.returncode, "rows": rows}


def print_kut_vmexit(sec):
    print(f"{'kvm-unit-tests':<26} {'guest/op':>9} {'exit':<12} "
          f"{'root/exit':>9} {'exitcost rt':>11}")
    for r in sec["rows"]:
        own = r.get("exitcost_round_trip", {}).get("value", "-")
        print(f"{r['test']:<26} "
              f"{r['guest_cycles_per_op']['value'] or '-':>9} "
              f"{r['exit_reason']:<12} "
              f"{r['root_cycles_per_exit']['value'] or '-':>9} "
              f"{own:>11}")


def print_exits(sec):
    print(f"{'operation':<14} {'guest rt':>9} {'exit':<20} {'exits':>6} "
          f"{'root/exit':>9} {'handler':>8}")
    for r in sec["operations"]:
        root = r.get("root_cycles_per_exit", {}).get("value")
        handler = r.get("handler_cycles_per_exit", {}).get("value")
        print(f"{r['operation']:<14} {r['guest_round_trip']['value']:>9} "
              f"{r['exit_reason'] or '-':<20} "
              f"{r.get('exits', {}).get('value', '-'):>6} "
              f"{root if root is not None else '-':>9} "
              f"{handler if handler is not None else '-':>8}")
    for g in sec["goals"]:
        print(f"goal: {g['what']}: {g['measured']['value']} "
              f"(goal <= {g['goal']['value']}) "
              f"{'met' if g['met'] else 'MISSED'}")
    for n in sec["notes"]:
        print(f"note: {n}")
    if "kvm_unit_tests" in sec:
        print_kut_vmexit(sec["kvm_unit_tests"])


# Published per-exit costs of hypervisors on real CPUs (cycles).
EXIT_FIGURES = [
    ("Landau, Ben-Yehuda, Gordon: SplitX (WIOV 2011), section 2",
     "KVM of Linux 2.6.34, Xeon X5570 2.93 GHz, 1 vCPU, EPT and VPID",
     "direct cost of one exit (the two world switches)", 2000, "cycles"),
    ("ACRN pull request 6527 (2021)",
     "ACRN, its service VM on Tiger Lake, before the change",
     "CPUID round trip", 2400, "TSC cycles"),
    ("ACRN pull request 6527 (2021)", "the same, after",
     "CPUID round trip", 2000, "TSC cycles"),
    ("Linux, KVM's enlightened-VMCS support (V. Kuznetsov, 2018; "
     "arch/x86/kvm/vmx_evmcs.h)", "KVM nested on Hyper-V, without "
     "enlightened VMCS", "CPUID round trip in a tight loop", 18890,
     "cycles"),
    ("the same commit", "the same, with enlightened VMCS",
     "CPUID round trip in a tight loop", 8304, "cycles"),
]


# ---- boot ------------------------------------------------------------------

def linux_cfg(kernel):
    text = (REPO / "guest" / "linux.cfg").read_text()
    text = re.sub(r'apfvisor\.run="[^"]*"', 'apfvisor.run="true"', text)
    if kernel:
        text = re.sub(r"(?m)^guest\.kernel = .*$", f"guest.kernel = {kernel}",
                      text)
    return text


def boot_phases(text, instructions):
    """Instructions per phase of one Linux boot (see docs/linux-guest.md,
    "Measured in Bochs"): TSC values from apfvisor's stats, guest times (kvmclock ns)
    turned into TSC values through tsc.kvmclock_zero and tsc.hz."""
    s = stats_of(text)
    offset = re.search(r"kvm-clock: using sched offset of (\d+) cycles", text)
    init = re.search(r"^guest: \[ *([\d.]+)\] Run /init as init process",
                     text, re.M)
    if not offset or not init:
        sys.exit("bench: the boot log lacks the kvm-clock offset or /init")

    def at(ns):
        return s["tsc.kvmclock_zero"] + ns * s["tsc.hz"] / 1e9
    offset_ns = int(offset[1])
    first_entry = s["tsc.hv_start"] + s["tsc.start_to_first_entry"]
    kernel_start = at(offset_ns)
    init_tsc = at(offset_ns + float(init[1]) * 1e9)
    phases = [
        ("firmware and loading the images", s["tsc.hv_start"]),
        ("hand-off to the guest's first instruction",
         s["tsc.start_to_first_entry"]),
        ("first instruction to kernel start (bzImage: XZ decompression)",
         kernel_start - first_entry),
        ("kernel start to /init", init_tsc - kernel_start),
        ("/init to the end of the run", (instructions or init_tsc) -
         init_tsc),
    ]
    return [{"phase": p, "instructions": figure(round(v), "Bochs "
                                                "instructions")}
            for p, v in phases], round(init_tsc)


def run_boot():
    runs = []
    for label, kernel in (("vmlinux", None), ("bzImage", "vmlinuz")):
        text, instructions = boot_esp(f"boot-{label}", linux_cfg(kernel),
                                      1500)
        phases, to_init = boot_phases(text, instructions)
        runs.append({"kernel": label,
                     "config": f"guest/linux.cfg, apfvisor.run=\"true\", "
                               f"guest.kernel = {kernel or 'vmlinux'}, "
                               "1 vCPU, 1 host CPU",
                     "phases": phases,
                     "firmware_to_init": figure(to_init,
                                                "Bochs instructions"),
                     "total": figure(instructions, "Bochs instructions, "
                                     "firmware start to Bochs' end")})
    ratio = runs[0]["firmware_to_init"]["value"] / \
        runs[1]["firmware_to_init"]["value"]
    return {"config": {"emulator": EMULATOR}, "runs": runs,
            "vmlinux_over_bzimage": figure(round(ratio, 3), "ratio of "
                                           "firmware-to-/init instructions"
                                           " (goal: at most 0.5)")}


def print_boot(sec):
    names = [r["kernel"] for r in sec["runs"]]
    print(f"{'phase (Bochs instructions)':<64}" +
          "".join(f"{n:>12}" for n in names))
    for i, p in enumerate(sec["runs"][0]["phases"]):
        print(f"{p['phase']:<64}" + "".join(
            f"{r['phases'][i]['instructions']['value'] / 1e9:>10.3f}e9"
            for r in sec["runs"]))
    print(f"{'firmware start to /init':<64}" + "".join(
        f"{r['firmware_to_init']['value'] / 1e9:>10.3f}e9"
        for r in sec["runs"]))
    print(f"vmlinux / bzImage to /init: "
          f"{sec['vmlinux_over_bzimage']['value']:.3f} (goal <= 0.5)")


# ---- trace -----------------------------------------------------------------

TRACE_RECORDS_RE = re.compile(r"^apfvisor: trace: (\d+) records \((\d+) "
                              r"lost", re.M)


def run_trace():
    """The same Linux run without and with tracing; what recording costs.
    tsc.first_entry_to_end is the guest's run (1 vCPU on 1 host CPU), so
    writing the trace to its disk afterwards is not in it."""
    base = linux_cfg(None)
    off, _ = boot_esp("trace-off", base + "trace = off\n", 1500)
    on, _ = boot_esp("trace-on", base + "trace = on\ntrace.buffer = 32M\n",
                     1500, extra=("--trace", OUT / "trace-on" / "linux.apft"))
    m = TRACE_RECORDS_RE.search(on)
    if not m:
        sys.exit("bench: trace: the traced run wrote no trace")
    kept, lost = int(m[1]), int(m[2])
    run_off = stats_of(off)["tsc.first_entry_to_end"]
    run_on = stats_of(on)["tsc.first_entry_to_end"]
    events = kept + lost
    return {"config": {"emulator": EMULATOR,
                       "guest": "guest/linux.cfg, apfvisor.run=\"true\", "
                                "1 vCPU, 1 host CPU; trace.buffer = 32M, "
                                "stop mode"},
            "run_off": figure(run_off, CYCLES),
            "run_on": figure(run_on, CYCLES),
            "on_over_off": figure(round(run_on / run_off, 4),
                                  "ratio of guest-run cycles"),
            "events": figure(events, "events recorded or lost"),
            "lost": figure(lost, "events"),
            "cycles_per_event": figure(round((run_on - run_off) / events, 1)
                                       if events else None,
                                       "TSC cycles per event (difference "
                                       "of the two runs / events)"),
            "trace": str((OUT / "trace-on" / "linux.apft").relative_to(REPO))}


def print_trace(sec):
    print(f"Linux run, trace off: {sec['run_off']['value'] / 1e9:.3f}e9 "
          f"cycles; on: {sec['run_on']['value'] / 1e9:.3f}e9; on/off "
          f"{sec['on_over_off']['value']}")
    print(f"{sec['events']['value']} events ({sec['lost']['value']} lost): "
          f"{sec['cycles_per_event']['value']} cycles per event")


# ---- swap and apf (the existing benches) ------------------------------------

def run_swap():
    out = subprocess.run([REPO / "tools" / "bench-swap"], text=True,
                         stdout=subprocess.PIPE).stdout
    print(out, end="")
    r = re.search(r"device read (\d+) cycles/page, swap-in seen by the vCPU "
                  r"(\d+) cycles/page", out)
    w = re.search(r"device write (\d+) cycles/page, daemon swap-out work "
                  r"(\d+) cycles/page", out)
    if not r or not w:
        sys.exit("bench: bench-swap printed no per-page figures")
    unit = f"{CYCLES} per 4 KiB page"
    return {"config": {"guest": "guest/linux.cfg, memcheck -m 128M -p 2, "
                                "256 MiB on 64 MiB of host frames, ATA swap",
                       "emulator": EMULATOR},
            "device_read": figure(int(r[1]), unit),
            "swap_in_wait": figure(int(r[2]), unit),
            "device_write": figure(int(w[1]), unit),
            "swap_out_work": figure(int(w[2]), unit)}


def print_swap(sec):
    for k in ("device_read", "swap_in_wait", "device_write", "swap_out_work"):
        print(f"{k:<14} {sec[k]['value']:>10} {sec[k]['unit']}")


def latency_us(text):
    m = re.fullmatch(r"(\d+)(us|ms|s)?", text)
    scale = {"us": 1, "ms": 1000, "s": 1000000, None: 1}[m[2]]
    return int(m[1]) * scale if m[2] else int(m[1])


APF_HOST_CPUS = (1, 2)


def apf_rows(rows):
    unit = "bm worker iterations in 2 s of guest (kvmclock) time"
    return [{"read_latency_us": latency_us(r["latency"]),
             "on": figure(r["on"], unit),
             "off": figure(r["off"], unit),
             "ceiling": figure(r["ceiling"], unit + " (worker alone)"),
             "on_over_off": figure(round(r["on_off"], 3), "ratio"),
             "on_over_ceiling": figure(round(r["on_ceiling"], 3), "ratio"),
             # The faulting thread's pages (bm's touched:), medians of runs.
             **({"faulter_on": figure(r["touched_on"], "pages written by "
                                      "the faulting thread in 2 s"),
                 "faulter_off": figure(r["touched_off"], "pages written by "
                                       "the faulting thread in 2 s"),
                 "faulter_on_over_off": figure(
                     round(r["touched_on_off"], 3), "ratio"),
                 "runs": r["runs"], "spread": r["spread"]}
                if r.get("touched_on_off") is not None else {})}
            for r in rows]


def run_apf():
    """Both curves: 1 host CPU (the vCPU's own exits move the swap I/O)
    and 2 (the boot CPU runs the paging daemon). Two Bochs at a time: the
    figures are counts in guest time, the same however the runs share the
    machine."""
    sec = {"config": {"guest": "guest/linux.cfg, bm -f 1 -w 1 -t 2 -m 150M, "
                               "256 MiB on 64 MiB of host frames, ATA swap",
                      "emulator": EMULATOR}, "curves": {}}
    for cpus in APF_HOST_CPUS:
        subprocess.run([REPO / "tools" / "bench-apf", "--jobs", "2",
                        "--host-cpus", str(cpus)])
        name = "apf.json" if cpus == 1 else f"apf-{cpus}cpus.json"
        rows = json.loads((OUT / name).read_text())
        sec["curves"][str(cpus)] = apf_rows(rows)
    # Two vCPUs on three host CPUs: bm -f 2 -w 2, its ceiling bm -f 0 -w 2.
    subprocess.run([REPO / "tools" / "bench-apf", "--jobs", "2",
                    "--host-cpus", "3", "--vcpus", "2"])
    rows = json.loads((OUT / "apf-3cpus-2vcpus.json").read_text())
    sec["curves"]["3 (guest: 2 vCPUs)"] = apf_rows(rows)
    # "rows": the 1-host-CPU curve, as before both were measured.
    sec["rows"] = sec["curves"]["1"]
    return sec


def print_apf(sec):
    curves = sec.get("curves") or {"1": sec["rows"]}
    for cpus, rows in curves.items():
        print(f"host CPUs: {cpus}")
        print(f"{'latency us':>10} {'on':>12} {'off':>12} {'on/off':>7} "
              f"{'on/ceil':>8} {'faulter on/off':>15}")
        for r in rows:
            faulter = (f"{r['faulter_on_over_off']['value']:>15.2f}"
                       if "faulter_on_over_off" in r else f"{'-':>15}")
            print(f"{r['read_latency_us']:>10} {r['on']['value']:>12} "
                  f"{r['off']['value']:>12} "
                  f"{r['on_over_off']['value']:>7.2f} "
                  f"{r['on_over_ceiling']['value']:>8.1%} {faulter}")


# ---- policy -----------------------------------------------------------------

def run_policy():
    subprocess.run([REPO / "tools" / "bench-policy", "--jobs", "2"])
    rows = json.loads((OUT / "policy.json").read_text())
    return {"config": {"guest": "guest/linux.cfg, 256 MiB on 64 MiB of host "
                                "frames, ATA swap, swap.read_latency 1 ms, "
                                "async PF on",
                       "emulator": EMULATOR},
            "rows": rows}


POLICY_COLUMNS = (("figure", "workload figure"),
                  ("demand_swap_ins", "demand swap-ins"),
                  ("prefetched", "read ahead"), ("prefetch_used", "used"),
                  ("prefetch_wasted", "wasted"),
                  ("apf_tokens", "async-PF tokens"),
                  ("sync_waits", "synchronous waits"),
                  ("apf_ready_p50_us", "token to ready p50 us"),
                  ("apf_ready_p99_us", "p99 us"),
                  ("sync_wait_p50_us", "sync wait p50 us"),
                  ("sync_wait_p99_us", "p99 us"),
                  ("tier_hits", "tier hits"),
                  ("tier_hit_p50_us", "tier hit p50 us"))


def policy_label(r):
    """policy, + protect_kernel, + the tier, (rec) for a traced record run."""
    return (r["policy"] + ("+pk" if r.get("protect_kernel") else "")
            + ("+" + r["tier"] if r.get("tier", "none") != "none" else "")
            + ("(rec)" if r.get("record") else ""))


def print_policy(sec):
    print(f"{'workload':<9} {'policy':<15} {'prefetch':<10} " +
          " ".join(f"{k[:9]:>9}" for k, _ in POLICY_COLUMNS))
    for r in sec["rows"]:
        cells = [f"{r.get(k)!s:>9}" if r["ok"] else f"{'-':>9}"
                 for k, _ in POLICY_COLUMNS]
        print(f"{r['workload']:<9} {policy_label(r):<15} "
              f"{r['prefetch']:<10} " + " ".join(cells))

# ---- real and remote -------------------------------------------------------

def run_real():
    subprocess.run([REPO / "tools" / "bench-real", "--jobs", "2"])
    sec = json.loads((OUT / "real.json").read_text())
    sec["config"] = {"guest": "guest/linux.cfg, 256 MiB on 64 MiB of host "
                              "frames, ATA swap, swap.read_latency 1 ms; "
                              "1 vCPU on 1 host CPU (the daemon's work in "
                              "the vCPU's exits) and on 2 (the daemon on "
                              "a CPU of its own)",
                     "emulator": EMULATOR}
    return sec


REAL_COLUMNS = (("cpu_share_run1",
                 "CPU-bound program's user time / sqlite3's first run"),
                ("cpu_user_run1", "its user s"),
                ("cpu_system_run1", "its system s"),
                ("sqlite_seconds", "sqlite3 runs, guest s"),
                ("swap_ins", "swap-ins"), ("swap_outs", "swap-outs"),
                ("apf_tokens", "async-PF tokens"),
                ("sync_waits", "synchronous waits"),
                ("reported_pages", "pages reported free"),
                ("discard_refaults", "discarded pages touched again"))


def print_real(sec):
    print(f"{'cpus':<4} {'apf':<4} {'balloon':<8} " +
          " ".join(f"{k[:12]:>14}" for k, _ in REAL_COLUMNS))
    for r in sec["rows"]:
        print(f"{r.get('host_cpus', 1):<4} {r['apf']:<4} {r['balloon']:<8} " +
              " ".join(f"{r.get(k)!s:>14}" if r["ok"] else f"{'-':>14}"
                       for k, _ in REAL_COLUMNS))
    for k, v in sec.get("goals", {}).items():
        print(f"{k}: {v}")


def run_remote():
    subprocess.run([REPO / "tools" / "bench-remote", "--jobs", "2"])
    rows = json.loads((OUT / "remote.json").read_text())
    return {"rows": rows,
            "config": {"guest": "guest/linux.cfg, 256 MiB on 64 MiB of host "
                                "frames, 1 vCPU, 2 host CPUs (the daemon on "
                                "its own), bm -f 1 -w 1 -t 2 -m 150M; swap "
                                "on the ATA disk or on nbdkit (file plugin, "
                                "127.0.0.1) over Bochs's e1000 and slirp",
                       "emulator": EMULATOR}}


REMOTE_COLUMNS = (("fault_on_p50_us", "fault p50, apf on (guest us)"),
                  ("fault_on_p99_us", "p99 on"),
                  ("fault_off_p50_us", "fault p50, apf off (guest us)"),
                  ("fault_off_p99_us", "p99 off"),
                  ("on", "worker, apf on"), ("off", "worker, apf off"),
                  ("ceiling", "worker alone"), ("on_ceiling", "on/ceiling"),
                  ("touched_on", "faulter pages on"),
                  ("touched_off", "faulter pages off"),
                  ("tokens", "tokens"), ("nbd_requests_on", "NBD requests"))


def print_remote(sec):
    print(f"{'backend':<10} " +
          " ".join(f"{k[:12]:>12}" for k, _ in REMOTE_COLUMNS))
    for r in sec["rows"]:
        print(f"{r['backend']:<10} " + " ".join(
            f"{r[k]:>12.1%}" if k == "on_ceiling" else f"{r.get(k)!s:>12}"
            for k, _ in REMOTE_COLUMNS))

