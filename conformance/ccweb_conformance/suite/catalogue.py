"""The scenarios of the bundled features, read with pytest-bdd's own parser (nothing is run)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from pytest_bdd.feature import get_features

from ccweb_conformance.reports.model import ScenarioRef

__all__ = ["feature_scenarios"]


def feature_scenarios() -> list[ScenarioRef]:
    """Every scenario of the bundled features, by file name, then in file order."""
    features = sorted(get_features([str(files("ccweb_features"))]), key=lambda f: Path(f.filename).name)
    return [
        ScenarioRef(
            feature_file=Path(feature.filename).name,
            name=scenario.name,
            examples=sum(1 for e in scenario.examples for _ in e.as_contexts()),
            tags=frozenset(scenario.tags) | frozenset(feature.tags),
        )
        for feature in features
        for scenario in feature.scenarios.values()
    ]
