"""The features' scenarios as written (outlines not expanded): what listing, selecting and binding read.

Read with the Gherkin parser pytest-bdd itself uses (``gherkin-official``), without pytest: a
scenario's feature, name, tags, line, step texts (background first) and example rows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["FeatureRef", "FeatureScenario", "parse_features"]

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
