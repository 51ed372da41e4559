"""A bug of one era fails the check it breaks, judged on that era's answers (D-16), not "the eras differ"."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from runner.cli.expected_failures_runs import forked_runs

RUNS = {
    "newest_first_after_initialize": "Twenty or fraction",
    "error_field_dropped_after_initialize": "speaks and alike",
}
"""Each mutant's in-process run and its ``-k``."""
Ran = tuple[subprocess.CompletedProcess[str], Path]
"""A run and its JSON report's path."""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Ran]:
    """Each mutant's run, forked from one process that imported the kit once, two at a time (the expected-failures
    runs' batch), each in a folder of its own: the run and its JSON report's path."""
    folder = tmp_path_factory.mktemp("era")
    wanted = {}
    for mutant, keyword in RUNS.items():
        (folder / mutant).mkdir()
        report = folder / mutant / "report.json"
        wanted[mutant] = {"argv": ["run", "--in-process", "-k", keyword, "--json", str(report)], "mutants": [mutant],
                          "cwd": str(folder / mutant)}  # fmt: skip
    done = forked_runs(folder, wanted)
    return {mutant: (done[mutant], folder / mutant / "report.json") for mutant in RUNS}


def scenario_results(run: Ran) -> list[dict[str, object]]:
    done, report = run
    assert done.returncode == 1, done.stderr
    scenarios: list[dict[str, object]] = json.loads(report.read_text(encoding="utf-8"))["scenarios"]
    return scenarios


@pytest.fixture(scope="module")
def newest_first_after_initialize(runs: dict[str, Ran]) -> list[dict[str, object]]:
    """One run of the mutant, both scenarios the two tests below read (one process, not two)."""
    return scenario_results(runs["newest_first_after_initialize"])


def named(scenarios: list[dict[str, object]], word: str) -> list[dict[str, object]]:
    """The scenarios whose name holds ``word``."""
    return [s for s in scenarios if word in str(s["name"])]


def test_a_bug_of_the_initialize_era_fails_the_order_check_on_that_era(
    newest_first_after_initialize: list[dict[str, object]],
) -> None:
    """newest_first_after_initialize answers newest first only after initialize: the scenario's own check fails
    on the 2025-11-25 answer, charged to what the scenario proves, with the check's own differences."""
    [result] = named(newest_first_after_initialize, "Twenty")
    diagnosis = result["diagnosis"]
    assert isinstance(diagnosis, dict)
    assert result["failedRequirements"] == ["SEL-7", "PROTO-4"]  # the exact items in another order; the eras differ
    assert diagnosis["headline"] == (
        'SEL-7, PROTO-4: item contents differ: $.items[0].content: expected "input 6", got "input 20" (+13)'
    )


def test_a_disagreement_the_checks_do_not_see_is_charged_to_proto_4_alone(
    newest_first_after_initialize: list[dict[str, object]],
) -> None:
    """The scenario checks top-level fields only: both eras pass them, the items' order differs between the
    eras, and the scenario fails at its end charged to PROTO-4, not to its tags ARG-3 and ARG-1."""
    assert len(newest_first_after_initialize) == 2  # the run selected exactly the two scenarios
    [result] = named(newest_first_after_initialize, "fraction")
    assert result["failedRequirements"] == ["PROTO-4"]


def test_the_era_scenario_kills_a_bug_of_one_era(runs: dict[str, Ran]) -> None:
    """error.field dropped in the initialize era only: the PROTO-4 scenario fails, charged to PROTO-4."""
    [result] = scenario_results(runs["error_field_dropped_after_initialize"])
    assert (result["name"], result["failedRequirements"]) == (
        "An implementation that speaks both eras answers alike in both",
        ["PROTO-4"],
    )
