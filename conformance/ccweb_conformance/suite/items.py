"""The pytest adapter's view of a collected item: whether it is one of the kit's scenarios, and it as a planned
scenario (``suite/planned.py``), the value the collector judges."""

from __future__ import annotations

import pytest

from ccweb_conformance.engine.features import FeatureScenario
from ccweb_conformance.suite.bdd import bound_scenario
from ccweb_conformance.suite.planned import PlannedScenario, plan_scenarios
from ccweb_conformance.suite.scenario_index import bundled_features

__all__ = ["is_scenario", "planned_of", "session_features"]

_PLAN_KEY = pytest.StashKey[dict[str, PlannedScenario]]()
_FEATURES_KEY = pytest.StashKey[list[FeatureScenario]]()


def is_scenario(item: pytest.Item) -> bool:
    """True for items bound from this kit's features (``suite/bdd.py``, ``test_conformance.py``; never a project's
    own, which pytest-bdd's ``scenarios()`` binds)."""
    return bound_scenario(getattr(item, "function", None)) is not None


def session_features(config: pytest.Config) -> list[FeatureScenario]:
    """The bundled features, parsed once per pytest session."""
    features = config.stash.get(_FEATURES_KEY, None)
    if features is None:
        features = config.stash[_FEATURES_KEY] = bundled_features()
    return features


def planned_of(item: pytest.Item) -> PlannedScenario:
    """The scenario an item runs, as the collector names and judges it: the engine's plan of the features
    (``suite/planned.py``, which names each scenario as pytest-bdd names its test), made once per session."""
    plan = item.config.stash.get(_PLAN_KEY, None)
    if plan is None:
        planned = [p for p, _ in plan_scenarios(session_features(item.config))]
        plan = item.config.stash[_PLAN_KEY] = {escaped(p.test_name): p for p in planned}
        plan.update((p.test_name, p) for p in planned)
    return plan[item.name]


def escaped(test_name: str) -> str:
    """The test name as pytest shows it by default: an outline's example ID with its non-ASCII and control
    characters written as Python escapes (``disable_test_id_escaping_and_forfeit_all_rights_to_community_support``
    keeps them as written)."""
    function, bracket, example = test_name.partition("[")
    return function + bracket + example[:-1].encode("unicode_escape").decode("ascii") + "]" if bracket else test_name
