# SPDX-License-Identifier: BSD-2-Clause
"""Every program in tools/ answers --help and -h: it prints its usage and
exits 0, and does nothing else (no emulator run, no download, no build).

The programs are every executable file in tools/ but library modules
(*.py) and C sources, found in the folder, so a new tool is covered
without being named here. Each runs from an empty temporary folder, which
must stay empty, and nothing may appear in build/ or in tools/ (a
__pycache__: the tools are run without PYTHONDONTWRITEBYTECODE, which
tests/run-tests sets).
"""

import fnmatch
import os
import signal
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
TOOLS = REPO / "tools"
BUILD = REPO / "build"
TIMEOUT_S = 20
# What the other tests of a run write under build/ while these run beside
# them (pytest-xdist): the emulator tests' logs and work folders
# (tests/harness/lib.py), the unit and fuzz logs and crash folders
# (tests/unit/test_host_programs.py), pytest's and tests/conftest.py's
# files. Relative to build/; fnmatch patterns, whose * spans folders.
WRITTEN_BY_OTHER_TESTS = (
    "test-logs", "test-logs/*", "pytest-cache", "pytest-cache/*",
    "unit/*.log", "fuzz/*.smoke.log", "fuzz/*.crashes", "fuzz/*.crashes/*",
    "test-durations.json", "test-results.xml",
)


def tool_programs():
    """The executable files of tools/ that are programs, by name."""
    return sorted(p for p in TOOLS.iterdir()
                  if p.is_file() and os.access(p, os.X_OK)
                  and p.suffix not in (".py", ".c"))


def listing(folder, ignore=()):
    """Every path below folder, relative to it (none if it is missing),
    but those matching a pattern of ignore."""
    found = set()
    for root, dirs, files in os.walk(folder):
        rel = Path(root).relative_to(folder)
        found.update(str(rel / name) for name in dirs + files)
    return {p for p in found
            if not any(fnmatch.fnmatch(p, pat) for pat in ignore)}


def run_help(tool, flag, cwd):
    """Runs `tool flag` in cwd; returns (exit status, stdout, stderr). A
    run past the time limit is stopped with all it started."""
    env = {k: v for k, v in os.environ.items()
           if k != "PYTHONDONTWRITEBYTECODE"}
    proc = subprocess.Popen([str(tool), flag], cwd=cwd, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"{tool.name} {flag}: still running after {TIMEOUT_S} s "
                    "(stopped)", pytrace=False)
    return proc.returncode, out, err


def test_tools_found():
    names = [t.name for t in tool_programs()]
    for name in ("bochs-run", "qemu-run", "bench-swap", "apfswap-format"):
        assert name in names, f"tools/{name} not collected: {names}"
    assert "runlib.py" not in names


@pytest.mark.parametrize("flag", ["--help", "-h"])
@pytest.mark.parametrize("tool", tool_programs(), ids=lambda t: t.name)
def test_help(tool, flag, tmp_path):
    build_before = listing(BUILD, WRITTEN_BY_OTHER_TESTS)
    tools_before = listing(TOOLS)
    status, out, err = run_help(tool, flag, tmp_path)
    assert status == 0, f"{tool.name} {flag}: exit status {status}\n{err}"
    assert "usage" in out.lower(), \
        f"{tool.name} {flag}: no usage on stdout:\n{out}{err}"
    left = sorted(p.name for p in tmp_path.iterdir())
    assert not left, f"{tool.name} {flag} created {left} in its folder"
    made = sorted(listing(BUILD, WRITTEN_BY_OTHER_TESTS) - build_before)
    assert not made, f"{tool.name} {flag} created in build/: {made}"
    made = sorted(listing(TOOLS) - tools_before)
    assert not made, f"{tool.name} {flag} created in tools/: {made}"


def test_apfswap_format_help_is_the_programs(tmp_path):
    """The wrapper, which answers --help without building the program,
    prints the usage text of the program it builds and runs."""
    program = BUILD / "tools" / "apfswap-format"
    assert program.is_file(), f"{program} was not built (make host-tools)"
    wrapper = run_help(TOOLS / "apfswap-format", "--help", tmp_path)
    assert wrapper == run_help(program, "--help", tmp_path)
