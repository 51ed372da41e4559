"""The scenarios of the bundled features, read as pytest-bdd reads them (nothing is run, pytest is not imported)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from ccweb_conformance.engine.features import parse_features
from ccweb_conformance.reports.model import ScenarioRef

__all__ = ["feature_scenarios"]


def feature_scenarios() -> list[ScenarioRef]:
    """Every scenario of the bundled features, by file name, then in file order."""
    return [
        ScenarioRef(feature_file=s.feature_file, name=s.name, examples=s.examples, tags=s.tags)
        for s in parse_features(Path(str(files("ccweb_features"))))
    ]
