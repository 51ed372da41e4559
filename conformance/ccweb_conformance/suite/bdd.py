"""Every pytest-bdd (and pytest) internal the suite reads, in one module: an upgrade is this file.

Written against pytest-bdd 9.0.1. Public pytest-bdd API (``given``, ``when``, ``then``,
``parsers``, ``scenarios``) is used where it is needed; what is not public is here:

- the features' scenarios for ``list``, ``spec`` and ``--tags``, read with the Gherkin parser
  pytest-bdd itself uses (``gherkin-official``), so that listing does not import pytest
  (a test checks the result equals pytest-bdd's own ``get_features``);
- the registries the result collector reads (scenario templates, scenario reports) and the
  parameter that carries an outline's example row;
- the step lookup the memo in ``step_lookup`` wraps;
- pytest's ``-k`` expression, for selecting scenarios without a pytest session.

Everything pytest-bdd or pytest is imported when first used, never at import of this module.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "EXAMPLE_PARAMETER",
    "STEP_LOOKUP",
    "FeatureScenario",
    "KeywordSyntaxError",
    "compile_keyword",
    "parse_features",
    "scenario_reports",
    "scenario_templates",
    "step_lookup_internals",
]

EXAMPLE_PARAMETER = "_pytest_bdd_example"
"""The callspec parameter that holds the example row an outline's item runs."""
STEP_LOOKUP = ("pytest_bdd.scenario", "find_fixturedefs_for_step")
"""The module and the function pytest-bdd finds a step's definitions with."""


@dataclass(frozen=True)
class FeatureScenario:
    """One scenario as pytest-bdd collects it: its feature file, name, tags and number of example rows."""

    feature_file: str
    name: str
    tags: frozenset[str]
    examples: int


def _tags(node: dict[str, Any]) -> frozenset[str]:
    return frozenset(tag["name"].lstrip("@") for tag in node.get("tags", []))


Node = dict[str, Any]


def _scenarios(children: Iterable[Node]) -> Iterable[Node]:
    for child in children:
        if "scenario" in child:
            yield child["scenario"]
        elif "rule" in child:
            yield from _scenarios(child["rule"].get("children", []))


def parse_features(folder: Path) -> list[FeatureScenario]:
    """Every scenario of the ``*.feature`` files in ``folder``: by file name, then in file order.

    As pytest-bdd: a later scenario of the same name in one feature replaces the earlier one;
    tags are the scenario's and its feature's (not a rule's, as pytest-bdd's templates), without ``@``.
    """
    from gherkin.parser import Parser  # noqa: PLC0415 (only when listing)

    found: list[FeatureScenario] = []
    for path in sorted(folder.glob("*.feature"), key=lambda p: p.name):
        document: Node = dict(Parser().parse(path.read_text(encoding="utf-8")))
        feature: Node = document.get("feature") or {}
        by_name: dict[str, FeatureScenario] = {}
        for scenario in _scenarios(feature.get("children", [])):
            rows = sum(len(examples.get("tableBody", [])) for examples in scenario.get("examples", []))
            tags = _tags(scenario) | _tags(feature)
            by_name[scenario["name"]] = FeatureScenario(path.name, scenario["name"], tags, rows)
        found += by_name.values()
    return found


def scenario_templates() -> dict[Any, Any]:
    """pytest-bdd's registry: test function -> the scenario template it was generated from."""
    return importlib.import_module("pytest_bdd.scenario").scenario_wrapper_template_registry  # type: ignore[no-any-return]


def scenario_reports() -> dict[Any, Any]:
    """pytest-bdd's registry: item -> its scenario report (steps, their outcome and duration)."""
    return importlib.import_module("pytest_bdd.reporting").scenario_reports_registry  # type: ignore[no-any-return]


def step_lookup_internals() -> tuple[Callable[..., Any], Callable[..., Any], dict[Any, Any]] | None:
    """(get_fixture_names, getfixturedefs, step_function_context_registry), or None on a pytest-bdd without them."""
    try:
        compat = importlib.import_module("pytest_bdd.compat")
        steps = importlib.import_module("pytest_bdd.steps")
        return compat.get_fixture_names, compat.getfixturedefs, steps.step_function_context_registry
    except (ImportError, AttributeError):  # another pytest-bdd: its own lookup is used as it is
        return None


class KeywordSyntaxError(ValueError):
    """A ``-k`` expression pytest cannot parse; ``message`` is pytest's own words, without the column."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def compile_keyword(expression: str) -> Any:
    """pytest's ``-k`` expression, compiled (its ``evaluate(matcher)`` says whether a scenario matches).

    Raises :class:`KeywordSyntaxError` on every supported pytest: 9.x raises ``SyntaxError`` (``msg``),
    8.4 its own ``ParseError`` (``message``), which is no ``SyntaxError``.
    """
    module = importlib.import_module("_pytest.mark.expression")  # only when -k is given
    parse_error = getattr(module, "ParseError", None)
    errors: tuple[type[Exception], ...] = (SyntaxError,)
    if isinstance(parse_error, type) and issubclass(parse_error, Exception):
        errors += (parse_error,)
    try:
        return module.Expression.compile(expression)
    except errors as error:
        message = getattr(error, "msg", None) or getattr(error, "message", None) or str(error)
        raise KeywordSyntaxError(str(message)) from None
