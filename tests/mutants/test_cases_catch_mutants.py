"""The exported cases catch every MUST-level mutant whose killing scenario is a function-level case.

Run through the Python side of the harness (``ccweb_conformance.contract.replay``) against the
reference's tool function with the mutant applied, one forked child per mutant
(``cases_score.py`` prints the same as a table).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from paths import REPO

from mutants.cases_score import ENVELOPE_ONLY, score
from mutants.catalogue import MUTANTS

CASES = REPO / "examples" / "node-server" / "contract" / "cases.json"


@pytest.fixture(scope="module")
def scores() -> dict[str, dict[str, object]]:
    return score(Path(CASES))


def test_every_function_level_mutant_fails_an_exported_case(scores):
    survivors = [name for name, result in scores.items() if result["expressible"] and not result["failed"]]
    assert survivors == []


def test_most_of_the_catalogue_is_expressible_below_mcp(scores):
    expressible = sum(bool(result["expressible"]) for result in scores.values())
    assert expressible >= len(MUTANTS) * 2 // 3, f"only {expressible} of {len(MUTANTS)} mutants are function-level"
    assert set(ENVELOPE_ONLY) <= set(MUTANTS)
