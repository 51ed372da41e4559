"""docs/ci.md's expected-failures file end to end, in whole runs with mutants applied: it turns the UTF-16 run
green, yet a second bug, a fuzz difference it does not list, or a stale entry of it still fails the run."""

from __future__ import annotations

import pytest
from runner.cli.expected_failures_runs import Ran, Run, documented_expected_failures, run_side_by_side

pytestmark = pytest.mark.slow

BASELINE = documented_expected_failures("ci.md", "## Expected failures")
STALE = '  - requirement: REG-3\n    reason: "fixed long ago"\n'
"""An entry for a requirement UTF-16 counting does not break."""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Ran]:
    """The four whole runs of this module with docs/ci.md's file, side by side."""
    wanted = {
        "green": Run(("utf16_units",), BASELINE),
        "second_bug": Run(("utf16_units", "timestamp_reformatted"), BASELINE, ("--fuzz", "0")),
        "fuzz": Run(("utf16_units", "newest_first"), BASELINE),
        "stale": Run(("utf16_units",), BASELINE + STALE),
    }
    return run_side_by_side(tmp_path_factory.mktemp("ci-page"), wanted)


def test_the_ci_page_baseline_turns_the_utf16_run_green(runs: dict[str, Ran]) -> None:
    """docs/ci.md's file against UTF-16 counting: every failure charged to a listed requirement is expected,
    a scenario tagged REG-1 but charged to UNI-1 included, and the fuzz phase runs all its cases."""
    done, report, _ = runs["green"]
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert report["staleExpectedFailures"] == []
    statuses = {s["name"]: (s["status"], s["requirements"], s["failedRequirements"]) for s in report["scenarios"]}
    assert statuses["The same call gives the same result every time"] == ("xfailed", ["REG-1"], ["UNI-1"])
    [fuzz] = [s for s in report["scenarios"] if s["id"].startswith("fuzz::")]
    assert fuzz["status"] == "xfailed"
    assert fuzz["name"] == "generated conversations, seed 0 [60 of 60 cases, argument sweep 63 of 63 calls]"
    assert "fuzz: 60 of 60 cases" in done.stdout
    assert "only differences the expected-failures file lists" in done.stdout
    verdicts = {r["id"]: r["status"] for r in report["requirements"]}
    assert {r for r, v in verdicts.items() if v == "xfailed"} == {"UNI-1"}
    assert {tuple(s["failedRequirements"]) for s in report["scenarios"] if s["status"] == "xfailed"} == {("UNI-1",)}


def test_a_second_bug_beside_the_baselined_mistake_still_fails(runs: dict[str, Ran]) -> None:
    """UTF-16 counting held by its one UNI-1 entry, and an unrelated bug (createdAt re-formatted): the run fails on
    RES-5, and the UNI-1 entry is not called stale (the gap is not closed)."""
    done, report, _ = runs["second_bug"]
    assert done.returncode == 1
    failed = {r["id"] for r in report["requirements"] if r["status"] == "failed"}
    assert "RES-5" in failed
    assert "UNI-1" not in failed
    assert report["staleExpectedFailures"] == []
    assert "stale" not in done.stderr


def test_a_baselined_fuzz_difference_still_fails_on_another(runs: dict[str, Ran]) -> None:
    """The same file, and items newest first too: the fuzz phase goes past the UTF-16 differences and fails on
    the order (SEL-7), which no entry lists."""
    done, report, _ = runs["fuzz"]
    assert done.returncode == 1
    [fuzz] = [s for s in report["scenarios"] if s["id"].startswith("fuzz::")]
    assert fuzz["status"] == "failed"
    assert fuzz["failedRequirements"] == ["SEL-7"]


def test_a_stale_entry_turns_the_ci_pages_green_run_red(runs: dict[str, Ran]) -> None:
    """docs/ci.md's file, which turns the UTF-16 run green, plus an entry for a requirement the bug does not break
    (REG-3): the run fails (exit 1) naming the stale entry, and nothing else changes."""
    done, report, folder = runs["stale"]
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    assert (report["counts"]["failed"], report["counts"]["xpassed"]) == (0, 0)
    line = (
        f"{folder / 'known.yaml'}: requirement REG-3 (line {BASELINE.count(chr(10)) + 1}) matched no failure: "
        "a stale entry fails the run (the gap is closed: remove the entry)"
    )
    assert report["staleExpectedFailures"] == [line]
    assert f"ccweb-conformance: error: {line}" in done.stderr
