# SPDX-License-Identifier: BSD-2-Clause
"""The guest's DSDT (guest/devices/dsdt.asl, compiled by the build into
build/gen/dsdt.aml) run in ACPICA's own interpreter: acpiexec (from
acpica-tools) loads the table and evaluates the objects Linux reads, and
the values are checked against what the hypervisor's C code and the
device models rely on. The resource template of _CRS is decoded here from
its bytes (ACPI 6.4, 6.4.3: small and large resource descriptors), not
by ACPICA. test_acpi_tables (cmocka) checks that the guest's table
carries exactly this AML."""

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
AML = REPO / "build" / "gen" / "dsdt.aml"

# What guest/devices/pci_layout.h promises the device models, written out
# again: a change there must change this test too.
WINDOW32 = (0xE0000000, 0xFEBFFFFF)
BALLOON_SLOT = 3
BALLOON_GSI = 11
S5_SLP_TYP = 5


def header_defines(path):
    """The #define NAME INTEGER lines of a header."""
    return {m[1]: int(m[2], 0) for m in re.finditer(
        r"(?m)^#define\s+(\w+)\s+(0[xX][0-9a-fA-F]+|\d+)\s*$",
        (REPO / path).read_text())}


def evaluate(*paths):
    """acpiexec's answer for each object path, as the lines it printed."""
    assert AML.is_file(), f"{AML} was not built (make efi)"
    batch = ";".join(f"evaluate {p}" for p in paths)
    r = subprocess.run(["acpiexec", "-di", "-b", batch, str(AML)],
                       cwd=REPO, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=60)
    out = r.stdout
    assert r.returncode == 0, f"acpiexec exited {r.returncode}:\n{out}"
    assert not re.search(r"\bAE_\w+|Error|Warning", out), \
        f"acpiexec reported a problem:\n{out}"
    answers = {}
    for p in paths:
        m = re.search(rf"(?ms)^Evaluation of {re.escape(p)} returned "
                      rf"object [^\n]*\n(.*?)(?=^Evaluating |^ACPI: |\Z)",
                      out)
        assert m, f"no value for {p} in acpiexec's output:\n{out}"
        answers[p] = m[1].splitlines()
    return answers


def integers(lines):
    return [int(m[1], 16) for l in lines
            if (m := re.search(r"\[Integer\] = ([0-9A-Fa-f]+)", l))]


def buffer_bytes(lines):
    data = bytearray()
    for l in lines:
        m = re.match(r"\s*[0-9A-Fa-f]{4}: ((?:[0-9A-Fa-f]{2} )+)", l)
        if m:
            data += bytes.fromhex(m[1])
    return bytes(data)


def eisa_id(value):
    """A compressed EISA ID (ACPI 6.4, 6.1.5) as its seven characters."""
    b = value.to_bytes(4, "little")
    letters = b[0] << 8 | b[1]
    text = "".join(chr(0x40 + (letters >> s & 0x1F)) for s in (10, 5, 0))
    return text + f"{b[2]:02X}{b[3]:02X}"


def descriptors(data):
    """(tag, body) of each resource descriptor up to the End Tag."""
    out, i = [], 0
    while i < len(data):
        tag = data[i]
        if tag & 0x80:                          # large: 16-bit length
            n = data[i + 1] | data[i + 2] << 8
            out.append((tag, data[i + 3:i + 3 + n]))
            i += 3 + n
        else:                                   # small: length in the tag
            name, n = tag >> 3, tag & 7
            out.append((name, data[i + 1:i + 1 + n]))
            i += 1 + n
            if name == 0x0F:                    # End Tag
                return out
    pytest.fail("the resource template has no End Tag")


def address_space(body, width):
    """A Word (6.4.3.5.3) or DWord (6.4.3.5.2) Address Space Descriptor:
    type, general flags, type flags, then granularity, min, max,
    translation and length, each width bytes."""
    fields = [int.from_bytes(body[3 + k * width:3 + (k + 1) * width],
                             "little") for k in range(5)]
    return {"type": body[0], "flags": body[1], "type_flags": body[2],
            "min": fields[1], "max": fields[2], "translation": fields[3],
            "length": fields[4]}


def test_sleep_state_s5():
    s5 = integers(evaluate(r"\_S5")[r"\_S5"])
    assert s5 == [S5_SLP_TYP, S5_SLP_TYP, 0, 0]
    assert header_defines("guest/devices/acpi_sleep.h")[
        "ACPI_S5_SLP_TYP"] == S5_SLP_TYP


def test_root_bridge_identity():
    a = evaluate(r"\_SB.PCI0._HID", r"\_SB.PCI0._UID", r"\_SB.PCI0._BBN")
    assert eisa_id(integers(a[r"\_SB.PCI0._HID"])[0]) == "PNP0A03"
    assert integers(a[r"\_SB.PCI0._UID"]) == [0]
    assert integers(a[r"\_SB.PCI0._BBN"]) == [0]


def test_root_bridge_resources():
    crs = buffer_bytes(evaluate(r"\_SB.PCI0._CRS")[r"\_SB.PCI0._CRS"])
    found = descriptors(crs)
    assert found[-1][0] == 0x0F
    buses, io, ports, memory = [], [], [], []
    for tag, body in found[:-1]:
        if tag == 0x88 and body[0] == 2:        # Word, bus number range
            buses.append(address_space(body, 2))
        elif tag == 0x88 and body[0] == 1:      # Word, I/O range
            ports.append(address_space(body, 2))
        elif tag == 0x87 and body[0] == 0:      # DWord, memory range
            memory.append(address_space(body, 4))
        elif tag == 0x08:                       # I/O Port (6.4.2.5)
            io.append(body)
        else:
            pytest.fail(f"unexpected descriptor {tag:#x} {body.hex()}")
    # Producers (general flags bit 0 clear), fixed min and max (bits 2, 3).
    for d in buses + ports + memory:
        assert d["flags"] & 0x01 == 0, d
        assert d["flags"] & 0x0C == 0x0C, d
        assert d["translation"] == 0, d
        assert d["length"] == d["max"] - d["min"] + 1, d
    assert [(d["min"], d["max"]) for d in buses] == [(0, 0xFF)]
    # The bridge's own ports: 16-bit decode, 0xCF8, 8 of them.
    assert io == [bytes([1, 0xF8, 0x0C, 0xF8, 0x0C, 1, 8])]
    assert sorted((d["min"], d["max"]) for d in ports) == \
        [(0x0000, 0x0CF7), (0x0D00, 0xFFFF)]
    assert [(d["min"], d["max"]) for d in memory] == [WINDOW32]
    layout = header_defines("guest/devices/pci_layout.h")
    assert (layout["PCI_WINDOW32_BASE"], layout["PCI_WINDOW32_LIMIT"]) == \
        WINDOW32
    # Below the I/O APIC (0xFEC00000) and the local APIC (0xFEE00000),
    # above the most RAM below 4 GiB (3.5 GiB, lib/guest_ram.c).
    assert WINDOW32[0] >= 0xE0000000 and WINDOW32[1] < 0xFEC00000


def test_interrupt_routing():
    prt = integers(evaluate(r"\_SB.PCI0._PRT")[r"\_SB.PCI0._PRT"])
    assert len(prt) % 4 == 0
    entries = [tuple(prt[i:i + 4]) for i in range(0, len(prt), 4)]
    address = BALLOON_SLOT << 16 | 0xFFFF       # any function of the slot
    # Every pin of slot 3 straight to GSI 11 (source 0: no link device).
    assert sorted(entries) == [(address, pin, 0, BALLOON_GSI)
                               for pin in range(4)]
    layout = header_defines("guest/devices/pci_layout.h")
    assert layout["PCI_BALLOON_SLOT"] == BALLOON_SLOT
    assert layout["PCI_BALLOON_GSI"] == BALLOON_GSI
