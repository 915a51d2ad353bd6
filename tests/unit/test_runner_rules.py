# SPDX-License-Identifier: BSD-2-Clause
"""The rules tests/conftest.py adds to pytest, checked on a throwaway
suite that uses them: a skip the project does not expect fails the run
(and is reported as skipped, not passed), a lib.TestFailure is reported as
its message, and the pool hands out the longest test first."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent


def run_suite(tmp_path, body, *args):
    """Runs pytest on a suite of one file whose conftest is the project's;
    returns (exit status, output)."""
    (tmp_path / "conftest.py").write_text(textwrap.dedent(f"""\
        # The project's conftest under another name, its names here.
        import importlib.util
        spec = importlib.util.spec_from_file_location(
            "apfvisor_conftest", {str(REPO / 'tests' / 'conftest.py')!r})
        project = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(project)
        globals().update({{k: v for k, v in vars(project).items()
                          if not k.startswith("__")}})
        """))
    (tmp_path / "test_it.py").write_text(textwrap.dedent(body))
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", *args,
                        str(tmp_path)],
                       cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=120)
    return r.returncode, r.stdout + r.stderr


def test_an_unexpected_skip_fails_the_run(tmp_path):
    status, out = run_suite(tmp_path, """\
        import pytest
        def test_passes():
            pass
        def test_skips():
            pytest.skip("the emulator is missing")
        """)
    assert status == 1, out
    assert "1 passed, 1 skipped" in out, out
    assert "skipped that must run" in out, out


def test_a_clean_run_passes(tmp_path):
    status, out = run_suite(tmp_path, """\
        def test_passes():
            pass
        """)
    assert status == 0, out


def test_a_test_failure_is_its_message(tmp_path):
    status, out = run_suite(tmp_path, """\
        from lib import TestFailure
        def test_fails():
            raise TestFailure("expected the line 'x'")
        """)
    assert status == 1, out
    assert "expected the line 'x'" in out, out
    assert "Traceback" not in out, out


def test_longest_first_and_durations_recorded(tmp_path):
    """The collection is ordered by the recorded durations, longest first
    (also without xdist), and a run records what it measured."""
    recorded = tmp_path / "recorded.json"
    fresh = tmp_path / "fresh.json"
    recorded.write_text(json.dumps({"test_it.py::test_long": 100.0,
                                    "test_it.py::test_short": 1.0}))
    os.environ["APFVISOR_RECORDED_DURATIONS"] = str(recorded)
    os.environ["APFVISOR_FRESH_DURATIONS"] = str(fresh)
    try:
        body = """\
            def test_short():
                pass
            def test_long():
                pass
            """
        status, out = run_suite(tmp_path, body, "-vv")
    finally:
        del os.environ["APFVISOR_RECORDED_DURATIONS"]
        del os.environ["APFVISOR_FRESH_DURATIONS"]
    assert status == 0, out
    assert out.index("test_long PASSED") < out.index("test_short PASSED"), out
    assert set(json.loads(fresh.read_text())) == {"test_it.py::test_long",
                                                   "test_it.py::test_short"}


def test_a_failure_records_no_duration(tmp_path):
    """A test that fails (maybe at once) keeps its recorded duration: the
    pool must not send a long test to the back because it once failed
    fast."""
    fresh = tmp_path / "fresh.json"
    os.environ["APFVISOR_FRESH_DURATIONS"] = str(fresh)
    try:
        status, out = run_suite(tmp_path, """\
            def test_passes():
                pass
            def test_fails():
                assert False
            """)
    finally:
        del os.environ["APFVISOR_FRESH_DURATIONS"]
    assert status == 1, out
    assert set(json.loads(fresh.read_text())) == {"test_it.py::test_passes"}


def test_test_modules_have_unique_names():
    """pytest imports test modules by their basename (rootdir, no
    __init__.py): two of one name in different levels make it refuse to
    collect the second, and that level's tests never run (CI of
    2026-12-06: tests/qemu/ and tests/bochs/ had test_far_memory.py)."""
    seen = {}
    for path in sorted((REPO / "tests").rglob("test_*.py")):
        if "build" in path.parts:
            continue
        other = seen.setdefault(path.name, path)
        assert other == path, \
            f"{other.relative_to(REPO)} and {path.relative_to(REPO)}: one " \
            "name, so pytest collects only one of them"
