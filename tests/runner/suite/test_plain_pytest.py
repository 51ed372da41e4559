"""What a team's own pytest run shows of the kit's verdicts (docs/runner.md, "Under plain pytest"): a SHOULD failure
as a warning in pytest's summary (a failure with ``--ccweb-strict``), a known failure as xfailed, and a failed
whole-run audit (RO-2) as an error at the last scenario's teardown, never a pass."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from runner.forked import run_as_group
from suite_size import SCENARIOS

TESTS = Path(__file__).resolve().parents[2]
ANNOTATED = "test_the_tool_is_annotated_as_readonly"
DESELECTED = str(SCENARIOS - 1)
READING = "test_a_limit_larger_than_the_number_of_candidates_returns_them_all"
KNOWN = 'version: 1\nexpected_failures:\n  - requirement: TOOL-4\n    reason: "no hint yet"\n'
"""An expected-failures file that covers the SHOULD failure of ``no_read_only_hint``."""
CASES = {
    "warning": ["no_read_only_hint", ANNOTATED],
    "strict": ["no_read_only_hint", ANNOTATED, "--ccweb-strict"],
    "xfailed": ["no_read_only_hint", ANNOTATED, "--ccweb-strict", "--ccweb-expected-failures={known}"],
    "audit": ["cache_file_per_process", READING],
    "reference": ["-", READING],
}
"""Each test's run: the mutant (``-``: none), the keyword and pytest's further arguments."""
Runs = dict[str, tuple[str, list[str]]]
"""Per case: pytest's exit line and its output's lines."""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """Every case's run: one process imports pytest and the kit once and forks a child per case, two at a time
    (``plain_pytest.py``)."""
    folder = tmp_path_factory.mktemp("plain-pytest")
    known = folder / "known.yaml"
    known.write_text(KNOWN, "utf-8")
    cases = {name: [word.format(known=known) for word in case] for name, case in CASES.items()}
    done = run_as_group([sys.executable, "-m", "runner.suite.plain_pytest", str(folder), json.dumps(cases)], TESTS, 300)
    written = [folder / f"{name}.out" for name in CASES if (folder / f"{name}.out").exists()]
    logs = {out.stem: out.read_text(encoding="utf-8").splitlines() for out in written}
    errors = "".join(err.read_text(encoding="utf-8") for err in folder.glob("*.err"))
    assert done.returncode == 0, done.stderr[-2000:] + errors[-2000:]
    return {name: (logs[name][-1], logs[name]) for name in CASES}


def summary(lines: list[str]) -> str:
    """pytest's totals, without the time."""
    return lines[-2].strip("= ").rsplit(" in ", 1)[0]


def test_a_failed_should_scenario_passes_with_a_warning_that_names_the_requirement(runs: Runs) -> None:
    code, lines = runs["warning"]
    assert (code, summary(lines)) == ("exit 0", f"1 passed, {DESELECTED} deselected, 1 warning")
    assert "ShouldWarning: TOOL-4 (SHOULD): The tool declares annotations.readOnlyHint true." in "\n".join(lines)


def test_with_strict_it_fails(runs: Runs) -> None:
    code, lines = runs["strict"]
    assert (code, summary(lines)) == ("exit 1", f"1 failed, {DESELECTED} deselected")


def test_a_failure_the_expected_failures_file_covers_is_xfailed(runs: Runs) -> None:
    code, lines = runs["xfailed"]
    assert (code, summary(lines)) == ("exit 0", f"{DESELECTED} deselected, 1 xfailed")


def test_a_failed_audit_fails_the_run_at_the_last_scenarios_teardown(runs: Runs) -> None:
    code, lines = runs["audit"]
    text = "\n".join(lines)
    assert (code, summary(lines)) == ("exit 1", f"1 passed, {DESELECTED} deselected, 1 error")
    assert f"ERROR at teardown of {READING}" in text
    assert "RO-2 (MUST): A call creates, removes or renames nothing in the sessions directory" in text
    assert "entries nobody but the server can have written: .cache-" in text


def test_the_reference_passes_the_same_selection(runs: Runs) -> None:
    code, lines = runs["reference"]
    assert (code, summary(lines)) == ("exit 0", f"1 passed, {DESELECTED} deselected")
