"""No false passes: every mutant of the reference is caught by the scenario it names.

Each mutant runs, in process, the scenarios that can kill it (``Mutant.selection``: those tagged
with its requirements when they hold the scenario it names, else that scenario's feature; the
short fuzz phase for a mutant of the fuzzer; ``--strict`` for SHOULD-level mutants): the named
scenario must fail, and the run must exit 1. To stay fast,
the selected mutants run in one ``run.py batch`` subprocess that imports everything once and
forks one child per mutant, two at a time. A test per mutant then reads its report. The batch
is split in two halves, this file's and ``test_mutants_second_half.py``'s, so that
``--dist loadfile`` runs them on both workers at once.
``python tests/mutants/mutation_score.py`` prints the same score for whoever wants the table.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from paths import REPO

from mutants.catalogue import MUTANTS
from mutants.run import RUN_PY, half, run_batch, selected_params
from mutants.verdicts import assert_killed

pytestmark = pytest.mark.slow

NAMES = half(list(MUTANTS), 0)
"""This file's half of the batch; ``test_mutants_second_half.py`` runs the other on the other worker."""


@pytest.fixture(scope="module")
def mutant_runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    names = selected_params(request, "test_mutant_is_killed") or NAMES
    return run_batch("mutant", names, tmp_path_factory.mktemp("mutants"))


@pytest.mark.parametrize("name", NAMES)
def test_mutant_is_killed(name: str, mutant_runs: dict[str, dict[str, Any]]) -> None:
    assert_killed(name, mutant_runs[name])


def test_the_two_halves_are_the_catalogue() -> None:
    assert sorted(half(list(MUTANTS), 0) + half(list(MUTANTS), 1)) == sorted(MUTANTS)
    assert abs(len(half(list(MUTANTS), 0)) - len(half(list(MUTANTS), 1))) <= 1


def test_catalogue_is_well_formed() -> None:
    import ccweb_spec  # noqa: PLC0415

    levels = {r.id: r.level for r in ccweb_spec.requirements()}
    assert len(MUTANTS) >= 30
    for name, mutant in MUTANTS.items():
        assert mutant.requirements, name
        assert set(mutant.requirements) <= set(levels), name
        should = any(levels[r] == "SHOULD" for r in mutant.requirements)
        assert mutant.should == should, f"{name}: should={mutant.should} but requirements {mutant.requirements}"
    groups = {r.group for r in ccweb_spec.requirements() if r.level != "WITHDRAWN"}
    covered = {r.group for r in ccweb_spec.requirements() if any(r.id in m.requirements for m in MUTANTS.values())}
    assert groups == covered, f"requirement groups without a mutant: {sorted(groups - covered)}"


def test_should_mutant_only_warns_without_strict(tmp_path: Path) -> None:
    """The single-entry form; a SHOULD-level bug is only a warning unless --strict."""
    report = tmp_path / "report.json"
    command = [sys.executable, str(RUN_PY), "mutant", "no_read_only_hint", "run", "--in-process", "--json", str(report)]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    data = json.loads(report.read_text(encoding="utf-8"))
    warnings = [s["name"] for s in data["scenarios"] if s["status"] == "warning"]
    assert warnings == [MUTANTS["no_read_only_hint"].killed_by]
    assert data["counts"]["failed"] == 0
