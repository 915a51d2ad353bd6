# SPDX-License-Identifier: BSD-2-Clause
"""The exitcost guest: every round trip it measures is printed with a
plausible number, and apfvisor's per-reason exit counters (count and
root-mode cycles) saw those exits."""

from exitcost import OPERATIONS, parse, root_cycles
from lib import expect

ITERATIONS = 128            # tests/guests/exitcost.asm
# Under Bochs one cycle is one instruction: a round trip through apfvisor
# is thousands; a million means something went badly wrong.
MAX_CYCLES = 1_000_000


def test_exitcost(ctx):
    run = ctx.boot_guest("exitcost", cpus=1, timeout=600)
    run.expect_line(f"guest: exitcost: start, {ITERATIONS} iterations each")
    run.expect_line("guest: exitcost: PASS")
    run.expect_line("apfvisor: guest halted: test-exit code 0")
    found = parse(run.lines)
    for op, reason, _ in OPERATIONS:
        expect(op in found, f"expected an 'exitcost: {op} N cycles' line")
        expect(0 < found[op] < MAX_CYCLES,
               f"expected {op} between 0 and {MAX_CYCLES} cycles, "
               f"got {found[op]}")
        if reason is None:
            continue
        run.expect_stat_at_least(f"exit.{reason}", ITERATIONS)
        count, per_exit = root_cycles(run.stats, reason)
        expect(per_exit and 0 < per_exit < MAX_CYCLES,
               f"expected exit.{reason}.root_tsc / exit.{reason} between "
               f"0 and {MAX_CYCLES}, got {per_exit} over {count} exits")
    # An exit costs more in the round trip than in root mode alone.
    _, cpuid_root = root_cycles(run.stats, "cpuid")
    expect(found["cpuid"] > cpuid_root,
           f"expected the guest's CPUID round trip ({found['cpuid']}) above "
           f"its root-mode part ({cpuid_root:.0f})")
    run.expect_stat_at_least("ept.violations", ITERATIONS)
    run.expect_status(0)
