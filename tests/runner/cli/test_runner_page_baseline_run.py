"""docs/runner.md's expected-failures file end to end, in whole runs with mutants applied: it tolerates the two bugs
it describes, literally, and still fails the run on a stale entry or on what it does not name."""

from __future__ import annotations

import pytest
from runner.cli.expected_failures_runs import Ran, Run, documented_expected_failures, run_side_by_side

pytestmark = pytest.mark.slow

DOCUMENTED = documented_expected_failures()
STALE = '  - requirement: SEL-2\n    reason: "fixed long ago"\n'
"""An entry for a requirement the documented bugs do not break."""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Ran]:
    """The three runs of this module with docs/runner.md's file, side by side."""
    wanted = {
        "stale": Run(("utf16_units", "cached_by_size_and_mtime"), DOCUMENTED + STALE),
        "documented": Run(("utf16_units", "cached_by_size_and_mtime"), DOCUMENTED),
        "unnamed": Run(("utf16_units",), DOCUMENTED, ("--tags", "AC-10"), report=False),
    }
    return run_side_by_side(tmp_path_factory.mktemp("runner-page"), wanted)


def test_a_stale_entry_turns_the_documented_run_red(runs: dict[str, Ran]) -> None:
    """docs/runner.md's file plus an entry for a requirement the bugs do not break: the run fails, naming it."""
    done, report, folder = runs["stale"]
    assert done.returncode == 1
    assert (report["counts"]["failed"], report["counts"]["xpassed"]) == (0, 0)
    line = (
        f"{folder / 'known.yaml'}: requirement SEL-2 (line {DOCUMENTED.count(chr(10)) + 1}) matched no failure: "
        "a stale entry fails the run (the gap is closed: remove the entry)"
    )
    assert report["staleExpectedFailures"] == [line]
    assert f"ccweb-conformance: error: {line}" in done.stderr


def test_the_readme_example_passes_on_the_bugs_it_describes(runs: dict[str, Ran]) -> None:
    """UTF-16 counting and an (mtime, size) cache, tolerated by docs/runner.md's file, literally."""
    done, report, _ = runs["documented"]
    assert done.returncode == 0, done.stdout[-3000:]
    counts = report["counts"]
    assert counts["failed"] == 0 and counts["xpassed"] == 0
    assert counts["xfailed"] >= 8
    statuses = {s["name"]: s["status"] for s in report["scenarios"]}
    assert statuses["Characters outside the BMP count as one [中文输入-4]"] == "passed"  # no emoji: it passes


def test_the_readme_example_still_catches_what_it_does_not_name(runs: dict[str, Ran]) -> None:
    """The same file does not hide an unrelated bug (the check can fail); the regression feature's scenarios, where
    the file names two, are enough to show it (the test above runs the whole suite with the file)."""
    done = runs["unnamed"].done
    assert done.returncode == 1  # the REG-2 scenario entry is strict: it passes here, so XPASS
    assert "XPASS ac10_regression.feature::A rewrite of the same size and time is visible too" in done.stdout
