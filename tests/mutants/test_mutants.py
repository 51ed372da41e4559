"""No false passes: every mutant of the reference is caught by the scenario it names.

Each mutant runs, in process, the scenario it names and no other (``Mutant.selection``: every
row of it, pasted into ``-k`` as ``--co`` prints it; the short fuzz phase for a mutant of the
fuzzer; ``--strict`` for SHOULD-level mutants): that scenario must fail, and the run must exit 1. To stay fast,
the selected mutants run in one ``run.py batch`` subprocess that imports everything once and
forks one child per mutant, two at a time. A test per mutant then reads its report. The batch
is dealt into parts, each scheduled as a file of its own, so that ``--dist loadfile`` runs them
on both workers at once (``batches.py``). Two mutants are also killed over a real stdio server
(``run.py serve``) rather than in process.
``python tests/mutants/mutation_score.py`` prints the same score for whoever wants the table.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from paths import REPO

from mutants.batches import PARTS, Batches, part_of, scope
from mutants.catalogue import MUTANTS, scenario_matches
from mutants.registry import TIMING_RERUNS
from mutants.run import RUN_PY, run_batch
from mutants.verdicts import assert_killed, failed_scenarios

pytestmark = pytest.mark.slow

NAMES = list(MUTANTS)


@pytest.fixture(scope="module")
def mutant_runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Batches:
    return Batches("mutant", NAMES, request, tmp_path_factory.mktemp("mutants"), "test_mutant_is_killed")


@pytest.mark.parametrize("name", NAMES)
def test_mutant_is_killed(name: str, mutant_runs: Batches, tmp_path: Path) -> None:
    """Killed in the batch; a timing-dependent mutant that survived there is run again alone (``Mutant.timing``)."""
    run = mutant_runs(name)
    for rerun in range(TIMING_RERUNS if MUTANTS[name].timing else 0):
        if run["exit"] == 1:
            break
        print(f"mutant {name} survived run {rerun + 1} (its kill needs a read during a torn save): run again")
        folder = tmp_path / f"rerun-{rerun + 1}"
        folder.mkdir()
        run = run_batch("mutant", [name], folder)[name]
    assert_killed(name, run)


def test_the_parts_of_the_batch_are_the_catalogue_evenly() -> None:
    sizes = [sum(part_of(NAMES, n) == part for n in NAMES) for part in range(PARTS)]
    assert sum(sizes) == len(MUTANTS)
    assert max(sizes) - min(sizes) <= 1


def test_each_part_is_scheduled_apart() -> None:
    """Under ``--dist loadfile`` each part is a scope of its own; tests not named after a mutant go with the file."""
    file = "tests/mutants/test_mutants.py"
    assert {scope(f"{file}::test_mutant_is_killed[{n}]") for n in NAMES} == {f"{file}::part-{p}" for p in range(PARTS)}
    assert scope(f"{file}::test_mutant_is_killed_over_real_stdio[newest_first-AC-3]") is None
    assert scope(f"{file}::test_catalogue_is_well_formed") is None
    assert scope(f"tests/mutants/test_catalogue.py::test_killed_by_names_an_existing_scenario[{NAMES[0]}]") is None


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


@pytest.mark.parametrize(
    ("name", "tags"),
    [("newest_first", "AC-3"), ("marks_read", "AC-9")],
)
def test_mutant_is_killed_over_real_stdio(name: str, tags: str, tmp_path: Path) -> None:
    """Killed over a real stdio server process. ``--no-rerun``, as the batch: the scenario failing is the proof, and
    rerunning each failure alone (on fresh server processes: more than the run's own) proves nothing more
    (``tests/runner/cli/test_rerun_alone_run.py`` tests the reruns, over stdio too)."""
    serve = f"{sys.executable} {RUN_PY} serve mutant {name} --sessions-dir {{sessions_dir}}"
    report = tmp_path / "report.json"
    command = [sys.executable, "-m", "ccweb_conformance.cli", "run", "--stdio", serve, "--tags", tags, "--no-rerun"]
    command += ["--json", str(report)]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["transport"] == "stdio"
    assert any(scenario_matches(MUTANTS[name].killed_by, f) for f in failed_scenarios(data))
