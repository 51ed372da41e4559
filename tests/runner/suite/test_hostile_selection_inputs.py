"""Hostile expected-failures files and selection expressions: bounded, one line, exit 2, quickly."""

from __future__ import annotations

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


def test_a_many_star_pattern_is_matched_in_linear_time() -> None:
    entry = ExpectedFailure("why", scenario="*::" + "*" * 40 + "Q")
    nodeids = [f"feature_{i}.feature::{'scenario name ' * 20}{i}" for i in range(300)]
    started = time.perf_counter()
    hits = [n for n in nodeids if entry.matches(n, ())]
    assert hits == []
    assert time.perf_counter() - started < 30  # a hang guard, not a timing: a backtracking matcher takes hours


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
    started = time.perf_counter()
    assert problem(tmp_path, text) == message
    assert time.perf_counter() - started < 30  # a hang guard, not a timing: expanding the bomb takes far longer


@pytest.mark.parametrize(
    ("keyword", "message"),
    [
        ("not " * 3000 + "x", "-k: longer than 1,000 characters"),
        ("not " * 40 + "x", "-k: nested deeper than 32 levels of 'not' and parentheses"),
        ("(" * 400 + "x" + ")" * 400, "-k: nested deeper than 32 levels of 'not' and parentheses"),
        ("not (" * 17 + "x" + ")" * 17, "-k: nested deeper than 32 levels of 'not' and parentheses"),
        ("a and (", "-k 'a and (': expected not OR left parenthesis OR identifier; got end of input"),
    ],
)
def test_hostile_keywords_are_one_line_usage_errors(keyword: str, message: str) -> None:
    with pytest.raises(UsageError) as caught:
        check_keyword(keyword)
    assert str(caught.value) == message


def test_keywords_within_the_bounds_compile() -> None:
    assert check_keyword("not " * 32 + "x").evaluate(lambda name, /, **_kw: name == "x") is True
    assert check_keyword("(a) and (not b) or (c and (not (d)))").evaluate(lambda name, /, **_kw: name == "a")


LAUNCHER = """
import os, resource, subprocess, sys
completed = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=open(sys.argv[1], "wb"), check=False)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, completed.returncode)
"""
"""Runs the command line and prints its peak memory (KiB) and exit code.

Linux keeps a process's peak across exec, so a child forked from a big pytest worker reports the
worker's size as its own (398 MB seen under xdist). The launcher is a fresh small Python: the
command line forked from it starts from the launcher's few MB, and its peak is its own.
"""


def run_cli(tmp_path: Path, *args: str) -> tuple[int, str, float]:
    """Run the command line; its exit code, stderr and peak memory in MB (its own)."""
    err_path = tmp_path / "stderr.txt"
    command = [sys.executable, "-c", LAUNCHER, str(err_path), sys.executable, "-m", "ccweb_conformance.cli", *args]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, start_new_session=True) as launcher:
        try:
            out, _ = launcher.communicate(timeout=120)  # about 1 s alone; the bound only stops a hang
        finally:
            if launcher.poll() is None:
                os.killpg(launcher.pid, signal.SIGKILL)
                launcher.wait(timeout=10)
    peak_kib, code = (int(word) for word in out.split())
    return code, err_path.read_text(encoding="utf-8"), peak_kib / 1024


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
    code, err, peak = run_cli(tmp_path, "run", "--in-process", "--expected-failures", str(path))
    assert (code, err) == (2, f"ccweb-conformance: error: {path}: {expected}\n")
    assert peak < 150  # refused before anything is expanded: about 60 MB, while the bomb would take gigabytes


@pytest.mark.parametrize(
    ("keyword", "expected"),
    [
        ("not " * 3000 + "x", "-k: longer than 1,000 characters"),
        ("(" * 300 + "x" + ")" * 300, "-k: nested deeper than 32 levels of 'not' and parentheses"),
    ],
)
def test_the_command_line_refuses_a_deep_keyword_with_exit_2(tmp_path: Path, keyword: str, expected: str) -> None:
    code, err, _peak = run_cli(tmp_path, "run", "--in-process", "-k", keyword)
    assert (code, err) == (2, f"ccweb-conformance: error: {expected}\n")
