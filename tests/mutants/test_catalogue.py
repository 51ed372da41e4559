"""Fast checks of the catalogue itself: every ``killed_by`` names a scenario that exists.

No mutant is run here (``test_mutants.py`` does that): the names are checked against the
scenarios of the bundled features, outlines expanded the way pytest-bdd names their rows
(the example values joined by ``-``, escaped as pytest escapes non-ASCII test ids).
"""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files
from pathlib import Path

import pytest
from pytest_bdd.feature import get_features

from ccweb_conformance.commands.list import select
from ccweb_conformance.reports.model import ScenarioRef
from ccweb_conformance.suite.scenario_index import feature_scenarios
from mutants.catalogue import MUTANTS
from mutants.fuzz import FUZZ_SCENARIO
from mutants.registry import scenario_matches


def _row_id(values: list[str]) -> str:
    return "-".join(values).encode("unicode_escape").decode("ascii")


def scenario_names() -> dict[str, str]:
    """Every runnable scenario name (outline rows as ``name [id]``) -> its feature file."""
    names: dict[str, str] = {}
    for feature in get_features([str(files("ccweb_features"))]):
        for scenario in feature.scenarios.values():
            rows = [_row_id(list(c.values())) for e in scenario.examples for c in e.as_contexts()]
            for name in [f"{scenario.name} [{row}]" for row in rows] or [scenario.name]:
                names[name] = Path(feature.filename).name
    return names


NAMES = scenario_names()
NAMES[FUZZ_SCENARIO] = "fuzz.feature"  # the short fuzz phase of every full run: one scenario, no feature file


@cache
def scenarios() -> tuple[ScenarioRef, ...]:
    """The bundled features' scenarios, listed once per test process (each listing costs about 50 ms)."""
    return tuple(feature_scenarios())


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_killed_by_names_an_existing_scenario(name: str):
    killed_by = MUTANTS[name].killed_by
    matches = [n for n in NAMES if scenario_matches(killed_by, n)]
    assert matches, f"mutant {name}: no scenario is named {killed_by!r}"


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_a_mutant_lives_in_the_module_of_its_feature(name: str):
    killed_by = MUTANTS[name].killed_by
    feature = next(NAMES[n] for n in NAMES if scenario_matches(killed_by, n))
    module = MUTANTS[name].apply.__module__.rsplit(".", 1)[-1]
    assert f"{module}.feature" == feature, f"mutant {name} is in {module}.py; its scenario is in {feature}"


def test_a_wrong_name_is_caught():
    assert not [n for n in NAMES if scenario_matches("No such scenario in any feature", n)]
    assert [n for n in NAMES if scenario_matches("Values outside the bounds are rejected, not clamped [limit-51]", n)]


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_the_batch_selection_is_the_killing_scenario(name: str) -> None:
    """``Mutant.selection`` (what the batch runs) selects every row of the scenario that must kill it, and no other."""
    mutant = MUTANTS[name]
    selection = mutant.selection
    if mutant.feature_tag is None:
        assert selection == ["--tags", "TOOL-1", "--fuzz", "60"]  # the phase whose seed-0 scenario kills it
        return
    assert selection[selection.index("--fuzz") + 1] == "0"
    killing = re.sub(r" \[.*\]$", "", mutant.killed_by, flags=re.DOTALL)
    rows = [s for s in scenarios() if s.name == killing and s.feature_file == f"{mutant.feature}.feature"]
    assert rows
    assert select(scenarios(), None, selection[selection.index("-k") + 1]) == rows
