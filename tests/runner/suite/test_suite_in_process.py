"""The whole suite passes against the reference in process, in both MCP eras, and its console reads as a user
sees it."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from runner.suite.whole_runs import ERA_VERSIONS, assert_all_passed, run_report
from suite_size import ALL_PASSED

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def console_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], dict]:
    """One whole in-process run in the 2026-07-28 era, as a user starts it: its console and its JSON report."""
    report = tmp_path_factory.mktemp("console") / "report.json"
    command = [sys.executable, "-m", "ccweb_conformance.cli", "run", "--in-process", "--protocol", "2026-07-28"]
    completed = subprocess.run(
        [*command, "--json", str(report)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return completed, json.loads(report.read_text(encoding="utf-8"))


def test_in_process_legacy(tmp_path):
    code, report = run_report(tmp_path, "--in-process", "--protocol", "legacy")
    assert_all_passed(code, report, "in-process", ERA_VERSIONS["legacy"])


def test_in_process_2026(console_run):
    completed, report = console_run
    assert_all_passed(completed.returncode, report, "in-process", ERA_VERSIONS["2026-07-28"])


def test_the_console_summary_is_grouped_by_criterion_and_ends_with_the_totals(console_run):
    completed, _ = console_run
    lines = completed.stdout.splitlines()
    assert completed.returncode == 0
    assert lines[0] == "ccweb_list_user_inputs conformance: PASSED"
    headings = [line.split("  ")[0] for line in lines if line[:3] in ("AC-",) or line.split("  ")[0].isupper()]
    assert [h for h in headings if h.startswith("AC-")] == [f"AC-{n}" for n in range(1, 11)]
    totals = [line for line in lines if re.match(r"\d+ passed, \d+ failed(, \d+ skipped)? in ", line)]
    assert len(totals) == 1 and totals[0].startswith(f"{ALL_PASSED['passed']} passed, 0 failed")
    assert lines[-1] == totals[0]  # the totals are last, as pytest ends; the fuzz phase's block comes before
    fuzz = [line for line in lines if line.startswith("fuzz: ")]
    assert fuzz and fuzz[-1].endswith(": passed")  # the short phase of every full run
