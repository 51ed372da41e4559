"""The features' scenarios as written (outlines not expanded): what listing, selecting and binding read.

Read with the Gherkin parser pytest-bdd itself uses (``gherkin-official``), without pytest: a
scenario's feature, name, tags, line, step texts (background first) and example rows.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ccweb_conformance.engine.scenarios import Scenario

__all__ = ["FeatureRef", "FeatureScenario", "parse_features"]


@dataclass(frozen=True)
class FeatureRef:
    """A feature: its name and its file's path."""

    name: str
    filename: str


@dataclass(frozen=True)
class FeatureScenario:
    """One scenario as pytest-bdd collects it: its feature file, name, tags and number of example rows.

    The other fields (not compared) are what the plan reads of a scenario: its feature, line, example rows and what
    runs (its steps background first, as pytest-bdd runs them).
    """

    feature_file: str
    name: str
    tags: frozenset[str]
    examples: int
    feature: FeatureRef = field(default=FeatureRef("", ""), compare=False)
    line_number: int = field(default=0, compare=False)
    rows: tuple[dict[str, str], ...] = field(default=(), compare=False)
    runnable: tuple[Scenario, ...] = field(default=(), compare=False, repr=False)
    """What runs: the scenario, or one per example row, as Gherkin's pickles read it (``engine/scenarios.py``)."""


def _tags(node: dict[str, Any]) -> frozenset[str]:
    return frozenset(tag["name"].lstrip("@") for tag in node.get("tags", []))


Node = dict[str, Any]


def _scenarios(children: list[Node]) -> Iterable[Node]:
    for child in children:
        if "scenario" in child:
            yield child["scenario"]
        elif "rule" in child:
            yield from _scenarios(child["rule"].get("children", []))


def _rows(scenario: Node) -> tuple[dict[str, str], ...]:
    rows = []
    for examples in scenario.get("examples", []):
        header = [cell["value"] for cell in examples.get("tableHeader", {}).get("cells", [])]
        rows += [dict(zip(header, (c["value"] for c in row["cells"]), strict=True)) for row in examples["tableBody"]]
    return tuple(rows)


def parse_features(folder: Path) -> list[FeatureScenario]:
    """Every scenario of the ``*.feature`` files in ``folder``: by file name, then in file order, each file parsed
    once (a command parses the folder once and passes the result on).

    As pytest-bdd: a later scenario of the same name in one feature replaces the earlier one;
    tags are the scenario's and its feature's (not a rule's, as pytest-bdd's templates), without ``@``.
    """
    return [found for path in sorted(folder.glob("*.feature"), key=lambda p: p.name) for found in _parse(path)]


def _parse(path: Path) -> Iterable[FeatureScenario]:
    """The scenarios of one feature file, each with its runnable scenarios (Gherkin's pickles, rows expanded)."""
    from gherkin.parser import Parser  # noqa: PLC0415 (only when the features are read)

    from ccweb_conformance.engine.scenarios import pickled  # noqa: PLC0415 (the same)

    document: Node = dict(Parser().parse(path.read_text(encoding="utf-8")))
    runnable: dict[tuple[int, str], list[Scenario]] = defaultdict(list)
    for pickle in pickled(document, path.name):
        runnable[(pickle.template_line, pickle.template_name)].append(pickle)
    feature: Node = document.get("feature") or {}
    ref = FeatureRef(feature.get("name", ""), str(path))
    by_name: dict[str, FeatureScenario] = {}
    for scenario in _scenarios(feature.get("children", [])):
        rows, line = _rows(scenario), scenario["location"]["line"]
        by_name[scenario["name"]] = FeatureScenario(
            path.name,
            scenario["name"],
            _tags(scenario) | _tags(feature),
            len(rows),
            ref,
            line,
            rows,
            tuple(runnable[(line, scenario["name"])]),
        )
    return by_name.values()
