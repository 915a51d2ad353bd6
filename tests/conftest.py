# SPDX-License-Identifier: BSD-2-Clause
"""What makes pytest run apfvisor's tests (tests/run-tests starts it).

- The emulator tests (tests/qemu/*.py, tests/bochs/*.py) take a `ctx`
  fixture: a lib.Context named after the test (hello_cpus1), whose log is
  build/test-logs/<level>/<name>.log. A lib.TestFailure is reported as its
  message, not as a traceback.
- With pytest-xdist (-n 2), tests go out longest first, by the durations
  recorded in tests/durations.json (and build/test-durations.json, which
  every run rewrites), one at a time to whichever worker is free: unit,
  QEMU and Bochs tests share one pool and both cores stay busy.
- A skipped test counts as skipped, never as passed, and a skip that is
  not in EXPECTED_SKIPS fails the run.
"""

import json
import os
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
sys.dont_write_bytecode = True     # no __pycache__ in the source tree
sys.path.insert(0, str(TESTS / "harness"))
import lib  # noqa: E402

# (The environment may name other files: tests/unit/test_runner_rules.py.)
RECORDED_DURATIONS = Path(os.environ.get("APFVISOR_RECORDED_DURATIONS",
                                         TESTS / "durations.json"))
FRESH_DURATIONS = Path(os.environ.get("APFVISOR_FRESH_DURATIONS",
                                      REPO / "build" / "test-durations.json"))
# A test with no recorded duration is guessed at by its level.
GUESSED_SECONDS = {"unit": 5.0, "qemu": 30.0, "bochs": 120.0}

# Node ids of the tests allowed to be skipped (with the reason). None now:
# every emulator the suite needs is installed by tools/install-deps.
EXPECTED_SKIPS = {}


def level_of(path):
    """unit, qemu or bochs: the folder a test file is in."""
    return Path(str(path)).parent.name


# ---------------------------------------------------------------- ctx

@pytest.fixture
def ctx(request):
    node = request.node
    base = node.originalname[len("test_"):]
    callspec = getattr(node, "callspec", None)
    name = f"{base}_{callspec.id}" if callspec else base
    context = lib.Context(level_of(node.fspath), name)
    node.apfvisor_ctx = context
    return context


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    context = getattr(item, "apfvisor_ctx", None)
    if report.when != "call":
        return
    where = ""
    if context is not None:
        where = f" (log: {context.log_path.relative_to(REPO)})"
        context.log(f"### {report.outcome.upper()} after "
                    f"{report.duration:.1f} s")
    if call.excinfo is not None and call.excinfo.errisinstance(
            lib.TestFailure):
        report.longrepr = f"{item.nodeid}{where}:\n{call.excinfo.value}"


# ---------------------------------------------------------------- durations

def recorded_durations():
    """{node id: seconds}: the committed record, overlaid by the last
    run's (a test that got slower or faster is placed by its last run)."""
    durations = {}
    for path in (RECORDED_DURATIONS, FRESH_DURATIONS):
        try:
            durations.update(json.loads(path.read_text()))
        except (OSError, ValueError):
            pass
    return durations


def expected_seconds(nodeid, durations):
    if nodeid in durations:
        return durations[nodeid]
    return GUESSED_SECONDS.get(level_of(nodeid.split("::")[0]), 30.0)


class DurationRecorder:
    """Collects each test's call duration (on the controller, which sees
    every worker's reports) and merges them into build/test-durations.json
    at the end."""

    def __init__(self):
        self.seen = {}

    def pytest_runtest_logreport(self, report):
        # Only a pass says how long a test takes: a failure may come at
        # once (a missing file) and would send a long test to the back.
        if report.when == "call" and report.passed:
            self.seen[report.nodeid] = round(report.duration, 1)

    def pytest_sessionfinish(self, session):
        if not self.seen:
            return
        merged = {}
        try:
            merged = json.loads(FRESH_DURATIONS.read_text())
        except (OSError, ValueError):
            pass
        merged.update(self.seen)
        FRESH_DURATIONS.parent.mkdir(parents=True, exist_ok=True)
        FRESH_DURATIONS.write_text(json.dumps(merged, indent=1,
                                              sort_keys=True) + "\n")


def is_worker(config):
    return hasattr(config, "workerinput")


def pytest_configure(config):
    if not is_worker(config):
        config.pluginmanager.register(DurationRecorder(),
                                      "apfvisor-durations")


def pytest_collection_modifyitems(session, config, items):
    """Without xdist, too, the longest tests come first."""
    durations = recorded_durations()
    items.sort(key=lambda i: -expected_seconds(i.nodeid, durations))


# ---------------------------------------------------------------- xdist

def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScheduling

    class LongestFirstScheduling(LoadScheduling):
        """One pool, longest first, one test at a time to a free worker.

        An xdist worker runs a test only once it holds the next one (or
        is told to stop), so each worker holds two: the one it runs and
        the one it runs next. A worker that finishes gets the longest test
        still unsent."""

        def schedule(self):
            assert self.collection_is_completed
            if self.collection is not None:
                for node in self.nodes:
                    self.check_schedule(node)
                return
            if not self._check_nodes_have_same_collection():
                self.log("**Different tests collected, aborting run**")
                return
            self.collection = list(self.node2collection.values())[0]
            durations = recorded_durations()
            self.pending[:] = sorted(
                range(len(self.collection)),
                key=lambda i: -expected_seconds(self.collection[i],
                                                durations))
            for _ in range(2):
                for node in self.nodes:
                    self._send_tests(node, 1)
            if not self.pending:
                for node in self.nodes:
                    node.shutdown()

        def check_schedule(self, node, duration=0):
            if node.shutting_down:
                return
            if self.pending:
                missing = 2 - len(self.node2pending[node])
                if missing > 0:
                    self._send_tests(node, missing)
            else:
                node.shutdown()

    return LongestFirstScheduling(config, log)


# ---------------------------------------------------------------- skips

def unexpected_skips(terminalreporter):
    return [r.nodeid for r in terminalreporter.stats.get("skipped", [])
            if r.nodeid not in EXPECTED_SKIPS]


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if is_worker(config):
        return
    bad = unexpected_skips(terminalreporter)
    if bad:
        terminalreporter.write_line(
            f"error: {len(bad)} test(s) skipped that must run "
            "(tests/conftest.py, EXPECTED_SKIPS): " + ", ".join(bad[:10]),
            red=True)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    if is_worker(session.config):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and unexpected_skips(reporter) and \
            session.exitstatus == 0:
        session.exitstatus = 1
