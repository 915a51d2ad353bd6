# SPDX-License-Identifier: BSD-2-Clause
"""tools/bench-real reads a boot's figures from its serial log: the CPU
ticks and sqlite3's times from the guest's lines, the swap counters from
apfvisor's, and each phase's swap traffic from the marks the guest asked
for between the runs (debug.hypercall's mark); the goals compare rows of
one run only."""

from tool_module import load_tool

bench = load_tool("bench-real")


def log(ins, outs, marks, seconds=(100.0, 110.0), user=(50, 60)):
    lines = []
    for n, (i, o) in enumerate(marks):
        lines.append(f"apfvisor: mark {n}: swap.ins {i} swap.outs {o} "
                     "apf.not_present 7")
        if n < len(seconds):
            lines.append(f"guest: sqlbench: 200000 rows, 0 out of order, "
                         f"{seconds[n]:.2f} seconds")
            lines.append(f"guest: cpu: {user[n] * 100} 10")
    lines += ["apfvisor: guest powered off",
              f"apfvisor: stat swap.ins {ins}",
              f"apfvisor: stat swap.outs {outs}"]
    return "\n".join(lines) + "\n"


def test_marks_split_the_traffic_into_phases():
    r = bench.parse(log(60, 90, [(10, 20), (40, 60), (55, 85)]))
    row = bench.row(2, "on", "on", r, "stamp")
    assert row["ok"]
    assert row["swap_traffic"] == 150
    assert (row["traffic_boot"], row["traffic_run1"],
            row["traffic_run2"]) == (30, 70, 40)
    assert row["cpu_share_run1"] == 0.5


def test_a_missing_mark_gives_no_phase_figure():
    r = bench.parse(log(60, 90, [(10, 20), (40, 60)]))
    row = bench.row(2, "on", "on", r, "stamp")
    assert row["traffic_run1"] == 70
    assert row["traffic_run2"] is None


def test_goals_compare_rows_of_the_same_topology():
    on = bench.row(2, "on", "on", bench.parse(
        log(60, 90, [(10, 20), (40, 60), (55, 85)])), "s")
    off = bench.row(2, "on", "off", bench.parse(
        log(80, 120, [(10, 20), (40, 60), (75, 125)])), "s")
    g = bench.goals([on, off])
    # Whole boots: 150 against 200; the second run alone: 40 against 100.
    assert g["2cpus_traffic_cut_apf_on"] == 0.25
    assert g["2cpus_run2_traffic_cut_apf_on"] == 0.6


def test_every_run_is_marked_in_the_command():
    assert bench.command().count("hypercall mark") == 3
    assert bench.config("on", "on").count("debug.hypercall = on") == 1
