"""The pytest adapter's view of a collected item: whether it is one of the kit's scenarios, and it as a planned
scenario (``suite/planned.py``), the value the collector judges."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from ccweb_conformance.suite.bdd import bound_scenario, example_row, keyword_names
from ccweb_conformance.suite.planned import PlannedScenario

__all__ = ["is_scenario", "planned_of", "scenario_template"]

_FEATURES_DIR = Path(str(files("ccweb_features"))).resolve()
_PLANNED_KEY = pytest.StashKey[PlannedScenario]()
_NOT_TAGS = ("xfail", "usefixtures")
"""pytest's own markers, never shown as a scenario's tags."""


def scenario_template(item: pytest.Item) -> Any:
    """The scenario of the kit's features an item was generated from, or None."""
    return bound_scenario(getattr(item, "function", None))


def is_scenario(item: pytest.Item) -> bool:
    """True for items generated from this kit's features (never a project's own)."""
    template = scenario_template(item)
    return template is not None and _in_features_dir(template.feature.filename)


@cache
def _in_features_dir(filename: str) -> bool:
    """Whether a feature file is one of the kit's (resolved once per file name: about 2,300 asks a run)."""
    return Path(filename).resolve().parent == _FEATURES_DIR


def planned_of(item: pytest.Item) -> PlannedScenario:
    """The scenario an item runs, as the collector names and judges it (kept on the item once made)."""
    known = item.stash.get(_PLANNED_KEY, None)
    if known is not None:
        return known
    template = scenario_template(item)
    callspec = getattr(item, "callspec", None)
    name = template.name if callspec is None else f"{template.name} [{callspec.id}]"
    planned = PlannedScenario(
        template.feature.name,
        template.feature_file,
        name,
        template.line_number,
        tuple(sorted(m.name for m in item.iter_markers() if m.name not in _NOT_TAGS)),
        item.name,
        keyword_names(item),
        tuple(example_row(callspec).items()),
        template,
    )
    item.stash[_PLANNED_KEY] = planned
    return planned
