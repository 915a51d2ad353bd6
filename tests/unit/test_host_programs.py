# SPDX-License-Identifier: BSD-2-Clause
"""The host-compiled tests as pytest items: each cmocka binary of
tests/unit/ (build/unit/test_*, built with ASan and UBSan), a fuzz smoke
run of each libFuzzer target (build/fuzz/fuzz_*) and the layer check.

The names come from the sources (tests/unit/unit*.mk, tests/fuzz/fuzz*.mk),
not from what happens to be in build/: a test whose binary was not built
fails instead of vanishing. `make all` builds them (tests/run-tests runs
it first)."""

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
UNIT_OUT = REPO / "build" / "unit"
FUZZ_OUT = REPO / "build" / "fuzz"

# Fuzz smoke runs: a fixed input count and seed from the target's seeds,
# so a parser change that crashes near them fails here (`make fuzz` runs
# longer). Each input has a time limit: a hang is a finding. 10 s at
# most: the targets whose inputs grow long (fuzz_virtio_balloon,
# fuzz_virtio_net_queue: 47,001 and 96,392 inputs in 31 s in the CI run
# of 2026-12-06) stop there, the others finish their inputs in 2-7 s.
FUZZ_RUNS = 100000
FUZZ_MAX_SECONDS = 10
FUZZ_INPUT_TIMEOUT = 10


def names_in_makefiles(pattern, variable):
    """Every word added to VARIABLE (:= or +=) in the files matching
    pattern, continuation lines joined."""
    names = []
    for mk in sorted(REPO.glob(pattern)):
        text = mk.read_text().replace("\\\n", " ")
        for m in re.finditer(rf"(?m)^{variable}\s*[:+]?=(.*)$", text):
            names += m[1].split()
    return names


UNIT_BINARIES = names_in_makefiles("tests/unit/unit*.mk", "UNIT_TESTS")
FUZZ_TARGETS = names_in_makefiles("tests/fuzz/fuzz*.mk", "FUZZ_TARGETS")


def run_program(cmd, env=None, timeout=600):
    r = subprocess.run(cmd, cwd=REPO, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="replace", env=env, timeout=timeout)
    return r.returncode, r.stdout


FAILURE_RE = re.compile(
    r"\[\s*(FAILED|ERROR)\s*\]|runtime error|Sanitizer|error:|Assertion")


def test_unit_binaries_listed():
    assert len(UNIT_BINARIES) >= 50, \
        f"only {len(UNIT_BINARIES)} names in UNIT_TESTS: the parse broke"
    assert len(FUZZ_TARGETS) >= 10, \
        f"only {len(FUZZ_TARGETS)} names in FUZZ_TARGETS: the parse broke"


@pytest.mark.parametrize("name", UNIT_BINARIES)
def test_cmocka(name):
    binary = UNIT_OUT / name
    assert binary.is_file(), f"{binary} was not built (make unit-binaries)"
    env = dict(os.environ)
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
    status, out = run_program([str(binary)], env=env)
    log = UNIT_OUT / f"{name}.log"
    log.write_text(out)
    if status != 0:
        hits = [l.strip() for l in out.splitlines() if FAILURE_RE.search(l)]
        pytest.fail(f"{name} exited with status {status}: "
                    + "; ".join(hits[:6])[:600]
                    + f" (full output in {log.relative_to(REPO)})",
                    pytrace=False)
    # cmocka's own summary: every test it ran passed.
    m = re.search(r"\[  PASSED  \] (\d+) test", out)
    assert m and int(m[1]) > 0, \
        f"{name} printed no cmocka PASSED summary (see {log})"


@pytest.mark.parametrize("target", FUZZ_TARGETS)
def test_fuzz_smoke(target):
    binary = FUZZ_OUT / target
    assert binary.is_file(), f"{binary} was not built (make fuzz-binaries)"
    crashes = FUZZ_OUT / f"{target}.crashes"
    crashes.mkdir(parents=True, exist_ok=True)
    log = FUZZ_OUT / f"{target}.smoke.log"
    corpus = Path(tempfile.mkdtemp(prefix=f"{target}-"))
    try:
        seeds = REPO / "tests" / "fuzz" / f"{target}.seeds"
        if os.access(seeds, os.X_OK):
            status, out = run_program([str(seeds), str(corpus)])
            assert status == 0, f"{seeds} failed: {out[-400:]}"
        status, out = run_program(
            [str(binary), f"-runs={FUZZ_RUNS}", "-seed=1",
             f"-max_total_time={FUZZ_MAX_SECONDS}",
             f"-timeout={FUZZ_INPUT_TIMEOUT}",
             f"-artifact_prefix={crashes}/", str(corpus)],
            timeout=FUZZ_MAX_SECONDS + 120)
    finally:
        shutil.rmtree(corpus, ignore_errors=True)
    log.write_text(out)
    if status != 0:
        tail = "\n".join(out.splitlines()[-15:])
        pytest.fail(f"{target}: libFuzzer exit status {status} (log: "
                    f"{log.relative_to(REPO)}):\n{tail}", pytrace=False)
    # It did run inputs: libFuzzer's closing line names how many.
    m = re.search(r"Done (\d+) runs", out)
    assert m and int(m[1]) > 0, f"{target} ran no input (see {log})"


@pytest.mark.parametrize("check", ["--self-test", ""],
                         ids=["self_test", "tree"])
def test_layers(check):
    """The include rules between folders (docs/layout.md, "Layers"): the
    checker catches a planted violation, and the tree has none."""
    cmd = [str(REPO / "tools" / "check-layers")] + ([check] if check else [])
    status, out = run_program(cmd)
    assert status == 0, f"tools/check-layers {check}: {out[-800:]}"
