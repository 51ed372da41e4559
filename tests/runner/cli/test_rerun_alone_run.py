"""Whole runs: each group of failures rerun alone after the run, and every report saying what came of it.

A deterministic bug (the mutant ``utf16_units``) is reproduced alone; a server that breaks only once it has served
other calls (``fakes/tiring_stdio.py``) is not; ``--no-rerun`` reruns nothing. The exit code stays 1 either way.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from paths import REPO

from ccweb_conformance.cli import main

pytestmark = pytest.mark.slow

TIRING = REPO / "tests" / "runner" / "fakes" / "tiring_stdio.py"
SCENARIO = "ac07_unicode.feature::Truncation keeps whole emoji"
REPRODUCED = (
    "reproduced alone: run again by itself on a fresh server in the runner (--in-process), it failed UNI-1 at the same"
    " check"
)
NOT_REPRODUCED = (
    "not reproduced alone: run again by itself on a fresh server process, it passed: the failure points at load,"
    " concurrency or what ran before it"
)


@pytest.fixture(scope="module")
def mutant_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One run of the mutant utf16_units on the one scenario, every report written."""
    out = tmp_path_factory.mktemp("utf16")
    reports = ["--json", "r.json", "--junitxml", "r.xml", "--markdown", "r.md", "--cucumberjson", "r.cj.json"]
    completed = subprocess.run(
        [sys.executable, str(REPO / "tests" / "mutants" / "run.py"), "mutant", "utf16_units", "run", "--in-process",
         "-k", "test_truncation_keeps_whole_emoji", *reports],
        cwd=out, capture_output=True, text=True, timeout=120, check=False,
    )
    return {"code": completed.returncode, "stdout": completed.stdout, "stderr": completed.stderr, "dir": out}


def test_a_deterministic_bug_is_reproduced_alone_in_the_json_report(mutant_run: dict[str, Any]) -> None:
    assert mutant_run["code"] == 1, mutant_run["stderr"]
    report = json.loads((mutant_run["dir"] / "r.json").read_text(encoding="utf-8"))
    [group] = report["failureGroups"]
    rerun = group["rerun"]
    assert rerun.pop("durationSeconds") > 0
    assert rerun == {
        "outcome": "reproduced",
        "server": "instance",
        "status": "failed",
        "failedRequirements": ["UNI-1"],
        "check": "items differ",
        "notRerun": None,
        "why": None,
    }
    assert report["formatVersion"] == "1.6.0"
    [failed] = [s for s in report["scenarios"] if s["status"] == "failed"]
    assert failed["diagnosis"]["block"][-1] == f"    alone        {REPRODUCED}"


def test_every_other_report_says_it(mutant_run: dict[str, Any]) -> None:
    folder: Path = mutant_run["dir"]
    assert f"    alone        {REPRODUCED}\n" in mutant_run["stdout"]
    assert f"  {REPRODUCED}\n" in (folder / "r.md").read_text(encoding="utf-8")
    failure = ET.parse(folder / "r.xml").getroot().find(".//testcase/failure")
    assert failure is not None and f"    alone        {REPRODUCED}\n" in (failure.text or "")
    cucumber = json.loads((folder / "r.cj.json").read_text(encoding="utf-8"))
    messages = [
        s["result"]["error_message"] for f in cucumber for e in f["elements"] for s in e["steps"]
        if "error_message" in s["result"]
    ]
    assert [m.splitlines()[2] for m in messages] == [REPRODUCED]


def tiring(tmp_path: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    report = tmp_path / "report.json"
    server = f"{sys.executable} {TIRING} 2"
    # --jobs 1: one process serves the scenarios one after another; lanes would spread them over fresh processes
    # that never tire (how many each lane gets is timing: under load the run passed)
    args = ["run", "--stdio", server, "--tags", "AC-7", "--fuzz", "0", "--jobs", "1", "--json", str(report)]
    code = main([*args, *extra])
    return code, json.loads(report.read_text(encoding="utf-8"))


def test_a_failure_that_needs_what_ran_before_is_not_reproduced_alone(tmp_path: Path, capsys) -> None:
    code, report = tiring(tmp_path)
    assert code == 1
    [group] = report["failureGroups"]
    assert group["scenarios"] == [SCENARIO]
    rerun = group["rerun"]
    assert rerun.pop("durationSeconds") > 0
    assert rerun == {
        "outcome": "not_reproduced",
        "server": "process",
        "status": "passed",
        "failedRequirements": [],
        "check": None,
        "notRerun": None,
        "why": None,
    }
    assert f"    alone        {NOT_REPRODUCED}\n" in capsys.readouterr().out
    rerun_processes = [(k["role"], k["how"], k["count"]) for k in report["processes"]["kinds"] if k["phase"] == "rerun"]
    assert rerun_processes == [("stdio server", "exec", 1)]  # one fresh process, said to be the rerun's


def test_no_rerun_reruns_nothing(tmp_path: Path, capsys) -> None:
    code, report = tiring(tmp_path, "--no-rerun")
    assert code == 1
    [group] = report["failureGroups"]
    assert group["scenarios"] == [SCENARIO]
    assert group["rerun"] is None
    assert "    alone  " not in capsys.readouterr().out
