# SPDX-License-Identifier: BSD-2-Clause
"""The apfvisor.cfg keys are declared once, in boot/config_keys.def; the
key table of docs/configuration.md is made from it by tools/config-doc and
must be exactly what that program makes now."""

import re
import subprocess
from pathlib import Path

import tool_module

REPO = Path(__file__).resolve().parent.parent.parent
TOOL = REPO / "tools" / "config-doc"
DOC = REPO / "docs" / "configuration.md"
DEF = REPO / "boot" / "config_keys.def"


def load_tool():
    return tool_module.load_tool("config-doc")


def test_doc_table_is_generated():
    tool = load_tool()
    made = tool.table(tool.read_keys(DEF))
    assert tool.doc_table(DOC) == made, (
        "docs/configuration.md's key table differs from "
        "boot/config_keys.def: regenerate it with "
        "`tools/config-doc --update docs/configuration.md`")


def test_check_mode_agrees():
    proc = subprocess.run([str(TOOL), "--check"], capture_output=True,
                          text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr


def test_every_key_the_parser_knows_is_listed():
    """Each CONFIG_KEY name of the .def is a row, in order, and no row is
    a key the .def does not declare."""
    tool = load_tool()
    names = [k["name"] for k in tool.read_keys(DEF)]
    rows = re.findall(r"^\| `([^`]+)` \|", tool.doc_table(DOC), re.M)
    assert rows == names
    assert len(names) == len(set(names)), "a key is declared twice"


def test_check_reports_a_stale_table(tmp_path):
    tool = load_tool()
    doc = tmp_path / "configuration.md"
    doc.write_text(f"# x\n\n{tool.BEGIN}\n| stale |\n{tool.END}\n")
    proc = subprocess.run([str(TOOL), "--check", str(doc)],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1
    assert "tools/config-doc --update" in proc.stderr
    subprocess.run([str(TOOL), "--update", str(doc)], check=True,
                   timeout=30)
    assert tool.doc_table(doc) == tool.table(tool.read_keys(DEF))
    assert doc.read_text().startswith("# x\n\n")
