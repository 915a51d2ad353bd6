# SPDX-License-Identifier: BSD-2-Clause
"""What the exitcost guest (tests/guests/exitcost.asm) prints, read back:
its operations, the VM-exit reason each one costs, and a parser. Used by
its Bochs test and by tools/bench (tools/bench_sections.py), so the list
exists once."""

import re

# (operation, the exit counters apfvisor keeps for it: exit.NAME, what it is)
OPERATIONS = (
    ("cpuid", "cpuid", "CPUID leaf 0"),
    ("rdmsr", "rdmsr", "RDMSR IA32_TSC_DEADLINE"),
    ("wrmsr", "wrmsr", "WRMSR IA32_TSC_DEADLINE"),
    ("io_unclaimed", "io.in", "IN from an unclaimed port (0x2fd)"),
    ("io_uart_lsr", "io.in", "IN from COM1's LSR (0x3fd)"),
    ("xapic_eoi", "ept_violation.mmio", "MOV to the xAPIC EOI register"),
    ("x2apic_eoi", "wrmsr", "WRMSR x2APIC EOI"),
    ("self_ipi", "wrmsr", "x2APIC self-IPI: WRMSR, injection, handler, EOI"),
    ("ept_zero_fill", "ept_violation.memory", "first write to a fresh page"),
    ("page_clear", None, "REP STOSB over 4 KiB in the guest (no exit)"),
    ("hlt_timer", "hlt", "HLT until the TSC deadline: deadline to handler"),
)

LINE_RE = re.compile(r"^(?:guest: )?exitcost: (\w+) (\d+) cycles"
                     r"(?:/round-trip| from the deadline to the handler)$")


def parse(lines):
    """{operation: cycles} from the guest's console lines."""
    found = {}
    for line in lines:
        m = LINE_RE.match(line.rstrip())
        if m:
            found[m[1]] = int(m[2])
    return found


def root_cycles(stats, reason):
    """(exits, root-mode cycles per exit) of one reason from the stats."""
    count = stats.get(f"exit.{reason}", 0)
    total = stats.get(f"exit.{reason}.root_tsc", 0)
    return count, (total / count if count else None)
