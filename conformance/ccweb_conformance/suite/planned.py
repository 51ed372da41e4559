"""A scenario planned to run, and what its run left, as values: what the collector judges (no pytest).

The engine plans them from the features (:func:`plan_scenarios`); the pytest plugin builds the same
values from its items. A scenario's name, test name and example ID are the ones pytest-bdd gives
it, so that reports, ``--co`` lines, ``-k`` reproducers and ``--last-failed`` records name it the same
whichever path ran it.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import ccweb_spec
from ccweb_conformance.engine.features import FeatureScenario
from ccweb_conformance.engine.scenarios import Scenario
from ccweb_conformance.reports.model import StepResult

__all__ = [
    "MODULE_NAME",
    "OUTLINE_MARKER",
    "PlannedScenario",
    "ScenarioRun",
    "example_ids",
    "in_run_order",
    "plan_scenarios",
    "python_name",
]

MODULE_NAME = "test_conformance.py"
"""The module the pytest adapter binds the scenarios in: one of the names ``-k`` matches every scenario by."""
OUTLINE_MARKER = "parametrize"
"""The marker pytest puts on an outline's items: shown among the scenario's tags in the reports, as it always was."""
_REQUIREMENT_ORDER = tuple(r.id for r in ccweb_spec.requirements())


@dataclass(frozen=True)
class PlannedScenario:
    """One scenario to run (an outline: one per example row), named as the reports name it."""

    feature: str
    feature_file: str
    name: str
    """``Name``, or ``Name [example id]`` for an outline's row."""
    line: int
    """The ``Scenario:`` line (an outline's, for every row)."""
    tags: tuple[str, ...]
    """As the reports show them, sorted."""
    test_name: str
    """The name pytest gives its test (``test_name[example id]``): what a ``-k`` reproducer spells."""
    keywords: frozenset[str]
    """The names ``-k`` matches it by, casefolded."""
    row: tuple[tuple[str, str], ...] = ()
    steps: tuple[str, ...] = field(default=(), compare=False)
    """Its step texts, background first, an example row's values in place: what the lookahead reads."""

    @property
    def nodeid(self) -> str:
        """``file.feature::Name [example]``: how reports, ``--co`` and expected-failure files name it."""
        return f"{self.feature_file}::{self.name}"

    @property
    def requirements(self) -> tuple[str, ...]:
        """The requirement IDs it is tagged with, in spec order."""
        tags = set(self.tags)
        return tuple(r for r in _REQUIREMENT_ORDER if r in tags)



@dataclass(frozen=True)
class ScenarioRun:
    """What one scenario's run left, for the collector to judge."""

    error: BaseException | None = None
    """The exception that failed it (a step's, the era check's, its set-up's), or None."""
    skipped: str | None = None
    """Why it skipped itself (a step said so), or None."""
    duration: float = 0.0
    steps: tuple[StepResult, ...] = ()
    expected_failure: str | None = None
    """The reason of the expected-failures scenario entry naming it, or None."""


def python_name(name: str) -> str:
    """A scenario's test name as pytest-bdd's ``scenarios()`` makes it: ``test_`` and its words."""
    words = re.sub(r"\W", "", name.replace(" ", "_"))
    return "test_" + re.sub(r"^\d+_*", "", words).lower()


def example_ids(rows: Sequence[dict[str, str]]) -> list[str]:
    """The IDs pytest gives an outline's rows: the values joined with ``-``, a repeated one numbered as pytest does
    (``x0``, ``x1``; ``x_0`` after a digit; a number no ID holds at the time, in its own way)."""
    ids = ["-".join(row.values()) for row in rows]
    counts = Counter(ids)
    suffixes: dict[str, int] = defaultdict(int)
    for index, raw in enumerate(ids):
        if counts[raw] == 1:
            continue
        joiner = "_" if raw and raw[-1].isdigit() else ""
        while f"{raw}{joiner}{suffixes[raw]}" in ids:
            suffixes[raw] += 1
        ids[index] = f"{raw}{joiner}{suffixes[raw]}"
        suffixes[raw] += 1
    return ids


def in_run_order(features: Iterable[FeatureScenario]) -> list[tuple[FeatureScenario, str]]:
    """The scenarios as written (``engine.features.parse_features``), in the order pytest-bdd runs them (by feature
    name), each with its test name (a repeated one numbered ``_1``, ``_2`` as a module namespace takes it)."""
    ordered = sorted(features, key=lambda s: s.feature.name or s.feature.filename)
    taken: set[str] = set()
    named = []
    for found in ordered:
        base, number = python_name(found.name), 0
        while (base if number == 0 else f"{base}_{number}") in taken:
            number += 1
        name = base if number == 0 else f"{base}_{number}"
        taken.add(name)
        named.append((found, name))
    return named


def _planned(
    found: FeatureScenario, test_name: str, row: dict[str, str], example_id: str | None, runnable: Scenario
) -> PlannedScenario:
    markers = set(found.tags) | ({OUTLINE_MARKER} if example_id is not None else set())
    name = found.name if example_id is None else f"{found.name} [{example_id}]"
    test = test_name if example_id is None else f"{test_name}[{example_id}]"
    return PlannedScenario(
        found.feature.name,
        found.feature_file,
        name,
        found.line_number,
        tuple(sorted(markers)),
        test,
        frozenset(n.casefold() for n in (test, MODULE_NAME, found.feature_file, *markers)),
        tuple(row.items()),
        tuple(step.text for step in runnable.steps),
    )


def plan_scenarios(features: Iterable[FeatureScenario]) -> list[tuple[PlannedScenario, Scenario]]:
    """Every scenario of ``features`` in run order, planned and ready to run (an outline: one per example row)."""
    plan = []
    for found, test_name in in_run_order(features):
        ids: list[str | None] = [*example_ids(found.rows)] or [None]  # a plain scenario: one pickle, no example
        for row, example_id, pickle in zip(found.rows or [{}], ids, found.runnable, strict=True):
            plan.append((_planned(found, test_name, row, example_id, pickle), pickle))
    return plan
