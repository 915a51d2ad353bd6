# SPDX-License-Identifier: BSD-2-Clause
"""The exitcost guest: every round trip it measures is printed, each is
held to its recorded baseline (tests/bochs/exitcost_baseline.json), and
apfvisor's per-reason exit counters (count and root-mode cycles) saw those
exits.

Under Bochs a cycle is an emulated instruction, so the figures are exact
and repeat from run to run: a row more than 5% above its baseline is a
regression and fails. A change that makes a row cheaper (or one that is
worth its cost) records the new figures in the JSON file, in the same
commit, saying why: `tools/bench exits` prints them."""

import json
from pathlib import Path

from exitcost import OPERATIONS, parse, root_cycles
from lib import expect

ITERATIONS = 128            # tests/guests/exitcost.asm
BASELINE = Path(__file__).with_name("exitcost_baseline.json")
TOLERANCE = 0.05


def over_baseline(kind, name, got, baseline):
    """A message if got is more than TOLERANCE above the recorded
    figure, else None."""
    if name not in baseline:
        return f"{kind} {name}: {got:.0f}, but no baseline recorded " \
               f"in {BASELINE.name}"
    limit = baseline[name] * (1 + TOLERANCE)
    if got > limit:
        return f"{kind} {name}: {got:.0f} cycles, baseline " \
               f"{baseline[name]} (+{(got / baseline[name] - 1) * 100:.1f}%" \
               f", more than {TOLERANCE:.0%})"
    return None


def test_exitcost(ctx):
    baseline = json.loads(BASELINE.read_text())
    run = ctx.boot_guest("exitcost", cpus=1, timeout=600)
    run.expect_line(f"guest: exitcost: start, {ITERATIONS} iterations each")
    run.expect_line("guest: exitcost: PASS")
    run.expect_line("apfvisor: guest halted: test-exit code 0")
    run.expect_absent(r"^apfvisor: error:")
    found = parse(run.lines)
    problems = []
    measured = {"round_trip": {}, "root_per_exit": {}}
    for op, reason, _ in OPERATIONS:
        expect(op in found, f"expected an 'exitcost: {op} N cycles' line")
        measured["round_trip"][op] = found[op]
        problems.append(over_baseline("round trip", op, found[op],
                                      baseline["round_trip"]))
        if reason is None or reason in measured["root_per_exit"]:
            continue
        run.expect_stat_at_least(f"exit.{reason}", ITERATIONS)
        count, per_exit = root_cycles(run.stats, reason)
        expect(per_exit, f"no root-mode cycles for exit.{reason}")
        measured["root_per_exit"][reason] = round(per_exit)
        problems.append(over_baseline("root mode per exit", reason,
                                      per_exit, baseline["root_per_exit"]))
    ctx.log("### measured (the format of " + BASELINE.name + "):\n" +
            json.dumps(measured, indent=1, sort_keys=True))
    problems = [p for p in problems if p]
    expect(not problems, "exit costs above their baseline:\n  " +
           "\n  ".join(problems))
    # An exit costs more in the round trip than in root mode alone.
    _, cpuid_root = root_cycles(run.stats, "cpuid")
    expect(found["cpuid"] > cpuid_root,
           f"expected the guest's CPUID round trip ({found['cpuid']}) above "
           f"its root-mode part ({cpuid_root:.0f})")
    run.expect_stat_at_least("ept.violations", ITERATIONS)
    run.expect_status(0)
