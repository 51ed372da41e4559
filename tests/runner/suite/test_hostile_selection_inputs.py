"""Hostile expected-failures files and selection expressions: bounded, one line, exit 2, quickly.

"Quickly" is CPU time (this thread's, or the child's from ``wait4``), not wall time: a busy
machine stretches wall time many-fold but not the work done, and an exponential matcher or an
expanded YAML bomb costs minutes of CPU whatever the load.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ccweb_conformance.errors import UsageError
from ccweb_conformance.suite.expected_failures import (
    MAX_FILE_BYTES,
    ExpectedFailure,
    ExpectedFailures,
    glob_match,
    load_expected_failures,
)
from ccweb_conformance.suite.selection import check_keyword

BOMB = "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}'] * 9) if prev else ', '.join(['lol'] * 9)}]\n"
    for prev, name in zip(["", *"abcdefgh"], "abcdefghi", strict=True)
)


def problem(tmp_path: Path, text: str) -> str:
    path = tmp_path / "xfail.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        load_expected_failures(path)
    return str(caught.value).replace(str(path), "xfail.yaml")


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("a.feature::x", "a.feature::x", True),
        ("a.feature::x", "a.feature::xy", False),
        ("*", "", True),
        ("a*", "a", True),
        ("*a*a*", "aa", True),
        ("*a*a*", "a", False),
        ("ab*ba", "aba", False),
        ("ab*ba", "abba", True),
        ("f::limit * is rejected", "f::limit 0 is rejected", True),
        ("f::limit * is rejected", "f::limit 0 is rejected twice", False),
        ("*::*x*x", "f::axbxcx", True),
        ("*::*******Q", "f::" + "a" * 200, False),
        ("a.b", "axb", False),  # no regular-expression meaning leaks in
    ],
)
def test_glob_match(pattern: str, text: str, expected: bool) -> None:
    assert glob_match(pattern, text) is expected


class OverBudget(Exception):
    """More Python trace events than the work was given."""


def test_a_many_star_pattern_is_matched_in_linear_time() -> None:
    """Counted in Python trace events, not seconds: a few per name (a backtracking matcher is stopped at its budget,
    so it fails rather than hangs)."""
    entries = ExpectedFailures((ExpectedFailure("why", scenario="*::" + "*" * 40 + "Q"),))
    nodeids = [f"feature_{i}.feature::{'scenario name ' * 20}{i}" for i in range(300)]
    events, budget = 0, 100 * len(nodeids)

    def counted(frame: object, event: str, arg: object) -> object:
        nonlocal events
        events += 1
        if events > budget:
            raise OverBudget(f"over {budget} events")
        return counted

    before = sys.gettrace()
    sys.settrace(counted)  # type: ignore[arg-type]
    try:
        hits = [n for n in nodeids if entries.scenario_entry_for(n) is not None]
    finally:
        sys.settrace(before)
    assert hits == []
    assert events <= budget


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (BOMB, "xfail.yaml: line 2: aliases (*a) are not allowed in an expected-failures file"),
        ("[" * 20000 + "]" * 20000 + "\n", "xfail.yaml: line 1: lists and mappings nested deeper than 16 levels"),
        (
            "{a: " * 20000 + "1" + "}" * 20000 + "\n",
            "xfail.yaml: line 1: lists and mappings nested deeper than 16 levels",
        ),
        (
            "version: 1\nexpected_failures:\n" + "".join(f"{'  ' * i}- \n" for i in range(30)),
            "xfail.yaml: line 18: lists and mappings nested deeper than 16 levels",
        ),
        (
            f"version: 1\nexpected_failures:\n  - scenario: '{'x' * 5000}::y'\n    reason: r\n",
            "xfail.yaml: line 3: a value longer than 4,096 characters",
        ),
        (
            "version: 1\nexpected_failures: []\n" + "#" * MAX_FILE_BYTES + "\n",
            "xfail.yaml: larger than 262,144 bytes; an expected-failures file is a short list",
        ),
        (
            f"version: 1\nexpected_failures:\n  - scenario: '{'x' * 4000}'\n    reason: r\n",
            "xfail.yaml: entry 1 (line 3): scenario must look like <file>.feature::<scenario name>, not"
            " 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…",
        ),
        (
            "version: 1\nexpected_failures: []\n1: x\n",
            "xfail.yaml: unknown key 1 (allowed: version, expected_failures)",
        ),
    ],
)
def test_hostile_files_are_one_line_usage_errors(tmp_path: Path, text: str, message: str) -> None:
    started = time.thread_time()
    assert problem(tmp_path, text) == message
    assert time.thread_time() - started < 2.0


@pytest.mark.parametrize(
    ("keyword", "message"),
    [
        ("not " * 3000 + "x", "-k: longer than 1,000 characters"),
        ("not " * 40 + "x", "-k: nested deeper than 32 levels of 'not' and parentheses"),
        ("(" * 400 + "x" + ")" * 400, "-k: nested deeper than 32 levels of 'not' and parentheses"),
        ("not (" * 17 + "x" + ")" * 17, "-k: nested deeper than 32 levels of 'not' and parentheses"),
        ("a and (", "-k 'a and (': expected not OR left parenthesis OR identifier; got end of input"),
        ("x(y=1)", "-k 'x(y=1)': keyword expressions do not support call parameters"),
        ("a or not (b and x(y=2))", "-k 'a or not (b and x(y=2))': keyword expressions do not support call parameters"),
    ],
)
def test_hostile_keywords_are_one_line_usage_errors(keyword: str, message: str) -> None:
    with pytest.raises(UsageError) as caught:
        check_keyword(keyword)
    assert str(caught.value) == message


class _ParseError(Exception):
    """pytest 8.4's ``_pytest.mark.expression.ParseError``: no ``SyntaxError``, its text in ``message``."""

    def __init__(self, column: int, message: str) -> None:
        self.column = column
        self.message = message

    def __str__(self) -> str:
        return f"at column {self.column}: {self.message}"


def test_a_keyword_pytest_8_4_rejects_is_the_same_one_line_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # pytest 8.4 (the lowest allowed) raises its own ParseError where 9.x raises SyntaxError; CI runs
    # the real one (scripts/oldest_dependencies.py), this stands in for it under any pytest.
    expression = importlib.import_module("_pytest.mark.expression")

    def compile_like_8_4(_input: str) -> None:
        raise _ParseError(8, "expected not OR left parenthesis OR identifier; got end of input")

    monkeypatch.setattr(expression, "ParseError", _ParseError, raising=False)
    monkeypatch.setattr(expression.Expression, "compile", compile_like_8_4)
    with pytest.raises(UsageError) as caught:
        check_keyword("a and (")
    assert str(caught.value) == "-k 'a and (': expected not OR left parenthesis OR identifier; got end of input"


def test_keywords_within_the_bounds_compile() -> None:
    assert check_keyword("not " * 32 + "x").evaluate(lambda name, /, **_kw: name == "x") is True
    assert check_keyword("(a) and (not b) or (c and (not (d)))").evaluate(lambda name, /, **_kw: name == "a")


WAIT_BOUND_S = 240.0
"""Wall seconds before a child counts as hung: a guard for a loaded machine, not a speed check."""
MEASURED = """
import json, os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.executable, [sys.executable, *sys.argv[2:]])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump([os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime, usage.ru_maxrss], out)
"""
"""Runs argv[2:] as a child of this small process and writes its exit code, CPU seconds and peak RSS (KB).

Not wait4 on a child of the test process: Linux carries the peak RSS of the process that forked over an
exec, so a child of a big xdist worker (400 MB after the mutant batch) reports the worker's peak, not its own.
"""


def run_cli(tmp_path: Path, *args: str) -> tuple[int, str, float, float]:
    """Run the command line; its exit code, stderr, CPU seconds and peak memory in MB (its own)."""
    measured = tmp_path / "measured.json"
    err_path = tmp_path / "stderr.txt"
    command = [sys.executable, "-c", MEASURED, str(measured), "-m", "ccweb_conformance.cli", *args]
    with err_path.open("wb") as err_file:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err_file, start_new_session=True)
    try:
        process.wait(timeout=WAIT_BOUND_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        raise AssertionError(f"the runner did not exit within {WAIT_BOUND_S:.0f} s") from None
    assert process.returncode == 0, err_path.read_text(encoding="utf-8")
    code, cpu, peak_kb = json.loads(measured.read_text(encoding="utf-8"))
    return code, err_path.read_text(encoding="utf-8"), cpu, peak_kb / 1024


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("bomb.yaml", BOMB, "line 2: aliases (*a) are not allowed in an expected-failures file"),
        ("deep.yaml", "[" * 20000 + "]" * 20000, "line 1: lists and mappings nested deeper than 16 levels"),
    ],
)
def test_the_command_line_refuses_them_with_exit_2(tmp_path: Path, name: str, content: str, expected: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    code, err, seconds, peak = run_cli(tmp_path, "run", "--in-process", "--expected-failures", str(path))
    assert (code, err) == (2, f"ccweb-conformance: error: {path}: {expected}\n")
    assert seconds < 5  # CPU seconds: about 1 alone, the same under load; expanding the bomb costs far more
    assert peak < 150


@pytest.mark.parametrize(
    ("keyword", "expected"),
    [
        ("not " * 3000 + "x", "-k: longer than 1,000 characters"),
        ("(" * 300 + "x" + ")" * 300, "-k: nested deeper than 32 levels of 'not' and parentheses"),
    ],
)
def test_the_command_line_refuses_a_deep_keyword_with_exit_2(tmp_path: Path, keyword: str, expected: str) -> None:
    code, err, _seconds, _peak = run_cli(tmp_path, "run", "--in-process", "-k", keyword)
    assert (code, err) == (2, f"ccweb-conformance: error: {expected}\n")
