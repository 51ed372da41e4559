"""The engine plans every scenario as the pytest plugin does: names, example IDs, lines, tags, ``-k`` names."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

from suite_size import SCENARIOS

from ccweb_conformance.engine.features import parse_features
from ccweb_conformance.suite import planned as planned_module
from ccweb_conformance.suite.planned import example_ids, plan_scenarios

TESTS = Path(__file__).resolve().parents[2]
SUITE = Path(planned_module.__file__).resolve().parent


def test_example_ids_are_pytests_own_for_repeated_rows() -> None:
    rows = [{"a": "x"}, {"a": "x"}, {"a": "7"}, {"a": "7"}, {"a": ""}, {"a": "x0"}]
    assert example_ids(rows) == ["x1", "x2", "7_0", "7_1", "", "x0"]
    # a number is taken when an ID holds it at the time (pytest's own rule): "x0" is free once both rows read x0_N
    repeated = [{"a": "x0"}, {"a": "x0"}, {"a": "x"}, {"a": "x"}]
    assert example_ids(repeated) == ["x0_0", "x0_1", "x0", "x1"]


def test_the_engine_plans_what_the_plugin_collects() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "runner.suite.planned_dump"],
        cwd=TESTS,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    collected = json.loads(done.stdout.strip().splitlines()[-1])
    folder = Path(str(files("ccweb_features")))
    planned = [p for p, _ in plan_scenarios(parse_features(folder))]
    assert len(planned) == len(collected) == SCENARIOS
    for mine, theirs in zip(planned, collected, strict=True):
        assert (
            mine.feature,
            mine.feature_file,
            mine.name,
            mine.line,
            list(mine.tags),
            mine.test_name,
            dict(mine.row),
        ) == (
            theirs["feature"],
            theirs["file"],
            theirs["name"],
            theirs["line"],
            theirs["tags"],
            theirs["test"],
            theirs["row"],
        )
        # pytest also matches the folders of the installed suite module's path: an accident of where it is installed
        assert mine.keywords <= set(theirs["keywords"])
        assert set(theirs["keywords"]) - mine.keywords <= {part.casefold() for part in SUITE.parts}  # dumped casefolded
