"""Every pytest-bdd (and pytest) internal the suite reads, in one module: an upgrade is this file.

The suite binds the features with pytest-bdd's public API: ``scenario()`` for each scenario (see
:func:`bind_features`), ``given``/``when``/``then``/``parsers`` for the steps, and its documented
hooks (``pytest_bdd_before_scenario``, ``_before_step``, ``_after_step``, ``_step_error``,
``_after_scenario``) for what ran. What a scenario is (feature, name, line, steps, example rows)
is read by the engine (``engine/features.py``) with the Gherkin parser pytest-bdd itself uses, so
that listing does not import pytest (a test checks the reading equals pytest-bdd's own).

Two reads are not public; each is optional, with a fallback:

- the outline's example row of a collected item (pytest-bdd's ``_pytest_bdd_example``
  parameter), to predict which stdio processes to start early; without it no early start;
- the names pytest's ``-k`` matches a collected item by (``_pytest.mark.KeywordMatcher``), for
  each failure's reproducer; without it the names pytest documents.

pytest-bdd finds each step's definition with its own lookup.

The ``-k`` expression is read without pytest by the engine (``engine/keyword.py``).

Everything pytest-bdd or pytest is imported when first used, never at import of this module.
"""

from __future__ import annotations

import importlib
import weakref
from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import Any

from ccweb_conformance.engine.features import FeatureScenario
from ccweb_conformance.suite.planned import in_run_order

__all__ = ["EXAMPLE_PARAMETER", "bind_features", "bound_scenario", "example_row", "keyword_names"]

EXAMPLE_PARAMETER = "_pytest_bdd_example"
"""The callspec parameter that holds the example row an outline's item runs (pytest-bdd 9)."""

_BOUND: MutableMapping[Callable[..., Any], FeatureScenario] = weakref.WeakKeyDictionary()


def _unbound() -> None:
    """The body of every bound scenario: its steps are the test."""


def bind_features(namespace: dict[str, Any], folder: Path) -> None:
    """Bind every scenario of ``folder`` into a test module's namespace with pytest-bdd's public ``scenario()``."""
    from pytest_bdd import scenario  # noqa: PLC0415 (only in the suite's own module)

    for found, name in in_run_order(folder):  # the test names the engine gives them (suite/planned.py)
        test = scenario(found.feature.filename, found.name, features_base_dir=str(folder))(_unbound)
        _BOUND[test] = found
        namespace[name] = test


def bound_scenario(function: Callable[..., Any] | None) -> FeatureScenario | None:
    """The scenario a test function was bound to by :func:`bind_features`, or None."""
    return None if function is None else _BOUND.get(function)


def example_row(callspec: Any) -> dict[str, str]:
    """The example row an outline's item runs, from its callspec ({} when unknown: nothing is started early)."""
    if callspec is None:
        return {}
    row = callspec.params.get(EXAMPLE_PARAMETER, {})
    return row if isinstance(row, dict) else {}


def keyword_names(item: Any) -> frozenset[str]:
    """The names pytest's ``-k`` matches ``item`` by, casefolded: pytest's own ``KeywordMatcher`` when it has
    one, else what it documents (the names of the item and its parents, extra keywords, markers)."""
    matcher_class = getattr(importlib.import_module("_pytest.mark"), "KeywordMatcher", None)
    names = getattr(matcher_class.from_item(item), "_names", None) if matcher_class is not None else None
    if names is None:
        names = {node.name for node in item.listchain()[1:]}
        names |= set(item.listextrakeywords()) | {mark.name for mark in item.iter_markers()}
    return frozenset(str(name).casefold() for name in names)
