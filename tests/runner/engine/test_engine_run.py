"""``ccweb-conformance run`` (the engine) and plain pytest with the kit's plugin give the same verdict per scenario,
on the reference and on three mutants that fail different features (one of them SHOULD-level)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from runner.engine.engine_run import REFERENCE
from runner.forked import run_as_group
from suite_size import SCENARIOS

TESTS = Path(__file__).resolve().parents[2]
MUTANTS = {
    "": set(),
    "newest_first": {"ac03_latest_fifteen.feature"},
    "grapheme_clusters": {"ac07_unicode.feature"},
    "no_read_only_hint": {"ac01_tool_definition.feature"},
}
"""Each run's mutant (none for the reference) and feature files among whose scenarios it fails one at least."""
Verdicts = dict[str, dict[str, dict[str, str]]]
"""Per mutant, per path (``engine``, ``pytest``), scenario ID -> status."""


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> Verdicts:
    """Both paths' verdicts per mutant: one process reads the suite once and forks a child per mutant, two at a
    time (``engine_run.py``); on a time-out its whole process group is stopped."""
    folder = tmp_path_factory.mktemp("engine-run")
    names = [name or REFERENCE for name in MUTANTS]
    done = run_as_group([sys.executable, "-m", "runner.engine.engine_run", str(folder), *names], TESTS, 600)
    logs = "".join(log.read_text(encoding="utf-8")[-2000:] for log in sorted(folder.glob("*.err")))
    assert done.returncode == 0, done.stderr[-2000:] + logs
    return {name: json.loads((folder / f"{name or REFERENCE}.json").read_text(encoding="utf-8")) for name in MUTANTS}


@pytest.mark.parametrize("mutant", list(MUTANTS))
def test_both_paths_give_the_same_verdict_per_scenario(verdicts: Verdicts, mutant: str) -> None:
    engine, plain = verdicts[mutant]["engine"], verdicts[mutant]["pytest"]
    assert len(engine) == SCENARIOS
    assert engine == plain
    failed_in = {name.split("::")[0] for name, status in engine.items() if status == "failed"}
    assert failed_in >= MUTANTS[mutant] if mutant else failed_in == set()
    assert set(engine.values()) - {"failed"} <= {"passed", "skipped"}
