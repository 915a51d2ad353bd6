# SPDX-License-Identifier: BSD-2-Clause
"""tools/kut-run's own logic, without an emulator: how it reads
unittests.cfg and tests/kut/not-run.cfg, and how it judges a run from
bochs-run's status and the serial lines (PASS, FAIL, SKIP as
kvm-unit-tests' run_tests.sh reads QEMU's exit status)."""

import tempfile
from pathlib import Path

import tool_module

kut = tool_module.load_tool("kut-run")


class FakeTest:
    timeout = 240


def judge(status, *lines):
    return kut.judge(FakeTest(), status, list(lines))


def exit_line(value):
    return (f"apfvisor: guest halted: isa-debug-exit value {value:#x}, "
            f"exit status {((value << 1) | 1) & 0xff}")


def test_pass_needs_status_1_and_no_fail_line():
    assert judge(1, "guest: PASS: a", "guest: SUMMARY: 3 tests",
                 exit_line(0)) == ("PASS", "3 tests")
    result, detail = judge(1, "guest: FAIL: b", "guest: SUMMARY: 3 tests",
                           exit_line(0))
    assert result == "FAIL" and "FAIL: b" in detail


def test_skip_is_status_77():
    result, detail = judge(77, "guest: SKIP: no CET features supported",
                           "guest: SUMMARY: 1 tests, 1 skipped",
                           exit_line(38))
    assert (result, detail) == ("SKIP", "SKIP: no CET features supported")


def test_failures_timeouts_and_hypervisor_errors():
    result, detail = judge(3, "guest: SUMMARY: 5 tests, 2 unexpected "
                           "failures", exit_line(1))
    assert result == "FAIL" and "2 unexpected failures" in detail \
        and "exit status 3" in detail
    result, detail = judge(2, "guest: PASS: a")
    assert result == "FAIL" and "timeout after 240 s" in detail
    result, detail = judge(1, "apfvisor: error: vcpu 0: unexpected VM exit",
                           exit_line(0))
    assert result == "FAIL" and "unexpected VM exit" in detail
    result, detail = judge(0, "guest: SUMMARY: 1 tests")
    assert result == "FAIL" and "no isa-debug-exit" in detail


def test_unittests_cfg_dialect():
    with tempfile.NamedTemporaryFile("w", suffix=".cfg") as f:
        f.write("# comment\n[a]\nfile = a.flat\nsmp = 2\n\n"
                "[b]\nfile = b.flat\nqemu_params = -cpu max -m 2048\n"
                "test_args = \"x y\"\n")
        f.flush()
        tests = kut.parse_unittests(Path(f.name))
    assert [n for n, _ in tests] == ["a", "b"]
    assert tests[0][1] == {"file": "a.flat", "smp": "2"}
    assert kut.memory_megs(tests[1][1]["qemu_params"]) == 2048
    assert kut.memory_megs("") == kut.QEMU_DEFAULT_MEGS
    assert kut.shell_words(tests[1][1]["test_args"]) == "x y"


def test_not_run_list_gives_a_reason_for_each():
    reasons = kut.parse_not_run(kut.NOT_RUN)
    assert len(reasons) >= 30
    assert all(len(r) >= 10 for r in reasons.values())
    for nested in ("vmx", "svm", "ept"):
        assert "nested" in reasons[nested]


def test_bochs_errata_make_xfail_only_when_all_known():
    errata = {"debug": {"known one": "why", "known two": "why"}}
    lines = ["guest: FAIL: known one", "guest: PASS: x"]
    assert kut.apply_errata("debug", "FAIL", "3 tests", lines,
                            errata)[0] == "XFAIL"
    lines.append("guest: FAIL: a new one")
    assert kut.apply_errata("debug", "FAIL", "3 tests", lines,
                            errata)[0] == "FAIL"
    assert kut.apply_errata("debug", "FAIL", "timeout after 240 s",
                            ["guest: FAIL: known one"], errata)[0] == "FAIL"
    assert kut.apply_errata("other", "FAIL", "", ["guest: FAIL: known one"],
                            errata)[0] == "FAIL"
    listed = kut.parse_errata(kut.EMULATOR_ERRATA)
    assert set(listed) == {"debug"} and len(listed["debug"]) == 3
