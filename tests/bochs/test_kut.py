# SPDX-License-Identifier: BSD-2-Clause
"""KVM's own guest tests (kvm-unit-tests' x86 suite) under apfvisor in
Bochs, run by tools/kut-run as its x86/run runs them under QEMU.

make test runs the short ones below (each is one firmware boot, ~1e9
emulated instructions); `make test-kut` runs the whole selection of
x86/unittests.cfg (docs/kvm-unit-tests.md). Each test must print
PASS with the number of checks it made, and what apfvisor counted must
show the path the test meant to exercise was taken."""

import re
import subprocess

import pytest

from lib import REPO, expect

KUT_RUN = REPO / "tools" / "kut-run"
STAT_RE = re.compile(r"^apfvisor: stat (\S+) (\d+)$")


def kut(ctx, name, timeout=600):
    """Runs one test; returns (its result line, its serial lines, stats)."""
    out = ctx.workdir / "kut"
    cmd = [str(KUT_RUN), "-j", "1", "--out", str(out), name]
    ctx.log("### " + " ".join(cmd))
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=timeout)
    ctx.log(r.stdout + r.stderr)
    log = out / name / "serial.log"
    lines = log.read_text(errors="replace").splitlines() if log.exists() \
        else []
    ctx.log(f"### {log}:\n" + "\n".join(lines))
    result = next((l for l in r.stdout.splitlines()
                   if l.split(" ", 2)[1:2] == [name]), "")
    expect(r.stdout.rstrip().endswith("1 passed, 0 failed, 0 skipped"),
           f"kut-run {name}: {result or r.stdout.strip()[-300:]}")
    stats = {m[1]: int(m[2]) for m in map(STAT_RE.match, lines) if m}
    return result, lines, stats


def checks(result):
    m = re.search(r"\((\d+) tests", result)
    return int(m[1]) if m else 0


def test_kut_eventinj(ctx):
    """Exceptions and NMIs delivered while the host unmaps the IDT and the
    stack (pc-testdev's page flush); an NMI sent inside the NMI handler
    goes in right after its IRET (NMI-window exit), and one whose IRET
    faults in EPT stays blocked until the IRET is done."""
    result, lines, stats = kut(ctx, "eventinj")
    expect(checks(result) == 13, f"eventinj: {result}")
    expect(stats.get("testdev.translations_dropped", 0) >= 10 and
           stats.get("testdev.dropped_refaults", 0) ==
           stats.get("testdev.translations_dropped"),
           f"page flushes {stats.get('testdev.translations_dropped')}, "
           f"refaults {stats.get('testdev.dropped_refaults')}")
    expect(stats.get("exit.nmi_window", 0) >= 1,
           "no NMI-window exit: the nested NMI went in another way")
    expect(stats.get("ept.nmi_reblocked_after_iret", 0) >= 1,
           "no EPT violation during an NMI handler's IRET")


def test_kut_ioapic(ctx):
    """The I/O APIC driven through pc-testdev's IRQ lines on 4 vCPUs:
    edge and level, coalescing, remote IRR, the LAPIC TMR, logical and
    physical destinations."""
    result, lines, stats = kut(ctx, "ioapic")
    expect(checks(result) == 30, f"ioapic: {result}")
    expect(any("TMR for ioapic level interrupts (expected true)" in l
               for l in lines if l.startswith("guest: PASS")),
           "the TMR check did not pass")


def test_kut_smptest3(ctx):
    """INIT-SIPI of two APs and an IPI to each of three vCPUs."""
    result, lines, stats = kut(ctx, "smptest3")
    expect("guest: found 3 cpus" in lines, "the guest did not find 3 CPUs")
    expect(sum(l.startswith("guest: ipi called, cpu ") for l in lines) == 3,
           "not one IPI per CPU")


def test_kut_emulator(ctx):
    """Instructions on pc-testdev's scratch memory (RAM-backed here),
    string I/O into it, and the ones apfvisor does intercept."""
    result, lines, stats = kut(ctx, "emulator")
    expect(checks(result) >= 150, f"emulator: {result}")
