"""No false passes, the second half of the mutant batch (``test_mutants.py`` says how it runs), and two
mutants killed over a real stdio server (``run.py serve``) rather than in process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from paths import REPO

from mutants.catalogue import MUTANTS, scenario_matches
from mutants.run import RUN_PY, half, run_batch, selected_params
from mutants.verdicts import assert_killed, failed_scenarios

pytestmark = pytest.mark.slow

NAMES = half(list(MUTANTS), 1)


@pytest.fixture(scope="module")
def mutant_runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    names = selected_params(request, "test_mutant_is_killed") or NAMES
    return run_batch("mutant", names, tmp_path_factory.mktemp("mutants"))


@pytest.mark.parametrize("name", NAMES)
def test_mutant_is_killed(name: str, mutant_runs: dict[str, dict[str, Any]]) -> None:
    assert_killed(name, mutant_runs[name])


@pytest.mark.parametrize(
    ("name", "tags"),
    [("newest_first", "AC-3"), ("marks_read", "AC-9")],
)
def test_mutant_is_killed_over_real_stdio(name: str, tags: str, tmp_path: Path) -> None:
    serve = f"{sys.executable} {RUN_PY} serve mutant {name} --sessions-dir {{sessions_dir}}"
    report = tmp_path / "report.json"
    command = [sys.executable, "-m", "ccweb_conformance.cli", "run", "--stdio", serve, "--tags", tags]
    command += ["--json", str(report)]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["transport"] == "stdio"
    assert any(scenario_matches(MUTANTS[name].killed_by, f) for f in failed_scenarios(data))
