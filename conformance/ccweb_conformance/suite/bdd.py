"""Every pytest-bdd (and pytest) internal the suite reads, in one module: an upgrade is this file.

The suite binds the features with pytest-bdd's public API: ``scenario()`` for each scenario (see
:func:`bind_features`), ``given``/``when``/``then``/``parsers`` for the steps, and its documented
hooks (``pytest_bdd_before_scenario``, ``_before_step``, ``_after_step``, ``_step_error``,
``_after_scenario``) for what ran. What a scenario is (feature, name, line, steps, example rows)
is read here with the Gherkin parser pytest-bdd itself uses (``gherkin-official``), so that
listing does not import pytest (a test checks the reading equals pytest-bdd's own).

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
import re
import weakref
from collections.abc import Callable, Iterable, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "EXAMPLE_PARAMETER",
    "FeatureRef",
    "FeatureScenario",
    "bind_features",
    "bound_scenario",
    "example_row",
    "keyword_names",
    "parse_features",
]

EXAMPLE_PARAMETER = "_pytest_bdd_example"
"""The callspec parameter that holds the example row an outline's item runs (pytest-bdd 9)."""
_PLACEHOLDER = re.compile(r"<(.+?)>")


@dataclass(frozen=True)
class FeatureRef:
    """A feature: its name and its file's path."""

    name: str
    filename: str


@dataclass(frozen=True)
class StepText:
    """A step as the lookahead reads it: its text."""

    name: str


@dataclass(frozen=True)
class RenderedScenario:
    """A scenario with an example row filled in."""

    steps: list[StepText]


@dataclass(frozen=True)
class FeatureScenario:
    """One scenario as pytest-bdd collects it: its feature file, name, tags and number of example rows.

    The other fields (not compared) are what the collector reads of a scenario: its feature, line,
    step texts (background steps first, as pytest-bdd runs them) and example rows.
    """

    feature_file: str
    name: str
    tags: frozenset[str]
    examples: int
    feature: FeatureRef = field(default=FeatureRef("", ""), compare=False)
    line_number: int = field(default=0, compare=False)
    step_texts: tuple[str, ...] = field(default=(), compare=False)
    rows: tuple[dict[str, str], ...] = field(default=(), compare=False)

    @property
    def steps(self) -> list[StepText]:
        """The steps, placeholders unfilled."""
        return [StepText(text) for text in self.step_texts]

    def render(self, row: dict[str, str]) -> RenderedScenario:
        """The steps with an example row's values in place of its ``<placeholders>``."""
        return RenderedScenario(
            [StepText(_PLACEHOLDER.sub(lambda m: row.get(m[1], m[0]), text)) for text in self.step_texts]
        )


def _tags(node: dict[str, Any]) -> frozenset[str]:
    return frozenset(tag["name"].lstrip("@") for tag in node.get("tags", []))


Node = dict[str, Any]


def _background(children: Iterable[Node]) -> list[str]:
    return [step["text"] for child in children if "background" in child for step in child["background"]["steps"]]


def _scenarios(children: list[Node], background: list[str]) -> Iterable[tuple[Node, list[str]]]:
    for child in children:
        if "scenario" in child:
            yield child["scenario"], background
        elif "rule" in child:
            rule_children = child["rule"].get("children", [])
            yield from _scenarios(rule_children, background + _background(rule_children))


def _rows(scenario: Node) -> tuple[dict[str, str], ...]:
    rows = []
    for examples in scenario.get("examples", []):
        header = [cell["value"] for cell in examples.get("tableHeader", {}).get("cells", [])]
        rows += [dict(zip(header, (c["value"] for c in row["cells"]), strict=True)) for row in examples["tableBody"]]
    return tuple(rows)


def parse_features(folder: Path) -> list[FeatureScenario]:
    """Every scenario of the ``*.feature`` files in ``folder``: by file name, then in file order.

    As pytest-bdd: a later scenario of the same name in one feature replaces the earlier one;
    tags are the scenario's and its feature's (not a rule's, as pytest-bdd's templates), without ``@``.
    A run reads them several times (its first line, the collector, the binding): each folder is parsed
    once per process while its files stay the same (name, size and modification time).
    """
    paths = sorted(folder.glob("*.feature"), key=lambda p: p.name)
    stamp = tuple((p.name, s.st_size, s.st_mtime_ns) for p, s in ((p, p.stat()) for p in paths))
    cached = _PARSED.get(folder)
    if cached is None or cached[0] != stamp:
        cached = (stamp, tuple(_parse(paths)))
        _PARSED[folder] = cached
    return list(cached[1])


_PARSED: dict[Path, tuple[tuple[tuple[str, int, int], ...], tuple[FeatureScenario, ...]]] = {}
"""The scenarios read per folder, with the files' names, sizes and modification times when read."""


def _parse(paths: Iterable[Path]) -> list[FeatureScenario]:
    """The scenarios of these feature files, in this order."""
    from gherkin.parser import Parser  # noqa: PLC0415 (only when listing)

    found: list[FeatureScenario] = []
    for path in paths:
        document: Node = dict(Parser().parse(path.read_text(encoding="utf-8")))
        feature: Node = document.get("feature") or {}
        ref = FeatureRef(feature.get("name", ""), str(path))
        by_name: dict[str, FeatureScenario] = {}
        children = feature.get("children", [])
        for scenario, background in _scenarios(children, _background(children)):
            rows = _rows(scenario)
            by_name[scenario["name"]] = FeatureScenario(
                path.name,
                scenario["name"],
                _tags(scenario) | _tags(feature),
                len(rows),
                ref,
                scenario["location"]["line"],
                tuple(background + [step["text"] for step in scenario.get("steps", [])]),
                rows,
            )
        found += by_name.values()
    return found


_BOUND: MutableMapping[Callable[..., Any], FeatureScenario] = weakref.WeakKeyDictionary()


def _python_name(name: str) -> str:
    """A scenario's test name as pytest-bdd's ``scenarios()`` makes it: ``test_`` and its words."""
    words = re.sub(r"\W", "", name.replace(" ", "_"))
    return "test_" + re.sub(r"^\d+_*", "", words).lower()


def _unbound() -> None:
    """The body of every bound scenario: its steps are the test."""


def bind_features(namespace: dict[str, Any], folder: Path) -> None:
    """Bind every scenario of ``folder`` into a test module's namespace with pytest-bdd's public ``scenario()``."""
    from pytest_bdd import scenario  # noqa: PLC0415 (only in the suite's own module)

    in_run_order = sorted(parse_features(folder), key=lambda s: s.feature.name or s.feature.filename)  # as pytest-bdd
    for found in in_run_order:
        test = scenario(found.feature.filename, found.name, features_base_dir=str(folder))(_unbound)
        _BOUND[test] = found
        name, number = _python_name(found.name), 0
        while (name if number == 0 else f"{name}_{number}") in namespace:
            number += 1
        namespace[name if number == 0 else f"{name}_{number}"] = test


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
