"""--jobs: whole runs against the in-process reference and three mutants, one after another and together.

The verdicts per scenario are the same either way, the report keeps the planned order, and a scenario that
runs alone (``suite/lanes.yaml``) overlaps no other: each scenario's start and end are recorded around its
steps. The mutants' six runs are forked from one process that imported the kit once, two at a time
(``runner/cli/expected_failures_runs.py``'s batch, without an expected-failures file).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mutants.verdicts import not_judged
from paths import REPO
from runner.cli.expected_failures_runs import BATCH
from runner.forked import run_as_group

from ccweb_conformance.cli import main
from ccweb_conformance.options import RunnerOptions
from ccweb_conformance.suite import engine_session
from ccweb_conformance.suite.lanes import claims, lane_steps
from ccweb_conformance.values import resolve_values

pytestmark = pytest.mark.slow
RUN = ["run", "--in-process", "--fuzz", "0", "--no-rerun"]
MUTANTS = ["newest_first", "creates_cache_file", "directory_unreadable"]
"""Each fails scenarios of other features: items' order (ac03 and more), an entry left in the sessions folder (the
read-only scenarios, which run alone, and the audit), the store. Not a late write (``debounced_mark_read``): whether
its save lands before a scenario's own comparison or only in the next settle delay is timing, one after another as
together (seen beside 8 busy processes), so its per-scenario verdicts are not a property of ``--jobs``."""


def _verdicts(report: dict[str, Any]) -> list[tuple[str, str, str, list[str]]]:
    """Each scenario's verdict; one the machine's load left not judged (a torn save completed late) as a pass: load
    decides that in either mode, not ``--jobs`` (the scenarios that need a quiet machine run alone)."""
    loaded = set(not_judged(report))
    return [
        (s["file"], s["name"], "passed" if s["name"] in loaded else s["status"], s["failedRequirements"])
        for s in report["scenarios"]
    ]


def _counts(report: dict[str, Any]) -> dict[str, int]:
    """The report's counts, the scenarios load left not judged counted as passed (:func:`_verdicts`)."""
    loaded = len(not_judged(report))
    return {
        **report["counts"],
        "passed": report["counts"]["passed"] + loaded,
        "skipped": report["counts"]["skipped"] - loaded,
    }


def _run(tmp: Path, jobs: int) -> tuple[dict[str, Any], list[tuple[str, float, float]]]:
    """One in-process run; its JSON report, and each scenario's (node ID, start, end) around its steps."""
    spans: list[tuple[str, float, float]] = []
    execute = engine_session._execute

    def timed(run: Any, begun: Any) -> Any:
        started = time.monotonic()
        try:
            return execute(run, begun)
        finally:
            spans.append((begun.planned.nodeid, started, time.monotonic()))

    report = tmp / f"jobs{jobs}.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine_session, "_execute", timed)
        assert main([*RUN, "--jobs", str(jobs), "--json", str(report)]) == 0
    return json.loads(report.read_text(encoding="utf-8")), spans


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[int, Any]]:
    tmp = tmp_path_factory.mktemp("jobs")
    yield {jobs: _run(tmp, jobs) for jobs in (1, 4)}


def test_the_reference_gets_the_same_verdicts_in_the_planned_order(runs: dict[int, Any]):
    one, _ = runs[1]
    four, _ = runs[4]
    assert _verdicts(four) == _verdicts(one)
    planned = [p.nodeid for p, _, _ in engine_session.collect(resolve_values(RunnerOptions()))[1]]
    audit = "audit::After the run the sessions directory holds only what the runner wrote"  # RO-2 was selected
    assert [f"{s['file']}::{s['name']}" for s in four["scenarios"]] == [*planned, audit]
    assert _counts(four) == _counts(one)
    assert four["waits"].keys() == one["waits"].keys()


def test_scenarios_ran_together_and_one_that_needs_quiet_ran_alone(runs: dict[int, Any]):
    _, spans = runs[4]
    chosen = engine_session.collect(resolve_values(RunnerOptions()))[1]
    texts = [[step.text for step in scenario.steps] for _, scenario, _ in chosen]
    marked = list(zip(chosen, claims(texts, [[None]] * len(chosen), lane_steps()), strict=True))
    alone = {planned.nodeid for (planned, _, _), claim in marked if claim.alone is not None}
    apart = {planned.nodeid for (planned, _, _), claim in marked if claim.apart is not None}
    assert (len(alone), len(apart), len(spans)) == (9, 2, len(chosen))
    overlaps = [(a, b) for a, s1, e1 in spans for b, s2, e2 in spans if a < b and s1 < e2 and s2 < e1]
    assert overlaps  # run together
    assert [(a, b) for a, b in overlaps if a in alone or b in alone] == []
    assert [(a, b) for a, b in overlaps if a in apart and b in apart] == []
    assert {name for pair in overlaps for name in pair} >= apart  # beside ordinary ones


@pytest.fixture(scope="module")
def mutant_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    """Each mutant's two runs (``--jobs 1`` and ``4``): their folder (``NAME.json``, ``NAME.err``) and exit codes."""
    folder = tmp_path_factory.mktemp("jobs-mutants")
    runs = {
        f"{mutant}-jobs{jobs}": {
            "argv": [*RUN, "--jobs", str(jobs), "--json", str(folder / f"{mutant}-jobs{jobs}.json")],
            "mutants": [mutant],
        }
        for mutant in MUTANTS
        for jobs in (1, 4)
    }
    batch = run_as_group([sys.executable, "-c", BATCH, str(folder), json.dumps(runs)], REPO, 900)
    assert batch.returncode == 0, batch.stderr[-3000:]
    return folder, json.loads((folder / "codes.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("mutant", MUTANTS)
def test_a_mutant_gets_the_same_verdicts_either_way(mutant: str, mutant_runs: tuple[Path, dict[str, int]]):
    folder, codes = mutant_runs
    reports = {}
    for jobs in (1, 4):
        name = f"{mutant}-jobs{jobs}"
        assert codes[name] == 1, (folder / f"{name}.err").read_text(encoding="utf-8")[-2000:]
        reports[jobs] = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
    assert _verdicts(reports[4]) == _verdicts(reports[1])
    assert any(status == "failed" for _, _, status, _ in _verdicts(reports[4]))
