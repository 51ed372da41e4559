"""Every step of every bundled feature runs, through the engine, the step function pytest-bdd picks."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd.feature import get_features
from pytest_bdd.steps import step_function_context_registry
from runner.engine.parsed import parse_feature

from ccweb_conformance.engine.executor import UndefinedStep, match
from ccweb_conformance.engine.registry import STEPS
from ccweb_conformance.suite import steps
from ccweb_conformance.suite.bdd_steps import bind_steps

FEATURES_DIR = Path(str(files("ccweb_features")))
FEATURE_FILES = sorted(FEATURES_DIR.glob("*.feature"))

steps.load()
_before = set(step_function_context_registry.keys())
bind_steps(STEPS)  # pytest-bdd's step fixtures land in this module, as in the suite's own
PYTEST_BDD_STEPS = [step_function_context_registry[k] for k in list(step_function_context_registry.keys())
                    if k not in _before]


def pytest_bdd_choices(path: Path) -> list[tuple[str, str, Any]]:
    """(kind, text, function) of every step of the feature as pytest-bdd reads and matches it.

    When several definitions match, pytest-bdd runs the last one registered (``None`` when none does).
    """
    [feature] = get_features([str(path)])
    found = []
    for template in feature.scenarios.values():
        rows = [row for examples in template.examples for row in examples.as_contexts()] or [{}]
        for row in rows:
            for step in template.render(row).steps:
                matching = [c for c in PYTEST_BDD_STEPS if c.type == step.type and c.parser.is_matching(step.name)]
                bound = getattr(matching[-1].step_func, "__wrapped__", None) if matching else None  # the adapter's wrap
                found.append((step.type, step.name, bound))
    return found


def engine_choices(path: Path) -> list[tuple[str, str, Any]]:
    found = []
    for scenario in parse_feature(path.read_text(encoding="utf-8"), path.name):
        for step in scenario.steps:
            try:
                definition, _ = match(STEPS, step)
            except UndefinedStep:
                found.append((step.kind, step.text, None))
            else:
                found.append((step.kind, step.text, definition.function))
    return found


def test_pytest_bdd_sees_every_registered_step():
    assert len(PYTEST_BDD_STEPS) == len(STEPS.entries)
    assert len(STEPS.entries) > 50


@pytest.mark.parametrize("path", FEATURE_FILES, ids=lambda p: p.name)
def test_every_step_matches_exactly_one_entry_of_the_registry(path: Path):
    ambiguous_or_missing = [
        (step.line, step.text, len(STEPS.matches(step.kind or "", step.text)))
        for scenario in parse_feature(path.read_text(encoding="utf-8"), path.name)
        for step in scenario.steps
        if len(STEPS.matches(step.kind or "", step.text)) != 1
    ]
    assert ambiguous_or_missing == []


@pytest.mark.parametrize("path", FEATURE_FILES, ids=lambda p: p.name)
def test_the_engine_runs_the_function_pytest_bdd_runs_for_every_step(path: Path):
    engine, pytest_bdd = engine_choices(path), pytest_bdd_choices(path)
    assert engine == pytest_bdd
    assert all(function is not None for _, _, function in engine)
