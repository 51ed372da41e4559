"""The scenarios of the bundled features, read as pytest-bdd reads them (nothing is run, pytest is not imported)."""

from __future__ import annotations

from collections.abc import Iterable
from importlib.resources import files
from pathlib import Path

from ccweb_conformance.engine.features import FeatureScenario, parse_features
from ccweb_conformance.reports.model import ScenarioRef

__all__ = ["bundled_features", "feature_scenarios"]


def bundled_features() -> list[FeatureScenario]:
    """Every scenario of the bundled features, each with what runs of it: parsed once by a command, then passed on."""
    return parse_features(Path(str(files("ccweb_features"))))


def feature_scenarios(features: Iterable[FeatureScenario] | None = None) -> list[ScenarioRef]:
    """Every scenario of the bundled features (``features``: as parsed already), by file name, then in file order."""
    return [
        ScenarioRef(feature_file=s.feature_file, name=s.name, examples=s.examples, tags=s.tags)
        for s in (bundled_features() if features is None else features)
    ]
