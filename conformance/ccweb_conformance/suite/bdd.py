"""The features bound into pytest with pytest-bdd's public API, for plain pytest with the kit's plugin.

The suite binds the features with pytest-bdd's public API: ``scenario()`` for each scenario (see
:func:`bind_features`), ``given``/``when``/``then``/``parsers`` for the steps, and its documented
hooks (``pytest_bdd_before_scenario``, ``_before_step``, ``_after_step``, ``_step_error``,
``_after_scenario``) for what ran. What a scenario is (feature, name, line, steps, example rows)
is read by the engine (``engine/features.py``) with the Gherkin parser pytest-bdd itself uses, so
that listing does not import pytest (a test checks the reading equals pytest-bdd's own).

Nothing private of pytest or pytest-bdd is read: a collected item is known by its test name, which the engine's
plan (``suite/planned.py``) gives each scenario as pytest-bdd names it, with its example row and the names ``-k``
matches it by (``tests/runner/suite/test_planned.py`` checks the plan against pytest's own items).

pytest-bdd finds each step's definition with its own lookup.

The ``-k`` expression is read without pytest by the engine (``engine/keyword.py``).

Everything pytest-bdd or pytest is imported when first used, never at import of this module.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import Any

from ccweb_conformance.engine.features import FeatureScenario, parse_features
from ccweb_conformance.suite.planned import in_run_order

__all__ = ["bind_features", "bound_scenario"]

_BOUND: MutableMapping[Callable[..., Any], FeatureScenario] = weakref.WeakKeyDictionary()


def _unbound() -> None:
    """The body of every bound scenario: its steps are the test."""


def bind_features(namespace: dict[str, Any], folder: Path) -> None:
    """Bind every scenario of ``folder`` into a test module's namespace with pytest-bdd's public ``scenario()``."""
    from pytest_bdd import scenario  # noqa: PLC0415 (only in the suite's own module)

    for found, name in in_run_order(parse_features(folder)):  # the test names the engine gives (suite/planned.py)
        test = scenario(found.feature.filename, found.name, features_base_dir=str(folder))(_unbound)
        _BOUND[test] = found
        namespace[name] = test


def bound_scenario(function: Callable[..., Any] | None) -> FeatureScenario | None:
    """The scenario a test function was bound to by :func:`bind_features`, or None."""
    return None if function is None else _BOUND.get(function)
