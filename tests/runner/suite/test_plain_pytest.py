"""What a team's own pytest run shows of the kit's verdicts (docs/runner.md, "Under plain pytest"): a SHOULD failure
as a warning in pytest's summary (a failure with ``--ccweb-strict``), a known failure as xfailed, and a failed
whole-run audit (RO-2) as an error at the last scenario's teardown, never a pass."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from suite_size import SCENARIOS

TESTS = Path(__file__).resolve().parents[2]
ANNOTATED = "test_the_tool_is_annotated_as_readonly"
DESELECTED = str(SCENARIOS - 1)
READING = "test_a_limit_larger_than_the_number_of_candidates_returns_them_all"


def plain_pytest(mutant: str, keyword: str, *extra: str) -> tuple[str, list[str]]:
    """pytest's exit line and its output's lines."""
    ran = subprocess.run(
        [sys.executable, "-m", "runner.suite.plain_pytest", mutant, keyword, *extra],
        cwd=TESTS, capture_output=True, text=True, timeout=180, check=False,
    )
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    return lines[-1], lines


def summary(lines: list[str]) -> str:
    """pytest's totals, without the time."""
    return lines[-2].strip("= ").rsplit(" in ", 1)[0]


def test_a_failed_should_scenario_passes_with_a_warning_that_names_the_requirement():
    code, lines = plain_pytest("no_read_only_hint", ANNOTATED)
    assert (code, summary(lines)) == ("exit 0", f"1 passed, {DESELECTED} deselected, 1 warning")
    assert "ShouldWarning: TOOL-4 (SHOULD): The tool declares annotations.readOnlyHint true." in "\n".join(lines)


def test_with_strict_it_fails():
    code, lines = plain_pytest("no_read_only_hint", ANNOTATED, "--ccweb-strict")
    assert (code, summary(lines)) == ("exit 1", f"1 failed, {DESELECTED} deselected")


def test_a_failure_the_expected_failures_file_covers_is_xfailed(tmp_path: Path):
    known = tmp_path / "known.yaml"
    known.write_text('version: 1\nexpected_failures:\n  - requirement: TOOL-4\n    reason: "no hint yet"\n', "utf-8")
    code, lines = plain_pytest("no_read_only_hint", ANNOTATED, "--ccweb-strict", f"--ccweb-expected-failures={known}")
    assert (code, summary(lines)) == ("exit 0", f"{DESELECTED} deselected, 1 xfailed")


def test_a_failed_audit_fails_the_run_at_the_last_scenarios_teardown():
    code, lines = plain_pytest("cache_file_per_process", READING)
    text = "\n".join(lines)
    assert (code, summary(lines)) == ("exit 1", f"1 passed, {DESELECTED} deselected, 1 error")
    assert f"ERROR at teardown of {READING}" in text
    assert "RO-2 (MUST): A call creates, removes or renames nothing in the sessions directory" in text
    assert "entries nobody but the server can have written: .cache-" in text


def test_the_reference_passes_the_same_selection():
    code, lines = plain_pytest("-", READING)
    assert (code, summary(lines)) == ("exit 0", f"1 passed, {DESELECTED} deselected")
