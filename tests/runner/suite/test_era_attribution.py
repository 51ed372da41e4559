"""A bug of one era fails the check it breaks, judged on that era's answers (D-16), not "the eras differ"."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from paths import REPO

RUN = REPO / "tests" / "mutants" / "run.py"


def scenario_results(mutant: str, keyword: str, tmp_path: Path) -> list[dict[str, object]]:
    report = tmp_path / "report.json"
    command = [sys.executable, str(RUN), "mutant", mutant, "run", "--in-process", "-k", keyword, "--json", str(report)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    scenarios: list[dict[str, object]] = json.loads(report.read_text(encoding="utf-8"))["scenarios"]
    return scenarios


def test_a_bug_of_the_initialize_era_fails_the_order_check_on_that_era(tmp_path: Path) -> None:
    """newest_first_after_initialize answers newest first only after initialize: the scenario's own check fails
    on the 2025-11-25 answer, charged to what the scenario proves, with the check's own differences."""
    [result] = scenario_results("newest_first_after_initialize", "Twenty", tmp_path)
    diagnosis = result["diagnosis"]
    assert isinstance(diagnosis, dict)
    assert result["failedRequirements"] == ["SEL-6", "SEL-7", "ARG-1"]
    assert diagnosis["headline"] == (
        'SEL-6, SEL-7, ARG-1: item contents differ: $[0]: expected "input 6", got "input 20" (+13)'
    )
