"""Feature files read into runnable scenarios with gherkin-official's pickles (outlines expanded).

A pickle is Gherkin's own flattening of a scenario: background steps first, one pickle per example
row with its values in place, each step typed (Context, Action, Outcome) with its table or docstring.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from gherkin.pickles.compiler import Compiler

__all__ = ["Scenario", "Step", "pickled"]

_KINDS = {"Context": "given", "Action": "when", "Outcome": "then"}
"""A pickle step's type -> the registry's kind (``And``/``But`` take the kind of the step before)."""


@dataclass(frozen=True)
class Step:
    """One step to run: its kind (None when Gherkin cannot tell), keyword, text, line, table, docstring."""

    kind: str | None
    keyword: str
    text: str
    line: int
    datatable: tuple[tuple[str, ...], ...] | None = None
    docstring: str | None = None


@dataclass(frozen=True)
class Scenario:
    """One scenario to run (an outline: one per example row), with the tags of its feature and its own."""

    feature_file: str
    name: str
    line: int
    tags: frozenset[str]
    steps: tuple[Step, ...]
    template_name: str = ""
    """The name of the scenario as written (an outline's, placeholders unfilled)."""
    template_line: int = 0
    """The line of its ``Scenario:`` (an outline's, for every row)."""


def _nodes(node: Any, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every node of a Gherkin document that has an ID and a location (steps, scenarios, example rows), in document
    order, added to ``found`` (a list filled in one walk: nested generators re-yield each node at every level)."""
    if isinstance(node, dict):
        if "id" in node and "location" in node:
            found.append(node)
        for value in node.values():
            _nodes(value, found)
    elif isinstance(node, list):
        for value in node:
            _nodes(value, found)
    return found


def _step(pickle_step: Any, nodes: dict[str, dict[str, Any]]) -> Step:
    ast = nodes[pickle_step["astNodeIds"][0]]
    argument = pickle_step.get("argument", {})
    table = argument.get("dataTable")
    rows = None if table is None else tuple(tuple(c["value"] for c in row["cells"]) for row in table["rows"])
    docstring = argument.get("docString", {}).get("content")
    return Step(
        _KINDS.get(pickle_step.get("type", "")), ast["keyword"].strip(), pickle_step["text"],
        ast["location"]["line"], rows, docstring,
    )


def pickled(document: Any, feature_file: str) -> list[Scenario]:
    """The scenarios of a parsed feature (a Gherkin document).

    A scenario's line is its ``Scenario:`` line; an outline row's, the row's (its last AST node).
    """
    nodes = {node["id"]: node for node in _nodes(document.get("feature"), [])}
    return [
        Scenario(
            feature_file, pickle["name"], nodes[pickle["astNodeIds"][-1]]["location"]["line"],
            frozenset(tag["name"].lstrip("@") for tag in pickle["tags"]),
            tuple(_step(step, nodes) for step in pickle["steps"]),
            nodes[pickle["astNodeIds"][0]]["name"], nodes[pickle["astNodeIds"][0]]["location"]["line"],
        )
        for pickle in Compiler().compile(cast(Any, {**document, "uri": feature_file}))
    ]
