"""``ccweb-conformance run`` (the engine) and plain pytest with the kit's plugin give the same verdict per scenario,
on the reference and on three mutants that fail different features (one of them SHOULD-level)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from suite_size import SCENARIOS

TESTS = Path(__file__).resolve().parents[2]
MUTANTS = {
    "": set(),
    "newest_first": {"ac03_latest_fifteen.feature"},
    "grapheme_clusters": {"ac07_unicode.feature"},
    "no_read_only_hint": {"ac01_tool_definition.feature"},
}
"""Each run's mutant (none for the reference) and feature files among whose scenarios it fails one at least."""


@pytest.fixture(scope="module")
def verdicts() -> dict[str, dict[str, dict[str, str]]]:
    """Both paths' verdicts per mutant, the four subprocesses two at a time."""
    found: dict[str, dict[str, dict[str, str]]] = {}
    names = list(MUTANTS)
    for pair in (names[:2], names[2:]):
        running = {
            name: subprocess.Popen(
                [sys.executable, "-m", "runner.engine.engine_run", *([name] if name else [])],
                cwd=TESTS,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for name in pair
        }
        for name, process in running.items():
            out, err = process.communicate(timeout=600)
            assert process.returncode == 0, err[-2000:]
            found[name] = json.loads(out.splitlines()[-1])
    return found


@pytest.mark.parametrize("mutant", list(MUTANTS))
def test_both_paths_give_the_same_verdict_per_scenario(verdicts, mutant: str):
    engine, plain = verdicts[mutant]["engine"], verdicts[mutant]["pytest"]
    assert len(engine) == SCENARIOS
    assert engine == plain
    failed_in = {name.split("::")[0] for name, status in engine.items() if status == "failed"}
    assert failed_in >= MUTANTS[mutant] if mutant else failed_in == set()
    assert set(engine.values()) - {"failed"} <= {"passed", "skipped"}
