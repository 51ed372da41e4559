"""One feature through the engine against the in-process reference: the pytest path's verdict per scenario."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from runner.engine.engine_run import engine_verdicts, pytest_verdicts

FEATURE = "ac01_tool_definition.feature"
SCENARIOS = [
    "The tool is listed under its contract name",
    "The input schema declares exactly the contract's arguments",
    "The description states the default, the 15 inputs, the budget and the purpose",
    "The tool is annotated as read-only",
    "The declared output schema accepts every result the server returns",
    "The tool reports the contract version it implements",
]
TESTS = Path(__file__).resolve().parents[2]


def test_the_reference_passes_every_scenario_both_ways(tmp_path: Path):
    engine = engine_verdicts(FEATURE, tmp_path)
    assert list(engine) == SCENARIOS
    assert engine == dict.fromkeys(SCENARIOS, "passed")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sessions", "sessions-data"]  # the caller's root
    assert list((tmp_path / "sessions-data").iterdir()) == []  # every conversation file removed
    assert pytest_verdicts(FEATURE, tmp_path / "report.json") == engine


@pytest.mark.parametrize(
    ("mutant", "failing"),
    [("tool_renamed", SCENARIOS[0]), ("schema_limit_max_100", SCENARIOS[1])],
)
def test_a_mutant_fails_the_same_scenarios_both_ways(mutant: str, failing: str):
    ran = subprocess.run(
        [sys.executable, "-m", "runner.engine.engine_run", mutant, FEATURE],
        cwd=TESTS, capture_output=True, text=True, timeout=120, check=False,
    )
    assert ran.returncode == 0, ran.stderr
    verdicts = json.loads(ran.stdout.splitlines()[-1])
    assert verdicts["engine"][failing] == "failed"
    assert verdicts["engine"] == verdicts["pytest"]
